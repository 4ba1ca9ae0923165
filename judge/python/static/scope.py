"""What the publishing check knows about a verifier's names: imports, bindings, own code.

Name resolution is deliberately simple and fails towards "unknown": a name bound in more than
one way anywhere in the module is not resolved to a function, a class or a library callable.
"""

from __future__ import annotations

import ast
import dataclasses

from judge.python.static.budget import Budget
from judge.python.static.rules import BUILTIN_NAMES, MUTATORS, SANITISERS

Scope = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclasses.dataclass(frozen=True, slots=True)
class Binding:
    """One way a name gets a value: ``kind`` is value, iter, aug, mutate, inner (stored into
    an element: ``rows[-1].append(x)``), capture (a ``match``
    capture of ``expr``, the subject), foreign (an exception: may be any object) or opaque."""

    kind: str
    expr: ast.AST | None


def dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def describe(node: ast.AST) -> str:
    """``node`` as source, cut to 40 characters: how a finding names it."""
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


def root_name(node: ast.AST) -> ast.Name | None:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def call_arguments(node: ast.Call) -> list[ast.expr]:
    return [*node.args, *(keyword.value for keyword in node.keywords)]


def params_of(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    return [a.arg for a in (*function.args.posonlyargs, *function.args.args)]


def all_params_of(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    arguments = function.args
    names = [*params_of(function), *(a.arg for a in arguments.kwonlyargs)]
    return names + [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]


# numpy dtypes that hold numbers only (as a string or as numpy's attribute).
NUMERIC_DTYPE_NAMES = frozenset(
    {"float", "int", "complex", "float64", "float32", "int64", "int32", "complex128", "f8", "i8"}
)


class ModuleIndex:
    """Imports, definitions and bindings of one verifier module (no execution)."""

    def __init__(self, tree: ast.Module, budget: Budget | None = None) -> None:
        self.tree = tree
        # The CPU budget of the check, read by the parts that follow calls and ask questions
        # of the whole module (taint, plainness): past it, the check refuses (budget.py).
        self.budget = budget or Budget()
        self.parents: dict[int, ast.AST] = {}
        self.scope_of: dict[int, Scope] = {}
        self.aliases: dict[str, str] = {}  # local name -> fully qualified name
        self.modules: set[str] = set()  # qualified names that are modules
        self.star_heads: list[str] = []
        self.functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self.lambdas: dict[str, list[ast.Lambda]] = {}
        self.classes: dict[str, list[ast.ClassDef]] = {}
        self.method_class: dict[int, ast.ClassDef] = {}
        self.bindings: dict[int, dict[str, list[Binding]]] = {}
        self.binding_sites: dict[str, int] = {}  # over the whole module
        self.import_bound: set[str] = set()
        self.global_names: set[str] = set()
        self._free: dict[str, list[Binding]] | None = None
        # ``for i, tok in enumerate(parts)``: the count's binding waits for the whole module
        # (``i`` is an int only if ``enumerate`` is the builtin: bound nowhere in the module,
        # and no star import that could bind it).
        self._counts: list[tuple[Scope, ast.Name, ast.AST]] = []
        self._index(tree, tree)
        for scope, count, iterable in self._counts:
            if "enumerate" in self.binding_sites or self.star_heads:
                self._bind(scope, count.id, "iter", iterable)
            else:
                self._bind(scope, count.id, "value", ast.Constant(0))

    def scope(self, node: ast.AST) -> Scope:
        """The function, lambda, class or module that ``node`` is in."""
        return self.scope_of.get(id(node), self.tree)

    # --- indexing ---

    def _bind(self, scope: Scope, name: str, kind: str, expr: ast.AST | None) -> None:
        self.bindings.setdefault(id(scope), {}).setdefault(name, []).append(Binding(kind, expr))
        if kind not in ("mutate", "inner"):
            self.binding_sites[name] = self.binding_sites.get(name, 0) + 1

    def _index(self, node: ast.AST, scope: Scope) -> None:
        for child in ast.iter_child_nodes(node):
            self.parents[id(child)] = node
            self.scope_of[id(child)] = scope
            inner = child if isinstance(child, FUNCTION_NODES) else scope
            self._record(child, scope)
            self._index(child, inner)

    def _record(self, node: ast.AST, scope: Scope) -> None:  # noqa: C901 -- one case per node
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.modules.update({alias.name, alias.name.partition(".")[0]})
                local = alias.asname or alias.name.partition(".")[0]
                self.aliases[local] = alias.name if alias.asname else local
                self.import_bound.add(local)
                self._bind(scope, local, "opaque", None)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                if alias.name == "*":
                    self.star_heads.append(module.partition(".")[0])
                    continue
                local = alias.asname or alias.name
                self.aliases[local] = f"{module}.{alias.name}"
                self.import_bound.add(local)
                self._bind(scope, local, "opaque", None)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.functions.setdefault(node.name, []).append(node)
            if not isinstance(self.parents.get(id(node)), ast.ClassDef):
                self._bind(scope, node.name, "opaque", node)
            for name in all_params_of(node):
                self._bind(node, name, "opaque", None)
        elif isinstance(node, ast.Lambda):
            for name in all_params_of(node):
                self._bind(node, name, "opaque", None)
        elif isinstance(node, ast.ClassDef):
            self.classes.setdefault(node.name, []).append(node)
            self._bind(scope, node.name, "opaque", node)
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    self.method_class[id(item)] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    if node.value is None:
                        continue
                    self._bind(scope, target.id, "value", node.value)
                    if isinstance(node.value, ast.Lambda):
                        self.lambdas.setdefault(target.id, []).append(node.value)
                else:
                    self._bind_target(scope, target, "value", node.value)
        elif isinstance(node, ast.AugAssign):
            self._bind_target(scope, node.target, "aug", node.value)
        elif isinstance(node, ast.NamedExpr):
            self._bind(scope, node.target.id, "value", node.value)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            target = node.target
            if (
                isinstance(node.iter, ast.Call)
                and isinstance(node.iter.func, ast.Name)
                and node.iter.func.id == "enumerate"
                and len(node.iter.args) == 1
                and not node.iter.keywords
                and isinstance(target, ast.Tuple | ast.List)
                and len(target.elts) == 2
                and isinstance(target.elts[0], ast.Name)
            ):
                self._counts.append((scope, target.elts[0], node.iter))
                self._bind_target(scope, target.elts[1], "iter", node.iter)
            else:
                self._bind_target(scope, target, "iter", node.iter)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._bind_target(scope, node.optional_vars, "opaque", None)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            # An exception carries whatever was raised with it: a library object, the text.
            self._bind(scope, node.name, "foreign", None)
        elif isinstance(node, ast.Match):
            # A capture is a part of the subject: data if the subject is, foreign if not.
            for child in ast.walk(node):
                if isinstance(child, ast.MatchAs | ast.MatchStar) and child.name:
                    self._bind(scope, child.name, "capture", node.subject)
                elif isinstance(child, ast.MatchMapping) and child.rest:
                    self._bind(scope, child.rest, "capture", node.subject)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            self.global_names.update(node.names)
            for name in node.names:
                self._bind(scope, name, "opaque", None)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            # parts.append(x): parts may now hold x (other builtin methods store nothing).
            # rows[-1].append(x): the root ``rows`` may now hold x too, inside ("inner").
            receiver = root_name(node.func.value)
            if receiver is not None and node.func.attr in MUTATORS:
                kind = "mutate" if receiver is node.func.value else "inner"
                for argument in call_arguments(node):
                    self._bind(scope, receiver.id, kind, argument)

    def _bind_target(self, scope: Scope, target: ast.AST, kind: str, expr: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            self._bind(scope, target.id, kind, expr)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._bind_target(scope, element, "iter" if kind == "value" else kind, expr)
        elif isinstance(target, ast.Starred):
            self._bind_target(scope, target.value, kind, expr)
        elif isinstance(target, ast.Subscript | ast.Attribute):
            root = root_name(target)
            if root is not None:
                opaque = isinstance(target, ast.Attribute)
                self._bind(scope, root.id, "mutate", None if opaque else expr)
                if isinstance(target, ast.Subscript):
                    self._bind(scope, root.id, "mutate", target.slice)

    # --- queries ---
    def unique(self, name: str) -> bool:
        return self.binding_sites.get(name, 0) == 1

    def qualified(self, node: ast.AST) -> str:
        """The fully qualified dotted name of ``node`` as far as imports tell ('' if none)."""
        name = dotted(node) or ""
        head, _, rest = name.partition(".")
        if head in self.aliases:
            full = self.aliases[head]
            return f"{full}.{rest}" if rest else full
        if head and self.star_heads and head not in self.binding_sites:
            if head not in BUILTIN_NAMES:
                return f"{self.star_heads[0]}.{name}"
        return name

    def candidates(self, node: ast.AST) -> list[str]:
        """Every qualified name ``node`` may denote (a bare name under several star imports)."""
        first = self.qualified(node)
        name = dotted(node) or ""
        head = name.partition(".")[0]
        if not (head and self.star_heads and head not in self.binding_sites):
            return [first] if first else []
        return [first, *(f"{star}.{name}" for star in self.star_heads[1:])]

    def trusted_name(self, node: ast.AST) -> str | None:
        """The qualified name of ``node`` if it certainly denotes it (no rebinding anywhere)."""
        name = dotted(node)
        if name is None:
            return None
        head = name.partition(".")[0]
        if head in self.aliases:
            return self.qualified(node) if self.unique(head) and head in self.import_bound else None
        if head in BUILTIN_NAMES and head not in self.binding_sites:
            return name
        return None

    def maps_sanitiser(self, node: ast.Call) -> bool:
        """``map(int, parts)``: every element is what a sanitiser returns (a number), as
        ``[int(p) for p in parts]`` is; the iterable meets only the sanitiser."""
        return (
            self.trusted_name(node.func) == "map"
            and len(node.args) == 2
            and not node.keywords
            and not isinstance(node.args[1], ast.Starred)
            and self.trusted_name(node.args[0]) in SANITISERS
        )

    def numeric_array(self, node: ast.Call) -> bool:
        """``numpy.array(rows, dtype=float)``: numpy converts each element as ``float()``
        would, and the array holds numbers only, as ``[float(x) for x in rows]`` does."""
        if self.trusted_name(node.func) not in ("numpy.array", "numpy.asarray"):
            return False
        dtypes = [k.value for k in node.keywords if k.arg == "dtype"] + node.args[1:2]
        if len(dtypes) != 1 or any(k.arg not in ("dtype", "copy") for k in node.keywords):
            return False
        dtype = dtypes[0]
        if isinstance(dtype, ast.Constant):
            return dtype.value in NUMERIC_DTYPE_NAMES
        name = self.trusted_name(dtype)
        return name in ("float", "int", "complex") or (
            name is not None and name.removeprefix("numpy.") in NUMERIC_DTYPE_NAMES
        )

    def lookup(self, name: str, scope: Scope) -> list[Binding] | None:
        """The bindings of ``name`` seen from ``scope`` (None if it is bound nowhere there)."""
        # `x.append(v)` in a function records a mutation there without binding x: keep
        # looking outward for the scope that binds it, and keep the mutations seen on the way.
        # Mutations from functions where the name is free may reach the binding scope: all
        # of them count (conservatively, whichever scope binds it).
        mutations = self._free_mutations().get(name, [])
        current: ast.AST | None = scope
        while current is not None:
            found = self.bindings.get(id(current), {}).get(name)
            if found is not None and any(b.kind not in ("mutate", "inner") for b in found):
                return [*mutations, *found]
            if isinstance(current, ast.Module):
                return None
            current = self.scope_of.get(id(current))
        return None

    def _free_mutations(self) -> dict[str, list[Binding]]:
        if self._free is None:
            self._free = {}
            for names in self.bindings.values():
                for name, found in names.items():
                    if all(binding.kind in ("mutate", "inner") for binding in found):
                        self._free.setdefault(name, []).extend(found)
        return self._free

    def enclosing_class(self, scope: Scope) -> ast.ClassDef | None:
        return self.method_class.get(id(scope))

    def is_module(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and self.aliases.get(node.id) in self.modules
