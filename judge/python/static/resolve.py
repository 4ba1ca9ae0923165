"""Which of the verifier's own functions, lambdas, classes and methods a call reaches.

A call is followed into the verifier's own code only when the target is certain: a name bound
once, by ``def`` (undecorated, or with a decorator that keeps the function as written), by a
lambda, or by ``class`` with only the verifier's own classes (or builtin exceptions) as bases.
Anything else is "unknown", and an unknown call that receives the solution is refused.
"""

from __future__ import annotations

import ast

from judge.python.static.rules import (
    CLASS_DECORATORS,
    EXCEPTION_CLASSES,
    TRANSPARENT_DECORATORS,
)
from judge.python.static.scope import ModuleIndex, Scope, params_of

Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


# The enum module's bases: their metaclass looks members up by name in a dict of str keys.
ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"})
# With a builtin data type mixed in (``class Move(str, Enum)``): the metaclass is the same.
_ENUM_PARTS = ENUM_BASES | {"str", "int", "float"}


class Resolver:
    def __init__(self, index: ModuleIndex) -> None:
        self.index = index

    def _decorator_name(self, decorator: ast.expr) -> str | None:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return self.index.trusted_name(target)

    def transparent(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        return all(
            self._decorator_name(d) in TRANSPARENT_DECORATORS for d in function.decorator_list
        )

    def is_static(self, function: Function) -> bool:
        return isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) and any(
            self._decorator_name(d) == "staticmethod" for d in function.decorator_list
        )

    def functions(self, func: ast.AST) -> list[Function] | None:
        """The own functions a call of ``func`` runs, or None if not certainly own code."""
        if not isinstance(func, ast.Name):
            return None
        name = func.id
        defs = [
            d for d in self.index.functions.get(name, []) if id(d) not in self.index.method_class
        ]
        lambdas = self.index.lambdas.get(name, [])
        sites = self.index.binding_sites.get(name, 0)
        if defs and sites == len(defs) and all(self.transparent(d) for d in defs):
            return list(defs)
        if lambdas and sites == len(lambdas) == 1:
            return list(lambdas)
        return None

    def own_class(self, name: str) -> ast.ClassDef | None:
        classes = self.index.classes.get(name, [])
        if len(classes) != 1 or not self.index.unique(name):
            return None
        cls = classes[0]
        if cls.keywords or not all(
            self._decorator_name(d) in CLASS_DECORATORS for d in cls.decorator_list
        ):
            return None
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id in ("object", *EXCEPTION_CLASSES):
                if self.index.trusted_name(base) is not None:
                    continue
            if not (isinstance(base, ast.Name) and self.own_class(base.id) is not None):
                return None
        return cls

    def own_enum(self, node: ast.AST) -> bool:
        """``Move`` or ``Move.__members__``: an own class that derives from the enum module's
        bases only, with no metaclass, decorator or class-level hook of its own. Indexing it by
        name (``Move[text]``, ``text in Move.__members__``) reads a dict of the author's members
        by str keys: the candidates are the author's, as with a dict the verifier built."""
        if isinstance(node, ast.Attribute) and node.attr == "__members__":
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        classes = self.index.classes.get(node.id, [])
        if len(classes) != 1 or self.index.binding_sites.get(node.id, 0) != 1:
            return False
        cls = classes[0]
        hooks = {
            "__class_getitem__",
            "__getitem__",
            "__contains__",
            "_missing_",
            "__init_subclass__",
        }
        return (
            not cls.keywords
            and not cls.decorator_list
            and any(self.index.trusted_name(base) in ENUM_BASES for base in cls.bases)
            and all(self.index.trusted_name(base) in _ENUM_PARTS for base in cls.bases)
            and not any(
                isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in hooks
                for item in cls.body
            )
        )

    def subclasses(self, cls: ast.ClassDef) -> list[ast.ClassDef]:
        found = [cls]
        for classes in self.index.classes.values():
            for other in classes:
                if other is cls:
                    continue
                bases = {b.id for b in other.bases if isinstance(b, ast.Name)}
                if cls.name in bases and other not in found:
                    found.extend(c for c in self.subclasses(other) if c not in found)
        return found

    def method(self, cls: ast.ClassDef, name: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """Definitions of ``name`` in ``cls`` or its own bases (empty: not certainly own)."""
        own = [
            item
            for item in cls.body
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == name
        ]
        if own:
            return own if all(self.transparent(item) for item in own) else []
        for base in cls.bases:
            if isinstance(base, ast.Name):
                parent = self.own_class(base.id)
                if parent is not None:
                    found = self.method(parent, name)
                    if found:
                        return found
        return []

    def receiver_class(self, receiver: ast.AST, scope: Scope) -> ast.ClassDef | None:
        """The own class whose instance ``receiver`` certainly is."""
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name):
            return self.own_class(receiver.func.id)
        if not isinstance(receiver, ast.Name):
            return None
        cls = self.index.enclosing_class(scope)
        if (
            cls is not None
            and isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef)
            and not self.is_static(scope)
            and params_of(scope)[:1] == [receiver.id]
        ):
            return self.own_class(cls.name)
        bindings = self.index.lookup(receiver.id, scope)
        if not bindings:
            return None
        found: set[str] = set()
        for binding in bindings:
            expr = binding.expr
            if binding.kind in ("mutate", "inner"):
                continue
            if not (binding.kind == "value" and isinstance(expr, ast.Call)):
                return None
            if not isinstance(expr.func, ast.Name) or self.own_class(expr.func.id) is None:
                return None
            found.add(expr.func.id)
        return self.own_class(found.pop()) if len(found) == 1 else None


def class_members(
    tree: ast.Module,
) -> list[tuple[ast.ClassDef, list[Function], list[ast.AST]]]:
    """Each class of the module with the functions written in its body (methods, and
    lambdas such as ``t = property(lambda self: ...)``) and the values it is built from (its
    bases, its metaclass, the class attributes its body binds)."""
    found = []
    for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        functions: list[Function] = []
        # A metaclass or base that hands out the text hands it out through this class too
        # (``class Box(metaclass=Meta)``: ``Box.anything`` runs ``Meta.__getattr__``).
        values: list[ast.AST] = [*cls.bases, *(keyword.value for keyword in cls.keywords)]
        stack: list[ast.AST] = list(cls.body)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                functions.append(node)
                if isinstance(node, ast.Lambda):
                    continue
                stack.extend(node.decorator_list)  # the body is the method's own
            elif isinstance(node, ast.ClassDef):
                continue  # a nested class is a class of its own
            else:
                if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                    values.append(node.value)
                stack.extend(ast.iter_child_nodes(node))
        found.append((cls, functions, values))
    return found
