"""The one table of dangerous names of the Python judge: what turns text into code or hands out
what a verdict must not reach, why, and what a verifier author writes instead.

Read by the publishing check (``judge/python/static/``: refused wherever mentioned, or allowed
only as a direct call on literals), by the verifier guide page and by the docs, as
``imports.py`` is for the import allowlist. A name is matched by itself or as a prefix of a
dotted name (``pickle`` covers ``pickle.loads``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping


@dataclasses.dataclass(frozen=True, slots=True)
class Danger:
    """Why a name is dangerous in a verifier, and what to write instead."""

    reason: str
    instead: str


_EVAL_INSTEAD = (
    "use ast.literal_eval() for Python literals, json.loads() for data, or "
    "formalmarket_verify.parse_math() for expressions"
)
_IMPORT_INSTEAD = "import the modules you need at the top of the file"
_NAMESPACE_INSTEAD = "name the values directly, or keep a dict of your own as a lookup table"
_PICKLE_INSTEAD = "embed data as literals or JSON text (json.loads)"
_FRAMES_INSTEAD = "pass the values your code needs as arguments"
_NUMPY_LOAD_INSTEAD = (
    "embed the array as a literal: numpy.array([...]) or numpy.array(json.loads(...))"
)
_SYMPIFY_INSTEAD = (
    "parse the solution's text with formalmarket_verify.parse_math(); sympify only literal "
    'text you wrote (sympify("x**2 + 1", locals={"x": X}))'
)
_LAMBDIFY_INSTEAD = (
    "evaluate with expr.subs(x, value).evalf() or expr.evalf(subs={x: value}), or write "
    "the numeric function with def"
)
_VAR = Danger(
    "var() writes symbols into the caller's module namespace under the names it is given",
    'use sympy.symbols() and bind the result to names of your own (x, y = symbols("x y"))',
)
_IMPORT_MODULE = Danger("import_module imports a module chosen by a string", _IMPORT_INSTEAD)

# Refused wherever they are mentioned: the analysis cannot follow what they do.
REFUSED: Mapping[str, Danger] = {
    "eval": Danger("eval() runs text as code", _EVAL_INSTEAD),
    "exec": Danger("exec() runs text as code", _EVAL_INSTEAD),
    "compile": Danger("compile() turns text into code", _EVAL_INSTEAD),
    "__import__": Danger("__import__ imports a module chosen at run time", _IMPORT_INSTEAD),
    "breakpoint": Danger("breakpoint() starts a debugger", "remove it"),
    "globals": Danger("globals() hands out the module's namespace", _NAMESPACE_INSTEAD),
    "locals": Danger("locals() hands out a namespace", _NAMESPACE_INSTEAD),
    "vars": Danger("vars() hands out a namespace", _NAMESPACE_INSTEAD),
    "__builtins__": Danger("__builtins__ hands out eval and exec", _NAMESPACE_INSTEAD),
    "builtins": Danger("the builtins module hands out eval and exec", _NAMESPACE_INSTEAD),
    "importlib": Danger("importlib imports modules chosen at run time", _IMPORT_INSTEAD),
    "runpy": Danger("runpy runs code", _IMPORT_INSTEAD),
    "code": Danger("the code module runs text as code", _EVAL_INSTEAD),
    "codeop": Danger("codeop compiles text", _EVAL_INSTEAD),
    "pickle": Danger("pickle runs code while loading", _PICKLE_INSTEAD),
    "_pickle": Danger("pickle runs code while loading", _PICKLE_INSTEAD),
    "marshal": Danger("marshal builds code objects", _PICKLE_INSTEAD),
    "shelve": Danger("shelve unpickles", _PICKLE_INSTEAD),
    "copyreg": Danger("copyreg changes how objects are unpickled", _PICKLE_INSTEAD),
    "dill": Danger("dill runs code while loading", _PICKLE_INSTEAD),
    "ctypes": Danger("ctypes calls native code", "use numpy or the standard library"),
    "inspect": Danger("inspect hands out frames and their variables", _FRAMES_INSTEAD),
    "gc.get_objects": Danger("gc hands out every object", _FRAMES_INSTEAD),
    "gc.get_referrers": Danger("gc hands out every object", _FRAMES_INSTEAD),
    "gc.get_referents": Danger("gc hands out every object", _FRAMES_INSTEAD),
    "sys._getframe": Danger("frames hand out every variable", _FRAMES_INSTEAD),
    "sys._current_frames": Danger("frames hand out every variable", _FRAMES_INSTEAD),
    "sys.modules": Danger("sys.modules hands out every module (eval among them)", _IMPORT_INSTEAD),
    "sys.settrace": Danger("a trace function sees every frame", "remove it"),
    "sys.setprofile": Danger("a profile function sees every frame", "remove it"),
    "sys.addaudithook": Danger("audit hooks see every event", "remove it"),
    "sys.last_value": Danger(
        "the last exception may quote the solution", "catch the exception with try/except"
    ),
    "sys.last_exc": Danger(
        "the last exception may quote the solution", "catch the exception with try/except"
    ),
    "sys.last_traceback": Danger(
        "the last exception may quote the solution", "catch the exception with try/except"
    ),
    "threading.settrace": Danger("a trace function sees every frame", "remove it"),
    "threading.setprofile": Danger("a profile function sees every frame", "remove it"),
    "threading.settrace_all_threads": Danger("a trace function sees every frame", "remove it"),
    "threading.setprofile_all_threads": Danger("a profile function sees every frame", "remove it"),
    "types.FunctionType": Danger(
        "building functions from code objects", "define functions with def or lambda"
    ),
    "types.CodeType": Danger("building code objects", "define functions with def or lambda"),
    "numpy.load": Danger(
        "numpy.load unpickles with allow_pickle, which any call shape can set", _NUMPY_LOAD_INSTEAD
    ),
    "numpy.lib.format.read_array": Danger(
        "read_array unpickles with allow_pickle", _NUMPY_LOAD_INSTEAD
    ),
    "numpy.lib.npyio": Danger("numpy.lib.npyio.load unpickles", _NUMPY_LOAD_INSTEAD),
    "numpy.lib.format": Danger("numpy.lib.format.read_array unpickles", _NUMPY_LOAD_INSTEAD),
    "sympy.lambdify": Danger("lambdify turns text into code with eval", _LAMBDIFY_INSTEAD),
    "sympy.utilities.lambdify": Danger(
        "lambdify turns text into code with eval", _LAMBDIFY_INSTEAD
    ),
    "sympy.parsing": Danger("sympy's parsers evaluate text with eval", _SYMPIFY_INSTEAD),
    "sympy.core.sympify": Danger("sympify evaluates text with eval", _SYMPIFY_INSTEAD),
    "mpmath.identify": Danger(
        "mpmath.identify evaluates the names it is given",
        "use sympy.nsimplify() or sympy.minimal_polynomial() on the number",
    ),
    "mpmath.findpoly": Danger(
        "mpmath.findpoly evaluates strings", "use sympy.minimal_polynomial() on the number"
    ),
    "numexpr": Danger("numexpr evaluates text", "write the expression with numpy operations"),
    "string.Formatter": Danger(
        "string.Formatter fetches the attributes and items its field names name, and "
        "get_field/get_value hand out the object itself",
        "format with a literal format string ('{0:.3f}'.format(x)) or an f-string",
    ),
    "unittest.mock": Danger(
        "mock.patch imports and replaces the object a dotted name names: what the checks "
        "trust about a library would no longer hold",
        "wrap the library function in one of your own",
    ),
    "sympy.var": _VAR,
    "sympy.core.symbol.var": _VAR,
    "sympy.interactive": Danger(
        "sympy.interactive changes the session's namespace and printing",
        "import what you need from sympy directly",
    ),
    "sympy.external.import_module": _IMPORT_MODULE,
    "sympy.external.importtools": _IMPORT_MODULE,
    "logging.config": Danger(
        "logging.config imports and calls the factories its configuration names",
        "leave logging alone (print nothing; the verdict is the return value)",
    ),
}

# Callables that evaluate strings: allowed only as a direct call on literals (the text is then
# the author's own).
LITERAL_ONLY: Mapping[str, Danger] = {
    "sympy.sympify": Danger("sympify evaluates text with eval", _SYMPIFY_INSTEAD),
    "sympy.S": Danger("S() is sympify, which evaluates text with eval", _SYMPIFY_INSTEAD),
    "sympy.parse_expr": Danger("parse_expr evaluates text with eval", _SYMPIFY_INSTEAD),
    "sympy.parse_latex": Danger("parse_latex evaluates text", _SYMPIFY_INSTEAD),
}
# Short names that are a sympy text evaluator under any module path (sympy.core.sympify...).
EVALUATOR_ATTRIBUTES = frozenset({"sympify", "parse_expr", "parse_latex"})
# Short names ``getattr(obj, "...")`` may not fetch, whatever the object.
REFUSED_FETCHES = frozenset(
    {*EVALUATOR_ATTRIBUTES, "S", "lambdify", "load", "loads", "eval", "exec"}
)

_ATTRIBUTE_INSTEAD = "use the object's public methods and attributes"
# Attribute names that are refused on any object: ways to frames, namespaces and evaluators.
REFUSED_ATTRIBUTES = frozenset(
    {*EVALUATOR_ATTRIBUTES, "lambdify", "read_array", "settrace",
     "setprofile", "_getframe", "__import__", "__builtins__", "__globals__", "__dict__",
     "__setattr__", "__delattr__", "__getattr__", "__defaults__", "__kwdefaults__",
     "__subclasses__", "__getattribute__", "__code__", "__closure__", "__reduce__",
     "__reduce_ex__", "__self__", "__func__", "__wrapped__", "__loader__", "__spec__",
     "__mro__", "__bases__", "__base__", "f_back", "f_globals", "f_locals", "f_builtins",
     "f_code", "gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "ag_code",
     "tb_frame", "tb_next", "co_code"}
)  # fmt: skip


# Library settings a verifier may assign (``mpmath.mp.dps = 50``), the one exception to "no
# store into an imported module": each is a precision or display switch whose setter converts
# the value to an int or bool and changes no function of the library.
LIBRARY_SETTINGS = frozenset({"mpmath.mp.dps", "mpmath.mp.prec", "mpmath.mp.pretty"})


@dataclasses.dataclass(frozen=True, slots=True)
class ByName:
    """A callable that turns a name into an object: which arguments are names (``positions``;
    none listed: every positional argument), why, and what to write instead."""

    positions: tuple[int, ...]
    keywords: tuple[str, ...]
    reason: str
    instead: str
    imports: bool = False  # the name is a dotted path whose head is a module to import


_BY_NAME_INSTEAD = (
    "use a literal name, or a dict of your own mapping the expected texts to the functions "
    "you chose"
)
FORMAT_INSTEAD = "write the format string as a literal ('{0:.3f}'.format(x)) or use an f-string"
# The by-name resolvers (issue 25, section 2: the sinks that are not code): the solution's text
# reaching one would pick the library function that computes the answer
# (``pkgutil.resolve_name("sympy:" + text)(N)``), and no run-time check of code sees it. Each is
# allowed only as a direct call whose name arguments are literals (or names bound only to
# literals), and no part of a literal name may be a refused name: the names are the author's.
# Format strings are resolvers too (``"{0.primefactors}"``): see FORMAT_METHODS.
BY_NAME: Mapping[str, ByName] = {
    "getattr": ByName((1,), (), "getattr fetches the attribute it is given", _BY_NAME_INSTEAD),
    "setattr": ByName((1,), (), "setattr stores the attribute it is given", _BY_NAME_INSTEAD),
    "delattr": ByName((1,), (), "delattr removes the attribute it is given", _BY_NAME_INSTEAD),
    "operator.attrgetter": ByName(
        (), (), "attrgetter fetches the attributes it is given", "use a lambda: lambda o: o.name"
    ),
    "operator.methodcaller": ByName(
        (0,), (), "methodcaller calls the method it is given", "use a lambda: lambda o: o.method()"
    ),
    "pkgutil.resolve_name": ByName(
        (0,), ("name",), "resolve_name imports and fetches what a dotted name names",
        "import the module at the top of the file and name the function",
        imports=True,
    ),
    "pydoc.locate": ByName(
        (0,), ("path",), "locate imports and fetches what a dotted name names",
        "import the module at the top of the file and name the function",
        imports=True,
    ),
    "sympy.utilities.source.get_class": ByName(
        (0,), ("lookup_view",), "get_class imports and fetches what a dotted name names",
        "import the module at the top of the file and name the class",
        imports=True,
    ),
    "logging.Formatter": ByName(
        (0,), ("fmt",), "a '{'-style format fetches the attributes its fields name",
        FORMAT_INSTEAD,
    ),
}  # fmt: skip
# str methods whose receiver is a format string: its fields fetch attributes and items of the
# arguments (``("{0." + text + "}").format(sympy)``). The receiver must be a literal.
FORMAT_METHODS = frozenset({"format", "format_map"})
FORMAT_REASON = "a format string fetches the attributes and items its fields name"


def attribute_instead(attribute: str) -> str:
    """What to write instead of ``.attribute``."""
    if attribute in EVALUATOR_ATTRIBUTES:
        return _SYMPIFY_INSTEAD
    if attribute == "lambdify":
        return _LAMBDIFY_INSTEAD
    if attribute == "read_array":
        return _NUMPY_LOAD_INSTEAD
    return _ATTRIBUTE_INSTEAD


def refused(name: str) -> Danger | None:
    """The entry of ``name`` (itself or a dotted prefix of it) in :data:`REFUSED`, if any."""
    for prefix, danger in REFUSED.items():
        if name == prefix or name.startswith(prefix + "."):
            return danger
    if name.startswith("builtins."):
        return REFUSED["builtins"]
    if name.partition(".")[0] == "numpy" and name.rpartition(".")[2] in {"load", "read_array"}:
        return REFUSED["numpy.load"]
    return None


def literal_only(name: str) -> Danger | None:
    """The entry of ``name`` in :data:`LITERAL_ONLY` (any ``sympy.*.sympify`` too), if any."""
    found = LITERAL_ONLY.get(name)
    if found is None and name.partition(".")[0] == "sympy":
        if name.rpartition(".")[2] in EVALUATOR_ATTRIBUTES:
            return LITERAL_ONLY["sympy.sympify"]
    return found


# The entry points where text becomes code while a verdict runs (issue 25, section 1): what the
# run-time guard watches (a string reaching them must be a programmer's literal), listed here
# so that the guard, the check and the docs name the same set.
TEXT_TO_CODE: Mapping[str, str] = {
    "builtins.compile": "compiles text",
    "builtins.exec": "runs text",
    "builtins.eval": "evaluates text",
    "sympy.sympify": "evaluates a str with eval after transforming it",
    "sympy.S": "is sympify",
    "sympy.parsing.sympy_parser.parse_expr": "evaluates text with eval",
    "sympy.lambdify": "builds source text and execs it",
    "pickle.Unpickler.find_class": "imports and calls what the data names",
    "marshal.loads": "builds code objects",
}
