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
ATTRIBUTE_SINKS = frozenset({"getattr", "setattr", "delattr", "import_module"})
PICKLE_MODULES = frozenset({"pickle", "_pickle", "cPickle", "marshal", "shelve", "dill", "copyreg"})
SYMPY_METHODS = frozenset({"subs", "equals", "xreplace", "replace", "evalf", "match", "has"})


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

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.modules.append(alias.name)
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
                continue
            self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"


class _Taint:
    """Flow-insensitive taint analysis over the module's functions."""

    def __init__(self, tree: ast.Module, aliases: dict[str, str]) -> None:
        self.aliases = aliases
        self.functions: dict[str, ast.FunctionDef] = {}
        self.recipes: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                self.functions[node.name] = node
                if node.name == "parse_math" and _is_recipe(node):
                    self.recipes.add(node.name)
        self.flows: list[InjectionFlow] = []
        self._seen: set[tuple[str, frozenset[int]]] = set()

    def qualified(self, node: ast.AST) -> str:
        name = _dotted(node) or ""
        head, _, rest = name.partition(".")
        if head in self.aliases:
            full = self.aliases[head]
            return f"{full}.{rest}" if rest else full
        return name

    def analyse(self, name: str, tainted_params: frozenset[int]) -> None:
        function = self.functions.get(name)
        if function is None or name in self.recipes:
            return
        key = (name, tainted_params)
        if key in self._seen:
            return
        self._seen.add(key)
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        tainted = {params[i] for i in tainted_params if i < len(params)}
        # Iterate to a fixed point: taint flows through assignments in any order (loops).
        for _ in range(10):
            before = len(tainted)
            for node in ast.walk(function):
                self._propagate(node, tainted)
            if len(tainted) == before:
                break
        for node in ast.walk(function):
            if isinstance(node, ast.Call):
                self._check_call(node, tainted)

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
            return False
        return any(self.is_tainted(child, tainted) for child in ast.iter_child_nodes(node))

    def _flag(self, node: ast.AST, sink: str, message: str) -> None:
        flow = InjectionFlow(getattr(node, "lineno", 0), sink, message)
        if flow not in self.flows:
            self.flows.append(flow)

    def _check_call(self, node: ast.Call, tainted: set[str]) -> None:
        name = self.qualified(node.func)
        short = name.rpartition(".")[2]
        head = name.partition(".")[0]
        args = [*node.args, *(k.value for k in node.keywords)]
        tainted_args = [i for i, arg in enumerate(node.args) if self.is_tainted(arg, tainted)]
        any_tainted = bool(tainted_args) or any(
            self.is_tainted(k.value, tainted) for k in node.keywords
        )
        # numpy.load(allow_pickle=True) runs pickle whatever its input.
        if short == "load" and head == "numpy":
            for keyword in node.keywords:
                if keyword.arg == "allow_pickle" and not (
                    isinstance(keyword.value, ast.Constant) and keyword.value.value is False
                ):
                    self._flag(node, name, "numpy.load with allow_pickle unpickles (runs code)")
        if head in PICKLE_MODULES and short in {"load", "loads", "Unpickler", "open"}:
            self._flag(node, name, f"{name} deserialises objects (runs code)")
        if not any_tainted:
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
        elif head == "numexpr":
            self._flag(node, name, "numexpr evaluates strings")
        elif isinstance(node.func, ast.Attribute) and node.func.attr in SYMPY_METHODS:
            if not self.is_tainted(node.func.value, tainted):
                self._flag(
                    node,
                    name or node.func.attr,
                    f".{node.func.attr}() sympifies its arguments: the solution reaches eval",
                )
        # Calls into the verifier's own functions carry the taint into their parameters.
        if isinstance(node.func, ast.Name) and node.func.id in self.functions:
            self.analyse(node.func.id, frozenset(tainted_args))
        del args


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
        taint = _Taint(tree, imports.aliases)
        taint.analyse("verify", frozenset({0}))
        flows = sorted(taint.flows, key=lambda flow: (flow.line, flow.sink))
        # Flows outside verify's reach (module level) still matter for pickle/numpy.load.
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                for call in ast.walk(node):
                    if isinstance(call, ast.Call):
                        taint._check_call(call, set())
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
