"""Publishing checks of a Python verifier's source (no execution).

``static_check`` parses the module and reports: a top-level ``verify`` taking two positional
parameters; the imports, refusing any outside the standard library, numpy, scipy, sympy and
mpmath; the module docstring (the solution format shown to solvers); and every path by which
the solution can reach code execution (``eval``/``exec``/``compile``, ``sympify``/``parse_expr``
and any other sympy call on solution-derived values, ``lambdify``, ``pickle``/``marshal``,
``numpy.load(allow_pickle=True)``, dynamic imports/attribute access). The analysis is a
conservative taint analysis: the solution parameter is tainted, taint follows assignments,
expressions and calls into the verifier's own functions, and only numeric conversions (``int``,
``float``, ...) and the unmodified safe-parser recipe (``judge/python/safe_parse.py``) clean it.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import pathlib
import sys

ALLOWED_THIRD_PARTY = frozenset({"numpy", "scipy", "sympy", "mpmath"})
DENIED_STDLIB = frozenset(
    {"idlelib", "tkinter", "turtle", "turtledemo", "ensurepip", "venv", "test"}
)
ALLOWED_MODULES = (frozenset(sys.stdlib_module_names) | ALLOWED_THIRD_PARTY) - DENIED_STDLIB

# Calls whose result carries no text of the solution.
CLEANING_CALLS = frozenset(
    {"int", "float", "bool", "len", "ord", "hash", "Fraction", "Decimal", "isinstance", "callable"}
)
CODE_SINKS = frozenset({"eval", "exec", "compile", "__import__", "breakpoint"})
ATTRIBUTE_SINKS = frozenset(
    {"getattr", "setattr", "delattr", "import_module", "attrgetter", "methodcaller"}
)
# Functions that evaluate text: referring to them other than by calling them (an alias, an
# argument of map/partial, a dict of parsers) hides the call from the analysis.
VALUE_SINKS = frozenset(
    {"eval", "exec", "compile", "__import__", "breakpoint", "sympify", "S", "parse_expr",
     "lambdify", "parse_latex", "identify", "getattr", "attrgetter", "methodcaller",
     "import_module"}
)  # fmt: skip
TEXT_EVALUATORS = frozenset(
    {"eval", "exec", "compile", "sympify", "S", "parse_expr", "lambdify", "parse_latex"}
)
BUILTIN_VALUE_SINKS = frozenset({"eval", "exec", "compile", "__import__", "breakpoint"})
SINK_MODULES = frozenset({"sympy", "mpmath", "builtins", "operator", "importlib", "numexpr"})
PICKLE_MODULES = frozenset({"pickle", "_pickle", "cPickle", "marshal", "shelve", "dill", "copyreg"})
# Methods of str, containers, re patterns and files: they do not evaluate their arguments.
PLAIN_METHODS = frozenset(
    {"append", "extend", "insert", "add", "update", "setdefault", "get", "pop", "remove",
     "discard", "index", "count", "join", "split", "rsplit", "splitlines", "startswith",
     "endswith", "format", "replace", "strip", "lstrip", "rstrip", "match", "fullmatch",
     "search", "findall", "finditer", "sub", "subn", "encode", "decode", "partition",
     "rpartition", "find", "rfind", "keys", "values", "items", "copy", "issubset",
     "issuperset", "union", "intersection", "difference", "isdisjoint", "write", "put",
     "translate", "maketrans", "removeprefix", "removesuffix", "zfill", "center", "ljust",
     "rjust", "casefold", "lower", "upper"}
)  # fmt: skip
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "put"})
SYMPY_METHODS = frozenset({"subs", "equals", "xreplace", "replace", "evalf", "match", "has"})


_BUILTIN_NAMES = frozenset(dir(builtins))


@dataclasses.dataclass(frozen=True, slots=True)
class InjectionFlow:
    """A path from the solution to code execution."""

    line: int
    sink: str
    message: str


@dataclasses.dataclass(frozen=True, slots=True)
class StaticReport:
    ok: bool
    errors: tuple[str, ...]
    imports: tuple[str, ...]
    docstring: str | None
    injection_flows: tuple[InjectionFlow, ...]


RECIPE_PATH = pathlib.Path(__file__).with_name("safe_parse.py")


@functools.lru_cache(maxsize=1)
def _recipe_dump() -> str:
    # Parsed from the file rather than imported: importing it would import sympy (~0.3 s)
    # into every process that only wants to check a verifier.
    tree = ast.parse(RECIPE_PATH.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "parse_math":
            return ast.dump(node, annotate_fields=False)
    raise RuntimeError(f"parse_math not found in {RECIPE_PATH}")


def _is_recipe(node: ast.FunctionDef) -> bool:
    return ast.dump(node, annotate_fields=False) == _recipe_dump()


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


class _Imports(ast.NodeVisitor):
    def __init__(self) -> None:
        self.modules: list[str] = []
        self.errors: list[str] = []
        self.aliases: dict[str, str] = {}  # local name -> fully qualified name
        self.module_aliases: set[str] = set()  # qualified names that are modules
        self.star_modules: set[str] = set()  # from M import *

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.modules.append(alias.name)
            self.module_aliases.add(alias.name)
            self.module_aliases.add(alias.name.partition(".")[0])
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                top = alias.name.partition(".")[0]
                self.aliases[top] = top

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.errors.append(f"line {node.lineno}: relative imports are not allowed")
            return
        module = node.module or ""
        self.modules.append(module)
        for alias in node.names:
            if alias.name == "*":
                self.star_modules.add(module)
                continue
            self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"


class _Taint:
    """Flow-insensitive taint analysis over the module's functions (methods and nested ones too)."""

    def __init__(
        self, tree: ast.Module, aliases: dict[str, str], modules: set[str], stars: set[str]
    ) -> None:
        self.aliases = aliases
        self.modules = modules
        # `from sympy import *`: a bare name the module does not define may be sympy's.
        self.star_head = next(
            (m.partition(".")[0] for m in sorted(stars) if m.partition(".")[0] in SINK_MODULES),
            None,
        )
        self.functions: dict[str, list[ast.FunctionDef]] = {}
        self.methods: set[int] = set()  # ids of functions defined in a class body
        self.classes: dict[str, list[ast.ClassDef]] = {}
        self.recipes: set[str] = set()
        recipe_nodes: set[int] = set()
        for statement in tree.body:
            if (
                isinstance(statement, ast.FunctionDef)
                and statement.name == "parse_math"
                and _is_recipe(statement)
            ):
                self.recipes.add(statement.name)
                recipe_nodes.add(id(statement))
        # The recipe is trusted only if nothing else binds its name: a second `def parse_math`
        # (or an assignment, an import) below it is what runs.
        bindings = sum(
            1
            for node in ast.walk(tree)
            if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and node.name == "parse_math")
            or (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
                and node.id == "parse_math")
            or (isinstance(node, ast.alias) and (node.asname or node.name) == "parse_math")
        )  # fmt: skip
        if bindings != 1:
            self.recipes.clear()
            recipe_nodes.clear()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                self.methods.update(id(item) for item in node.body)
                self.classes.setdefault(node.name, []).append(node)
            if isinstance(node, ast.FunctionDef) and id(node) not in recipe_nodes:
                self.functions.setdefault(node.name, []).append(node)
        # Names bound at module level: taint that reaches them (G.append(solution), `global G`)
        # reaches every function that reads them.
        self.module_names: set[str] = set()
        for statement in tree.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.module_names.add(statement.name)
                continue
            for child in ast.walk(statement):
                if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                    self.module_names.add(child.id)
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                self.module_names.update(node.names)
        self.global_tainted: set[str] = set()
        # Every name the module binds anywhere (variables, parameters, functions, classes).
        self.bound_names: set[str] = set(self.module_names)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.bound_names.add(node.id)
            elif isinstance(node, ast.arg):
                self.bound_names.add(node.arg)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.bound_names.add(node.name)
        self.flows: list[InjectionFlow] = []
        self._seen: set[tuple[int, frozenset[str]]] = set()

    def run(self) -> None:
        """Analyse verify with its solution tainted, then follow tainted module-level names."""
        for _ in range(10):
            before = set(self.global_tainted)
            self._seen.clear()
            self.analyse("verify", frozenset({0}))
            if self.global_tainted:
                for functions in list(self.functions.values()):
                    for function in functions:
                        self._analyse_function(function, frozenset())
            if self.global_tainted == before:
                break

    def qualified(self, node: ast.AST) -> str:
        name = _dotted(node) or ""
        head, _, rest = name.partition(".")
        if head in self.aliases:
            full = self.aliases[head]
            return f"{full}.{rest}" if rest else full
        if (
            self.star_head is not None
            and head
            and head not in self.bound_names
            and head not in _BUILTIN_NAMES
        ):
            return f"{self.star_head}.{name}"
        return name

    def analyse(self, name: str, tainted_params: frozenset[int]) -> None:
        for function in self.functions.get(name, []):
            params = _params(function)
            self._analyse_function(
                function, frozenset(params[i] for i in tainted_params if i < len(params))
            )

    def _analyse_function(self, function: ast.FunctionDef, tainted_names: frozenset[str]) -> None:
        key = (id(function), tainted_names | frozenset(self.global_tainted))
        if key in self._seen:
            return
        self._seen.add(key)
        tainted = set(tainted_names) | self.global_tainted
        # Iterate to a fixed point: taint flows through assignments in any order (loops).
        for _ in range(10):
            before = len(tainted)
            for node in ast.walk(function):
                self._propagate(node, tainted)
            if len(tainted) == before:
                break
        self.global_tainted |= tainted & self.module_names
        for node in ast.walk(function):
            if isinstance(node, ast.Call):
                self._check_call(node, tainted)
            elif isinstance(node, ast.Lambda):
                self._check_lambda(node, tainted)
            self._check_sink_value(node)

    def _check_lambda(self, node: ast.Lambda, tainted: set[str]) -> None:
        """A lambda's arguments are unknown (map, sorted, a call right away): assume the worst,
        but only for the functions that evaluate text, so `key=lambda r: sympy.re(r)` is fine."""
        arguments = node.args
        params = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
        params.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
        assumed = tainted | params
        for call in ast.walk(node.body):
            if not isinstance(call, ast.Call):
                continue
            name = self.qualified(call.func)
            short = name.rpartition(".")[2]
            if short in TEXT_EVALUATORS and any(
                self.is_tainted(arg, assumed) for arg in _call_args(call)
            ):
                self._flag(
                    call,
                    name,
                    f"a lambda passes its argument to {short}(), which "
                    "evaluates text; the checks cannot tell what it is called with",
                )

    def _propagate(self, node: ast.AST, tainted: set[str]) -> None:
        targets: list[ast.AST] = []
        value: ast.AST | None = None
        if isinstance(node, ast.Assign):
            targets, value = list(node.targets), node.value
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.NamedExpr):
            targets, value = [node.target], node.value
        elif isinstance(node, ast.For | ast.comprehension):
            targets, value = [node.target], node.iter
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets, value = [node.optional_vars], node.context_expr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATORS  # other methods are flagged when given taint
            and isinstance(_root(node.func.value), ast.Name)
        ):
            # parts.append(solution), table.update(k=solution): the receiver now holds it.
            if any(self.is_tainted(arg, tainted) for arg in _call_args(node)):
                targets, value = [_root(node.func.value)], node
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and len(node.args) == 3
        ):
            targets, value = [_root(node.args[0])], node.args[2]
        elif isinstance(node, ast.Try | ast.TryStar):
            # raise ValueError(solution) ... except ValueError as error: error holds it.
            raised = [n.exc for n in ast.walk(node) if isinstance(n, ast.Raise) and n.exc]
            if any(self.is_tainted(exc, tainted) for exc in raised) or any(
                isinstance(n, ast.Call) and self.is_tainted(n, tainted)
                for statement in node.body
                for n in ast.walk(statement)
            ):
                for handler in node.handlers:
                    if handler.name:
                        tainted.add(handler.name)
        if value is not None and self.is_tainted(value, tainted):
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        tainted.add(name.id)

    def is_tainted(self, node: ast.AST, tainted: set[str]) -> bool:
        if isinstance(node, ast.Name):
            return node.id in tainted
        if isinstance(node, ast.Call):
            name = self.qualified(node.func)
            short = name.rpartition(".")[2]
            if short in CLEANING_CALLS or name in self.recipes:
                return False
            parts: list[ast.AST] = [node.func, *node.args, *(k.value for k in node.keywords)]
            return any(self.is_tainted(part, tainted) for part in parts)
        if isinstance(node, ast.Lambda):
            # lambda v: solution -- calling it hands out the solution (Matrix.applyfunc, map).
            arguments = node.args
            own = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
            return self.is_tainted(node.body, tainted - own)
        return any(self.is_tainted(child, tainted) for child in ast.iter_child_nodes(node))

    def _flag(self, node: ast.AST, sink: str, message: str) -> None:
        flow = InjectionFlow(getattr(node, "lineno", 0), sink, message)
        if flow not in self.flows:
            self.flows.append(flow)

    def _is_module(self, node: ast.AST) -> bool:
        """An imported module (re, math, numpy...), not an object such as a sympy expression."""
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return False
        return self.aliases[node.id] in self.modules

    def is_value_sink(self, node: ast.AST) -> str | None:
        """The name of a string-evaluating function that ``node`` refers to, if any."""
        if not isinstance(node, ast.Name | ast.Attribute):
            return None
        name = self.qualified(node)
        short = name.rpartition(".")[2]
        if name in BUILTIN_VALUE_SINKS or name == f"builtins.{short}" and short in CODE_SINKS:
            return name
        if short in VALUE_SINKS and name.partition(".")[0] in SINK_MODULES:
            return name
        return None

    def _check_sink_value(self, node: ast.AST) -> None:
        """A sink passed around as a value (f = sympy.sympify; map(eval, ...)): unfollowable."""
        if isinstance(node, ast.Call):
            for child in _call_args(node):
                sink = self.is_value_sink(child)
                if sink is not None:
                    self._flag(
                        child,
                        sink,
                        f"{sink} is passed as a value: the checks cannot "
                        "follow what it is called with",
                    )
            return
        values: list[ast.AST] = []
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr | ast.Return):
            values = [node.value] if node.value is not None else []
        elif isinstance(node, ast.Dict):
            values = [v for v in node.values if v is not None]
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            values = list(node.elts)
        elif isinstance(node, ast.Lambda | ast.IfExp | ast.BoolOp):
            values = (
                [node.body] if isinstance(node, ast.Lambda) else list(ast.iter_child_nodes(node))
            )
        for value in values:
            sink = self.is_value_sink(value)
            if sink is not None:
                self._flag(
                    value,
                    sink,
                    f"{sink} is bound to another name: the checks cannot "
                    "follow what it is called with",
                )

    def _check_call(self, node: ast.Call, tainted: set[str]) -> None:
        name = self.qualified(node.func)
        short = name.rpartition(".")[2]
        head = name.partition(".")[0]
        # numpy.load(allow_pickle=True) runs pickle whatever its input.
        if short == "load" and head == "numpy":
            for keyword in node.keywords:
                if keyword.arg == "allow_pickle" and not (
                    isinstance(keyword.value, ast.Constant) and keyword.value.value is False
                ):
                    self._flag(node, name, "numpy.load with allow_pickle unpickles (runs code)")
        if head in PICKLE_MODULES and short in {"load", "loads", "Unpickler", "open"}:
            self._flag(node, name, f"{name} deserialises objects (runs code)")
        if short == "getattr" and len(node.args) >= 2:
            attribute = node.args[1]
            if isinstance(attribute, ast.Constant) and attribute.value in VALUE_SINKS:
                self._flag(
                    node,
                    f"getattr {attribute.value}",
                    f"getattr(..., {attribute.value!r}) fetches a function that evaluates text",
                )
            elif not isinstance(attribute, ast.Constant) and self.qualified(node.args[0]).partition(
                "."
            )[0] in SINK_MODULES | {"numpy", "scipy"}:
                self._flag(
                    node,
                    name,
                    "getattr of a module with a computed name: the checks "
                    "cannot tell which function it fetches",
                )
        tainted_args = [i for i, arg in enumerate(node.args) if self.is_tainted(arg, tainted)]
        tainted_keywords = [k.arg for k in node.keywords if self.is_tainted(k.value, tainted)]
        self._follow_indirect(node, tainted, bool(tainted_args or tainted_keywords))
        if not tainted_args and not tainted_keywords:
            # Method calls on a tainted object (solution.format(...)) are plain str methods.
            return
        if name in CODE_SINKS or short in CODE_SINKS:
            self._flag(node, name, f"the solution reaches {short}(): it would run as code")
        elif short in ATTRIBUTE_SINKS:
            self._flag(node, name, f"the solution chooses a name for {short}()")
        elif head == "sympy" or short in {"sympify", "S", "parse_expr", "lambdify", "parse_latex"}:
            self._flag(
                node,
                name,
                f"the solution reaches {name}(), which may sympify a string with eval; "
                "parse it with the safe parser recipe (judge/python/safe_parse.py) first",
            )
        elif head == "mpmath" and short in {"identify", "findpoly"}:
            self._flag(node, name, f"{name}() evaluates the names it is given with eval")
        elif head == "numexpr":
            self._flag(node, name, "numexpr evaluates strings")
        elif isinstance(node.func, ast.Attribute) and node.func.attr in SYMPY_METHODS:
            if not self.is_tainted(node.func.value, tainted):
                self._flag(
                    node,
                    name or node.func.attr,
                    f".{node.func.attr}() sympifies its arguments: the solution reaches eval",
                )
        elif (
            isinstance(node.func, ast.Attribute)
            and node.func.attr not in PLAIN_METHODS
            and not self.is_tainted(node.func.value, tainted)
            and not self._is_module(_root(node.func.value))
            and node.func.attr not in self.functions
        ):
            # x.diff(solution), expr.series(solution), M.applyfunc(lambda v: solution): most
            # methods of sympy objects sympify their arguments, and the receiver's type is unknown.
            self._flag(
                node,
                name or node.func.attr,
                f".{node.func.attr}() of an object the checks cannot type receives the "
                "solution (sympy methods sympify strings with eval)",
            )
        # Calls into the verifier's own functions and methods carry the taint into their
        # parameters (by position, by keyword; a method's positions shift by self).
        callee = short or (node.func.attr if isinstance(node.func, ast.Attribute) else "")
        for function in self.functions.get(callee, []):
            params = _params(function)
            names: set[str] = set()
            shift = 1 if id(function) in self.methods or isinstance(node.func, ast.Attribute) else 0
            for i in tainted_args:
                if any(isinstance(arg, ast.Starred) for arg in node.args[: i + 1]):
                    names.update(params[i:])
                names.update(params[i : i + 1 + shift])
            keyword_only = [a.arg for a in function.args.kwonlyargs]
            for keyword_name in tainted_keywords:  # None: **mapping
                names.update([*params, *keyword_only] if keyword_name is None else [keyword_name])
            for extra in (function.args.vararg, function.args.kwarg):
                if extra is not None:
                    names.add(extra.arg)
            self._analyse_function(function, frozenset(names))

    def _taint_all(self, function: ast.FunctionDef) -> None:
        arguments = function.args
        names = [*_params(function), *(a.arg for a in arguments.kwonlyargs)]
        names += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
        self._analyse_function(function, frozenset(names))

    def _follow_indirect(self, node: ast.Call, tainted: set[str], tainted_call: bool) -> None:
        """Taint that reaches the verifier's own code other than as a positional argument."""
        if isinstance(node.func, ast.Attribute) and self.is_tainted(node.func.value, tainted):
            # Box(solution).value(): the receiver (self) holds the solution.
            for function in self.functions.get(node.func.attr, []):
                self._taint_all(function)
        if not tainted_call:
            return
        callee = self.qualified(node.func).rpartition(".")[2]
        for statement in self.classes.get(callee, []):
            # Box(solution): __init__ stores it, any method may read it from self.
            for item in statement.body:
                if isinstance(item, ast.FunctionDef):
                    self._taint_all(item)
        for argument in _call_args(node):
            # map(helper, [solution]), Thread(target=helper, args=(solution,)), partial(...).
            if isinstance(argument, ast.Name | ast.Attribute):
                name = argument.id if isinstance(argument, ast.Name) else argument.attr
                for function in self.functions.get(name, []):
                    self._taint_all(function)


def _params(function: ast.FunctionDef) -> list[str]:
    return [a.arg for a in (*function.args.posonlyargs, *function.args.args)]


def _call_args(node: ast.Call) -> list[ast.AST]:
    return [*node.args, *(k.value for k in node.keywords)]


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
        node = node.value
    return node


def _check_verify(tree: ast.Module) -> tuple[ast.FunctionDef | None, list[str]]:
    errors: list[str] = []
    verify = None
    for node in tree.body:
        if isinstance(node, ast.AsyncFunctionDef) and node.name == "verify":
            errors.append("verify must be a plain function, not async")
        if isinstance(node, ast.FunctionDef) and node.name == "verify":
            verify = node
    if verify is None:
        errors.append("the module defines no top-level function verify(solution, rng)")
        return None, errors
    args = verify.args
    positional = [*args.posonlyargs, *args.args]
    required_after = len(positional) - len(args.defaults)
    if len(positional) < 2 and args.vararg is None:
        errors.append("verify must take two positional parameters: verify(solution, rng)")
    elif required_after > 2:
        errors.append("verify must take exactly two required positional parameters")
    if any(default is None for default in args.kw_defaults):
        errors.append("verify has keyword-only parameters without defaults")
    return verify, errors


def static_check(source: str) -> StaticReport:
    """Check a verifier's source for publishing; never raises for bad input."""
    if not isinstance(source, str):
        return StaticReport(False, ("the verifier source is not text",), (), None, ())
    try:
        tree = ast.parse(source, filename="verifier.py")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None)
        where = f" (line {line})" if line else ""
        return StaticReport(
            False, (f"syntax error{where}: {exc.__class__.__name__}",), (), None, ()
        )
    imports = _Imports()
    imports.visit(tree)
    errors = list(imports.errors)
    for module in imports.modules:
        top = module.partition(".")[0]
        if top not in ALLOWED_MODULES:
            errors.append(
                f"import of {module!r} is not allowed: only the standard library, numpy, scipy, "
                "sympy and mpmath"
            )
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func) or ""
            if name in {"__import__", "importlib.import_module", "import_module"}:
                first = node.args[0] if node.args else None
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    errors.append(f"line {node.lineno}: dynamic import with a computed name")
                elif first.value.partition(".")[0] not in ALLOWED_MODULES:
                    errors.append(f"line {node.lineno}: import of {first.value!r} is not allowed")
    verify, verify_errors = _check_verify(tree)
    errors.extend(verify_errors)
    docstring = ast.get_docstring(tree)
    if not docstring:
        errors.append("the module docstring (the solution format shown to solvers) is missing")
    flows: list[InjectionFlow] = []
    if verify is not None:
        taint = _Taint(tree, imports.aliases, imports.module_aliases, imports.star_modules)
        taint.run()
        # Flows outside verify's reach (module level) still matter for pickle/numpy.load.
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                for call in ast.walk(node):
                    if isinstance(call, ast.Call):
                        taint._check_call(call, set(taint.global_tainted))
                    taint._check_sink_value(call)
        flows = sorted(set(taint.flows), key=lambda flow: (flow.line, flow.sink))
    for flow in flows:
        errors.append(f"line {flow.line}: {flow.message}")
    return StaticReport(
        ok=not errors,
        errors=tuple(errors),
        imports=tuple(dict.fromkeys(imports.modules)),
        docstring=docstring,
        injection_flows=tuple(flows),
    )
