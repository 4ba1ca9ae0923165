"""Which clean values are plain builtin data (numbers, strings, containers of them).

A value derived from the solution may meet another value in an operator, a comparison or a
subscript only if that other value is plain: a sympy or numpy object there would receive the
solution's text (``Point(3, 4) * solution`` sympifies it). Plainness is inferred from every
binding of a name, flow-insensitively; a name bound even once to something else is not plain.
"""

from __future__ import annotations

import ast
import builtins
import collections.abc

from judge.python.static.rules import (
    BUILTIN_METHODS,
    MUTATORS,
    PLAIN_MODULE_ATTRIBUTES,
    SANITISERS,
)
from judge.python.static.scope import Binding, ModuleIndex, Scope, all_params_of, params_of

# Builtins that always return a builtin value, whatever their arguments. Not ``type``: the
# class of a library object is a library class, whose methods take the instance explicitly
# (``type(poly).add(poly, solution)`` sympified the solution); it is plain of a plain value.
_ALWAYS_PLAIN = SANITISERS | {"str", "repr", "ascii", "chr", "format", "any", "all"}
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


# What a helper whose parameters are judged plain may contain and call (_keeps_nothing).
_KEEPING_NODES = (
    ast.Global, ast.Nonlocal, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
    ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr, ast.Delete,
)  # fmt: skip
_READING_BUILTINS = _ALWAYS_PLAIN | frozenset(
    {"abs", "round", "divmod", "pow", "list", "tuple", "dict", "set", "frozenset", "sorted",
     "reversed", "enumerate", "zip", "range", "min", "max", "sum", "len"}
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


def _own_nodes(function: ast.FunctionDef) -> collections.abc.Iterator[ast.AST]:
    """The nodes of ``function``'s own body, not those of the code nested in it."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))


class Plainness:
    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self._memo: dict[tuple[int, str], bool] = {}
        self._returns: dict[int, bool] = {}

    def is_plain(self, node: ast.AST, scope: Scope) -> bool:  # noqa: C901 -- one case per node
        if isinstance(node, ast.Constant | ast.JoinedStr):
            return True
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return all(self.is_plain(element, scope) for element in node.elts)
        if isinstance(node, ast.Starred):
            return self.is_plain(node.value, scope)
        if isinstance(node, ast.Dict):
            keys = [key for key in node.keys if key is not None]
            return all(self.is_plain(part, scope) for part in (*keys, *node.values))
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
        if isinstance(node, ast.BinOp):
            return self.is_plain(node.left, scope) and self.is_plain(node.right, scope)
        if isinstance(node, ast.UnaryOp):
            return self.is_plain(node.operand, scope)
        if isinstance(node, ast.BoolOp):
            return all(self.is_plain(value, scope) for value in node.values)
        if isinstance(node, ast.Compare):
            return all(self.is_plain(part, scope) for part in (node.left, *node.comparators))
        if isinstance(node, ast.IfExp):
            return self.is_plain(node.body, scope) and self.is_plain(node.orelse, scope)
        if isinstance(node, ast.NamedExpr):
            return self.is_plain(node.value, scope)
        if isinstance(node, ast.Subscript):
            return self.is_plain(node.value, scope)
        if isinstance(node, ast.Slice):
            parts = (node.lower, node.upper, node.step)
            return all(part is None or self.is_plain(part, scope) for part in parts)
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

    def _plain_by_shape(self, node: ast.AST) -> bool:
        """Plain whatever its names hold: a literal, a sanitiser's or ``str()``'s result, or a
        tuple/list of them."""
        if isinstance(node, ast.Constant | ast.JoinedStr):
            return True
        if isinstance(node, ast.Tuple | ast.List):
            return all(self._plain_by_shape(element) for element in node.elts)
        return isinstance(node, ast.Call) and self.index.trusted_name(node.func) in _ALWAYS_PLAIN

    def _keeps_nothing(self, function: ast.FunctionDef) -> bool:
        """The helper stores no object anywhere: no store into a container or an attribute,
        no ``global``/``nonlocal``, no nested code, no yield, and only calls that keep nothing
        (the builtins below, non-mutating builtin methods, the verifier's own functions,
        whose parameters are judged the same way). A plain list passed to it is then only
        read: it cannot be aliased into a holder the solution is later stored into."""
        for node in ast.walk(function):
            if node is function:
                continue
            if isinstance(node, _KEEPING_NODES):
                return False
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and any(
                not isinstance(target, ast.Name)
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            ):
                return False
            if isinstance(node, ast.Call) and not self._keeping_nothing_call(node):
                return False
        return True

    def _keeping_nothing_call(self, node: ast.Call) -> bool:
        func = node.func
        if isinstance(func, ast.Attribute):
            return (
                func.attr in BUILTIN_METHODS
                and func.attr not in MUTATORS
                and (self.index.trusted_name(func) is None)
            )
        name = self.index.trusted_name(func)
        if name in _READING_BUILTINS:
            return True
        return (
            isinstance(func, ast.Name)
            and bool(self.index.functions.get(func.id))
            and self.index.binding_sites.get(func.id, 0) == 1
        )

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
        if name in _ALWAYS_PLAIN or self.index.maps_sanitiser(node) or self.is_default_dict(node):
            return True
        if name in _PLAIN_IF_ARGUMENTS:
            return all(
                self.is_plain(argument, scope)
                for argument in (*node.args, *(k.value for k in node.keywords))
            )
        return self._own_call_plain(node)

    def _own_call_plain(self, node: ast.Call) -> bool:
        """A call of the module's own plain function (undecorated, not a method, bound once,
        not a generator) whose every ``return`` gives plain data, judged in the function (its
        parameters are plain only as ``_parameter_plain`` says): ``TARGET = normalise("x")``."""
        func = node.func
        if not isinstance(func, ast.Name) or self.index.binding_sites.get(func.id, 0) != 1:
            return False
        defs = self.index.functions.get(func.id, [])
        if len(defs) != 1 or not isinstance(defs[0], ast.FunctionDef):
            return False
        function = defs[0]
        if function.decorator_list or id(function) in self.index.method_class:
            return False
        if id(function) in self._returns:
            return self._returns[id(function)]
        self._returns[id(function)] = True  # optimistic inside a recursion, as for names
        own = list(_own_nodes(function))
        result = not any(isinstance(n, ast.Yield | ast.YieldFrom) for n in own) and all(
            n.value is None or self.is_plain(n.value, function)
            for n in own
            if isinstance(n, ast.Return)
        )
        self._returns[id(function)] = result
        return result

    def name_plain(self, name: str, scope: Scope) -> bool:
        bindings = self.index.lookup(name, scope)
        if bindings is None or name in self.index.global_names:
            return False
        key = (id(scope), name)
        if key in self._memo:
            return self._memo[key]
        # Optimistic inside a cycle (n = n + 1): each value is built from plain ones.
        self._memo[key] = True
        parameter = self._parameter_binding(name, scope)
        result = all(
            self._parameter_plain(parameter[0], name)
            if parameter is not None and binding is parameter[1]
            else self._binding_plain(binding, scope)
            for binding in bindings
        )
        self._memo[key] = result
        return result

    def _parameter_binding(self, name: str, scope: Scope) -> tuple[ast.FunctionDef, Binding] | None:
        """The function whose parameter ``name`` is, as seen from ``scope``, with the binding the
        parameter made (its first: parameters are bound with the ``def``)."""
        current: ast.AST | None = scope
        while current is not None and not isinstance(current, ast.Module):
            found = self.index.bindings.get(id(current), {}).get(name)
            if found is not None and any(b.kind not in ("mutate", "inner") for b in found):
                if isinstance(current, ast.FunctionDef) and name in all_params_of(current):
                    return current, found[0]
                return None
            current = self.index.scope_of.get(id(current))
        return None

    def _parameter_plain(self, function: ast.FunctionDef, name: str) -> bool:
        """A helper's parameter is plain when every call passes it plain data (or leaves it to a
        plain default): ``matches(parts, EXPECTED)``. Only for a module's own undecorated
        function, not a method, bound once, whose name is used only to call it directly (a
        function handed on as a value may be called with anything)."""
        arguments = function.args
        if (
            not self._keeps_nothing(function)
            or function.decorator_list
            or id(function) in self.index.method_class
            or self.index.binding_sites.get(function.name, 0) != 1
        ):
            return False
        calls = []
        for node in ast.walk(self.index.tree):
            if isinstance(node, ast.Name) and node.id == function.name:
                parent = self.index.parents.get(id(node))
                if not (isinstance(parent, ast.Call) and parent.func is node):
                    return False
                calls.append(parent)
        positional = params_of(function)
        if name not in positional and name not in (a.arg for a in arguments.kwonlyargs):
            return False  # *args, **kwargs
        defaults = dict(zip(reversed(positional), reversed(arguments.defaults), strict=False))
        keywords = zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        defaults.update((a.arg, d) for a, d in keywords if d is not None)
        outer = self.index.scope_of.get(id(function), self.index.tree)
        for call in calls:
            if any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords
            ):
                return False
            passed = [k.value for k in call.keywords if k.arg == name]
            if name in positional and positional.index(name) < len(call.args):
                passed.append(call.args[positional.index(name)])
            if passed:
                where = self.index.scope_of.get(id(call), self.index.tree)
                if not all(self.is_plain(value, where) for value in passed):
                    return False
            elif name not in defaults or not self.is_plain(defaults[name], outer):
                return False
        return bool(calls)

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
        if not isinstance(node, ast.Name) or node.id in self.index.global_names:
            return False
        bindings = self.index.lookup(node.id, scope)
        if not bindings:
            return False
        return all(
            binding.kind in ("mutate", "inner")
            or (binding.kind == "value" and binding.expr is not None
                and self.is_builtin_container(binding.expr, scope))
            for binding in bindings
        )  # fmt: skip
