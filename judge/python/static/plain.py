"""Which clean values are plain builtin data (numbers, strings, containers of them).

A value derived from the solution may meet another value in an operator, a comparison or a
subscript only if that other value is plain: a sympy or numpy object there would receive the
solution's text (``Point(3, 4) * solution`` sympifies it). Plainness is inferred from every
binding of a name, flow-insensitively; a name bound even once to something else is not plain.
"""

from __future__ import annotations

import ast
import builtins

from judge.python.static.own_functions import OwnFunctions
from judge.python.static.rules import ALWAYS_PLAIN, PLAIN_MODULE_ATTRIBUTES
from judge.python.static.scope import Binding, ModuleIndex, Scope

# Builtins that return a plain value when all their arguments are plain.
_PLAIN_IF_ARGUMENTS = frozenset(
    {"abs", "round", "divmod", "pow", "list", "tuple", "dict", "set", "frozenset", "sorted",
     "reversed", "enumerate", "zip", "range", "min", "max", "sum", "iter", "next", "bytes",
     "bytearray", "slice", "type", "re.match", "re.fullmatch", "re.search", "re.findall",
     "re.finditer", "re.split", "re.sub", "re.subn", "re.escape", "json.loads", "json.dumps",
     "ast.parse", "ast.literal_eval",
     # A dict subclass and iterators of tuples: what goes in comes out, nothing is called.
     "collections.Counter", "itertools.permutations", "itertools.combinations",
     "itertools.product", "itertools.chain", "itertools.islice", "itertools.pairwise"}
)  # fmt: skip


# Factories of collections.defaultdict whose values are a builtin's empty value.
_EMPTY_VALUE_FACTORIES = frozenset(
    {"int", "float", "complex", "bool", "str", "list", "tuple", "dict", "set", "frozenset"}
)
# Calls and methods that return a new builtin list/dict/set (whatever they hold).
_CONTAINER_CALLS = frozenset(
    {"list", "dict", "set", "sorted", "json.loads", "re.findall", "re.split"}
)
_CONTAINER_METHODS = frozenset({"split", "rsplit", "splitlines", "copy", "groups", "groupdict"})


class Plainness:
    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self._memo: dict[tuple[int, str], bool] = {}
        self.own = OwnFunctions(index, self)

    def is_plain(self, node: ast.AST, scope: Scope) -> bool:  # noqa: C901 -- one case per node
        self.index.budget.check()
        parts = self.parts(node)
        if parts is not None:
            return all(self.is_plain(part, scope) for part in parts)
        if isinstance(node, ast.Starred):
            return self.is_plain(node.value, scope)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            # {(int(s[x]), int(s[y])) for s in sympy.solve(...)} holds ints whatever it iterates.
            return self.is_plain(node.elt, scope) and (
                self._generators_plain(node.generators, scope) or self._plain_by_shape(node.elt)
            )
        if isinstance(node, ast.DictComp):
            return (
                self.is_plain(node.key, scope)
                and self.is_plain(node.value, scope)
                and self._generators_plain(node.generators, scope)
            )
        if isinstance(node, ast.NamedExpr):
            return self.is_plain(node.value, scope)
        if isinstance(node, ast.Subscript):
            return self.is_plain(node.value, scope)
        if isinstance(node, ast.Slice):
            bounds = (node.lower, node.upper, node.step)
            return all(bound is None or self.is_plain(bound, scope) for bound in bounds)
        if isinstance(node, ast.Attribute):
            if self.index.trusted_name(node) in PLAIN_MODULE_ATTRIBUTES:
                return True
            name = self.index.trusted_name(node)
            if name is not None and name.startswith("re.") and name[3:].isupper():
                return True  # re.IGNORECASE and the other flags
            return not self.index.is_module(node.value) and self.is_plain(node.value, scope)
        if isinstance(node, ast.Call):
            return self._call_plain(node, scope)
        if isinstance(node, ast.Name):
            return self.name_plain(node.id, scope)
        return False

    @staticmethod
    def parts(node: ast.AST) -> tuple[ast.AST, ...] | None:
        """The parts whose values make up a literal, a display or an operator's value, so
        that it is plain when they all are (``()`` for a literal; a ``**`` of a dict display
        is its mapping; the condition of ``a if c else b`` is not a part); None for any
        other node."""
        if isinstance(node, ast.Constant | ast.JoinedStr):
            return ()
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return tuple(node.elts)
        if isinstance(node, ast.Dict):
            return (*(key for key in node.keys if key is not None), *node.values)
        if isinstance(node, ast.BinOp):
            return (node.left, node.right)
        if isinstance(node, ast.UnaryOp):
            return (node.operand,)
        if isinstance(node, ast.BoolOp):
            return tuple(node.values)
        if isinstance(node, ast.Compare):
            return (node.left, *node.comparators)
        if isinstance(node, ast.IfExp):
            return (node.body, node.orelse)
        return None

    def _plain_by_shape(self, node: ast.AST) -> bool:
        """Plain whatever its names hold: a literal, a sanitiser's or ``str()``'s result, or a
        tuple/list of them."""
        if isinstance(node, ast.Constant | ast.JoinedStr):
            return True
        if isinstance(node, ast.Tuple | ast.List):
            return all(self._plain_by_shape(element) for element in node.elts)
        return isinstance(node, ast.Call) and self.index.trusted_name(node.func) in ALWAYS_PLAIN

    def _generators_plain(self, generators: list[ast.comprehension], scope: Scope) -> bool:
        return all(self.is_plain(generator.iter, scope) for generator in generators)

    def _call_plain(self, node: ast.Call, scope: Scope) -> bool:
        name = self.index.trusted_name(node.func)
        if name is None and isinstance(node.func, ast.Attribute):
            receiver = node.func.value
            if isinstance(receiver, ast.Constant) and isinstance(receiver.value, str):
                return True  # "".join(...), "-".split(...): a str's methods return str data
            # A builtin method of a plain value: "a,b".split(","), parts.copy().
            return (
                self.is_plain(node.func.value, scope)
                and all(self.is_plain(argument, scope) for argument in node.args)
                and not node.keywords
            )
        if name in ALWAYS_PLAIN or self.index.maps_sanitiser(node) or self.is_default_dict(node):
            return True
        if name in _PLAIN_IF_ARGUMENTS:
            return all(
                self.is_plain(argument, scope)
                for argument in (*node.args, *(k.value for k in node.keywords))
            )
        return self.own.call_plain(node)

    def name_plain(self, name: str, scope: Scope) -> bool:
        bindings = self.index.lookup(name, scope)
        if bindings is None or name in self.index.global_names:
            return False
        key = (id(scope), name)
        if key in self._memo:
            return self._memo[key]
        # Optimistic inside a cycle (n = n + 1): each value is built from plain ones.
        self._memo[key] = True
        parameter = self.own.parameter_binding(name, scope)
        result = all(
            self.own.parameter_plain(parameter[0], name)
            if parameter is not None and binding is parameter[1]
            else self._binding_plain(binding, scope)
            for binding in bindings
        )
        self._memo[key] = result
        return result

    def plain_before_augmented(self, node: ast.AST, scope: Scope) -> bool:
        """``total += solution``: was ``total`` plain data before (each ``+=`` is checked)?"""
        if not isinstance(node, ast.Name):
            return self.is_plain(node, scope)
        bindings = self.index.lookup(node.id, scope)
        if bindings is None or node.id in self.index.global_names:
            return False
        return all(b.kind == "aug" or self._binding_plain(b, scope) for b in bindings)

    def _binding_plain(self, binding: Binding, scope: Scope) -> bool:
        if binding.kind == "opaque" or binding.expr is None:
            return False
        return self.is_plain(binding.expr, scope)

    def is_class_literal(self, node: ast.AST) -> bool:
        """A builtin class or an ``ast`` node class, or a display of them: ``type(x) in (int,
        float)``, ``type(node) is ast.Constant``. Their metaclass is ``type``, whose ``==``
        compares identity and runs no code of the other operand (the class of the solution's
        data meets them; an own metaclass's ``__eq__`` is the analysis's, see compare.py)."""
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return bool(node.elts) and all(self.is_class_literal(e) for e in node.elts)
        name = self.index.trusted_name(node)
        if name is None:
            return False
        module, _, attribute = name.rpartition(".")
        if module == "":
            return isinstance(getattr(builtins, name, None), type)
        return module == "ast" and isinstance(getattr(ast, attribute, None), type)

    def is_default_dict(self, node: ast.AST) -> bool:
        """``collections.defaultdict(int)``: an empty dict whose missing keys get a builtin's
        empty value (0, [], ...), as a display ``{}`` would hold them."""
        if not (
            isinstance(node, ast.Call)
            and self.index.trusted_name(node.func) == "collections.defaultdict"
            and not node.keywords
            and len(node.args) <= 1
        ):
            return False
        return all(self.index.trusted_name(a) in _EMPTY_VALUE_FACTORIES for a in node.args)

    def is_dict(self, node: ast.AST, scope: Scope) -> bool:
        """A dict display, or a name bound only to dict displays."""
        if isinstance(node, ast.Dict):
            return True
        bindings = self.index.lookup(node.id, scope) if isinstance(node, ast.Name) else None
        return bool(bindings) and all(
            b.kind == "value" and isinstance(b.expr, ast.Dict) for b in bindings or []
        )

    def has_plain_keys(self, node: ast.AST, scope: Scope) -> bool:
        """A dict/list/tuple/str whose keys are plain, whatever its values: ``d[solution]``."""
        if self.is_plain(node, scope):
            return True
        if isinstance(node, ast.Dict):
            return all(key is not None and self.is_plain(key, scope) for key in node.keys)
        if isinstance(node, ast.List | ast.Tuple):
            return True  # indexed by position
        if isinstance(node, ast.Name):
            bindings = self.index.lookup(node.id, scope)
            if not bindings or node.id in self.index.global_names:
                return False
            return all(
                binding.kind == "inner"
                or binding.kind == "value"
                and binding.expr is not None
                and (
                    isinstance(binding.expr, ast.Dict | ast.List | ast.Tuple)
                    and self.has_plain_keys(binding.expr, scope)
                    or self.is_default_dict(binding.expr)
                )
                for binding in bindings
            )
        return False

    def is_builtin_container(self, node: ast.AST, scope: Scope) -> bool:
        """A list/dict/set the verifier built (its elements may be anything): it can hold the
        solution (parts.append(solution)) without calling anything of it."""
        displays = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
        if isinstance(node, displays) or self.is_default_dict(node):
            return True
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in _CONTAINER_METHODS:
                return self.is_builtin_container(node.func.value, scope) or self.is_plain(
                    node.func.value, scope
                )
            return self.index.trusted_name(node.func) in _CONTAINER_CALLS
        return isinstance(node, ast.Name) and self.name_is_builtin_container(node.id, scope)

    def name_is_builtin_container(self, name: str, scope: Scope) -> bool:
        """Every value bound to ``name`` in ``scope`` is a list/dict/set the verifier built."""
        if name in self.index.global_names:
            return False
        bindings = self.index.lookup(name, scope)
        if not bindings:
            return False
        return all(
            binding.kind in ("mutate", "inner")
            or (binding.kind == "value" and binding.expr is not None
                and self.is_builtin_container(binding.expr, scope))
            for binding in bindings
        )  # fmt: skip
