"""Part (b) of the run-time rule (``harness_guard``): the library code that may turn text it
generated itself into code, each with the check that the text is what it generates.

Standard library only, bound read-only at /judge/harness_factories.py beside the harness.

A factory is the code object of a library function, captured in the zygote before any
verifier runs (``capture``), never a file or function name: ``compile(text,
dataclasses.__file__)`` makes code that is named like dataclasses' and is not it. Every factory
has a check of its own, and a compile in a factory is admitted only when that check passes:
there is no factory that admits whatever text it is given.
"""

import ast
import builtins
import io
import keyword
import re
import tokenize
import types
from collections.abc import Callable

try:  # imported as part of the judge package (tests, mypy)
    from judge.python import harness_library as library
except ImportError:  # inside the sandbox: beside harness_library.py
    import harness_library as library  # type: ignore[no-redef]

_compile = builtins.compile  # bound now: a verifier may rebind the builtin
_ONLY_AST = ast.PyCF_ONLY_AST  # the value, read now: ast's module attribute can be rebound


def tree_of(text: str) -> ast.Module:
    """The syntax tree of a factory's text, parsed by the guard itself (its own compile to a
    tree is not a verifier's)."""
    with library.checking_now():
        tree = _compile(text, "<factory>", "exec", _ONLY_AST, dont_inherit=True)
    if type(tree) is not ast.Module:
        raise TypeError("not a tree")
    return tree


# A check reads the factory's frame (what it was called with) and the text it compiles.
Check = Callable[[types.FrameType, str], bool]
_FACTORIES: dict[int, tuple[types.CodeType, Check, str]] = {}
_NUMBER_FORMULA_CALLERS: dict[int, types.CodeType] = {}


def _nested(code: types.CodeType, name: str) -> types.CodeType:
    for const in code.co_consts:
        if type(const) is types.CodeType:
            if const.co_name == name:
                return const
            try:
                return _nested(const, name)
            except LookupError:
                pass
    raise LookupError(name)


def capture() -> None:
    """The zygote, after ``harness_admission.install_text_entries``: the factories' code
    objects and the checks that go with them. Imports the factories' modules itself."""
    import collections
    import dataclasses
    import importlib

    from scipy.stats import _distn_infrastructure
    from sympy.polys.monomials import MonomialOps

    simplify = importlib.import_module("sympy.simplify.simplify")  # the name is a function too

    wrapper = dataclasses._process_class  # type: ignore[attr-defined]
    _DATACLASS["wrapper"] = wrapper.__code__
    _DATACLASS["process_class"] = wrapper.__wrapped__.__code__
    for value in (*vars(dataclasses).values(), wrapper.__wrapped__):
        if type(value) is types.FunctionType and value.__module__ == "dataclasses":
            library.collect(value.__code__, _DATACLASS_CODE)
    # Each with its check and the path whose namespaces must hold (harness_namespaces).
    entries: list[tuple[types.CodeType, Check, str]] = [
        (dataclasses._create_fn.__code__, _dataclass_text, "dataclasses"),  # type: ignore[attr-defined]
        (collections.namedtuple.__code__, _namedtuple_text, "namedtuple"),
        (ast.parse.__code__, _makes_a_tree, "ast.parse"),
        (MonomialOps._build.__code__, lambda frame, text: _monomial_code(text), "monomials"),
        (
            _distn_infrastructure.rv_generic._attach_argparser_methods.__code__,
            lambda frame, text: _scipy_argparser_code(text),
            "scipy argparser",
        ),
    ]
    for code, check, path in entries:
        _FACTORIES[id(code)] = (code, check, path)
    formula = _nested(simplify.nsimplify.__code__, "nsimplify_real")
    _NUMBER_FORMULA_CALLERS[id(formula)] = formula


def factory_check(frame: types.FrameType) -> tuple[Check, str] | None:
    """The check of the factory whose code ``frame`` runs and the path it runs through, or
    None when it is no factory."""
    found = _FACTORIES.get(id(frame.f_code))
    return (found[1], found[2]) if found is not None and found[0] is frame.f_code else None


def number_formula_caller(frame: types.FrameType) -> bool:
    """``frame`` is the call site of sympify whose text is a formula that ``mpmath.identify``
    built from numbers and names (``nsimplify``)."""
    return _NUMBER_FORMULA_CALLERS.get(id(frame.f_code)) is frame.f_code


def _makes_a_tree(frame: types.FrameType, text: str) -> bool:
    """ast.parse compiles to a tree (the guard refuses to compile a tree), unless the flag it
    passes was switched off (``ast.PyCF_ONLY_AST = 0`` makes it return code)."""
    flags = frame.f_locals.get("flags")
    return type(flags) is int and flags & _ONLY_AST == _ONLY_AST


_NAMEDTUPLE = re.compile(
    r"lambda _cls, ((?:(?:[^\W\d]\w*, )*[^\W\d]\w*,?)?): _tuple_new\(_cls, \(\1\)\)"
)


def _namedtuple_text(frame: types.FrameType, text: str) -> bool:
    """namedtuple's ``__new__``: exactly the lambda it writes for its (identifier) fields."""
    return _NAMEDTUPLE.fullmatch(text) is not None


# --- dataclasses: reached from _process_class through the guard's wrapper only ---

_DATACLASS: dict[str, types.CodeType] = {}
_DATACLASS_CODE: dict[int, types.CodeType] = {}


def _vetted_names(frame: types.FrameType) -> frozenset[str] | None:
    """The field names the guard's dataclass wrapper vetted, when ``frame`` (``_create_fn``)
    was called by dataclasses' own code from ``_process_class``, called by that wrapper."""
    outer = frame.f_back
    while outer is not None and _DATACLASS_CODE.get(id(outer.f_code)) is outer.f_code:
        if outer.f_code is _DATACLASS["process_class"]:
            wrapper = outer.f_back
            if wrapper is None or wrapper.f_code is not _DATACLASS["wrapper"]:
                return None
            names = wrapper.f_locals.get("vetted")
            return names if type(names) is frozenset else None
        outer = outer.f_back
    return None


# What dataclasses' _create_fn is given by _init_fn, _repr_fn, _frozen_get_del_attr, _cmp_fn
# and _hash_fn (Python 3.11): methods of self/other reading the fields, no other code.
_DATACLASS_NODES = (
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Name, ast.Load,
    ast.Store, ast.Assign, ast.Attribute, ast.Call, ast.Expr, ast.If, ast.IfExp, ast.Compare,
    ast.Is, ast.Eq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.BoolOp, ast.Or, ast.Raise,
    ast.JoinedStr, ast.FormattedValue, ast.Constant, ast.Tuple, ast.BinOp, ast.Add, ast.Pass,
)  # fmt: skip
_DATACLASS_NAMES = frozenset(
    {"__create_fn__", "self", "__dataclass_self__", "other", "name", "value", "cls",
     "FrozenInstanceError", "MISSING", "_HAS_DEFAULT_FACTORY", "__dataclass_builtins_object__",
     "_return_type", "type", "super", "hash", "NotImplemented", "__init__", "__repr__",
     "__eq__", "__lt__", "__le__", "__gt__", "__ge__", "__setattr__", "__delattr__",
     "__hash__", "__class__", "__qualname__", "__post_init__"}
)  # fmt: skip
_DATACLASS_MESSAGES = frozenset({"cannot assign to field ", "cannot delete field "})


def _repr_piece(text: str, fields: frozenset[str]) -> bool:
    """A piece of ``__repr__``'s f-string: ``(x=``, ``, y=``, ``)`` or ``()``."""
    for opening in ("(", ", "):
        if text.startswith(opening):
            text = text[len(opening) :]
            break
    text = text.removesuffix(")")
    return text == "" or (text.endswith("=") and text[:-1] in fields)


def _dataclass_text(frame: types.FrameType, text: str) -> bool:
    fields = _vetted_names(frame)
    if fields is None:
        return False
    names = _DATACLASS_NAMES | fields | {f"{p}{n}" for n in fields for p in ("_type_", "_dflt_")}
    for node in ast.walk(tree_of(text)):
        kind = type(node)
        if kind not in _DATACLASS_NODES:
            return False
        if kind is ast.Constant:
            value = node.value  # type: ignore[attr-defined]
            if not (type(value) is str and (value in fields or value in _DATACLASS_MESSAGES
                                            or _repr_piece(value, fields))):  # fmt: skip
                return False
        elif kind is ast.FormattedValue and (node.conversion not in (-1, 114) or node.format_spec):  # type: ignore[attr-defined]
            return False
        elif kind is ast.FunctionDef and node.decorator_list:  # type: ignore[attr-defined]
            return False
        name = (
            getattr(node, "id", None) or getattr(node, "arg", None) or getattr(node, "attr", None)
        )
        if kind is ast.FunctionDef:
            name = node.name  # type: ignore[attr-defined]
        if kind in (ast.Name, ast.arg, ast.Attribute, ast.FunctionDef) and name not in names:
            return False
    return True


_MONOMIAL_NAME = re.compile(r"[abr][0-9]+|A|B|k")
_SHAPE_NAME = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")


# What sympy's MonomialOps generates (mul, pow, mulpow, ldiv, div, lcm, gcd): unpacking,
# arithmetic, comparisons and returns of its own variables; no call, attribute or import.
_MONOMIAL_NODES = (
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Assign, ast.Tuple, ast.Name,
    ast.Load, ast.Store, ast.Return, ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.If,
    ast.Compare, ast.Lt, ast.GtE, ast.LtE, ast.IfExp, ast.Constant,
)  # fmt: skip


def _monomial_code(text: str) -> bool:
    tree = tree_of(text)
    for node in ast.walk(tree):
        if type(node) not in _MONOMIAL_NODES:
            return False
        if isinstance(node, ast.Constant) and not (node.value is None or type(node.value) is int):
            return False
        if isinstance(node, ast.Name) and _MONOMIAL_NAME.fullmatch(node.id) is None:
            return False
        if isinstance(node, ast.FunctionDef) and (
            node.decorator_list or node.returns or not node.name.startswith("monomial_")
        ):
            return False
        if isinstance(node, ast.arguments) and (node.defaults or node.kw_defaults):
            return False
        if isinstance(node, ast.arg) and node.annotation is not None:
            return False
    return True


# scipy.stats' parse_arg_template (_distn_infrastructure.py), with the two locscale pairs of
# rv_continuous and rv_discrete/rv_sample: the text must be exactly this for its shapes.
_SCIPY_ARGPARSER = """
def _parse_args(self, %(shape_arg_str)s %(locscale_in)s):
    return (%(shape_arg_str)s), %(locscale_out)s

def _parse_args_rvs(self, %(shape_arg_str)s %(locscale_in)s, size=None):
    return self._argcheck_rvs(%(shape_arg_str)s %(locscale_out)s, size=size)

def _parse_args_stats(self, %(shape_arg_str)s %(locscale_in)s, moments='mv'):
    return (%(shape_arg_str)s), %(locscale_out)s, moments
"""
_SCIPY_LOCSCALE = (("loc=0, scale=1", "loc, scale", 2), ("loc=0", "loc, 1", 1))


def _scipy_argparser_code(text: str) -> bool:
    tree = tree_of(text)
    first = tree.body[0] if tree.body else None
    if not isinstance(first, ast.FunctionDef):
        return False
    names = [arg.arg for arg in first.args.args]
    for locscale_in, locscale_out, count in _SCIPY_LOCSCALE:
        shapes = names[1:-count]
        if not all(_SHAPE_NAME.fullmatch(n) for n in shapes):
            return False
        shape_arg_str = ", ".join(shapes) + ", " if shapes else ""
        expected = _SCIPY_ARGPARSER % {
            "shape_arg_str": shape_arg_str,
            "locscale_in": locscale_in,
            "locscale_out": locscale_out,
        }
        if ast.dump(tree_of(expected)) == ast.dump(tree):
            return True
    return False


_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def plain_name(name: object) -> bool:
    """An identifier that names nothing built in: what sympy prints verbatim into code."""
    return (
        type(name) is str
        and _PLAIN_NAME.fullmatch(name) is not None
        and "__" not in name
        and not keyword.iskeyword(name)
        and not hasattr(builtins, name)
    )


_FORMULA_OPERATORS = frozenset({"+", "-", "*", "/", "**", "(", ")"})
# The names of mpmath.identify's formulas: its functions (sqrt, log, exp) and the str() of
# sympy's own real constants, which nsimplify passes as its constants' names. Any other name
# is refused: a constant's str() is its own code (``_sympystr``), and a call of any other
# name (``prime(100000)``) runs whatever sympify resolves it to.
_FORMULA_NAMES = frozenset(
    {"sqrt", "log", "exp", "pi", "E", "EulerGamma", "Catalan", "GoldenRatio",
     "TribonacciConstant"}
)  # fmt: skip


def numbers_and_names(text: str) -> bool:
    """Numbers, arithmetic and the names of ``_FORMULA_NAMES`` only (``mpmath.identify``'s
    formulas)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    for token in tokens:
        if token.type in (tokenize.NUMBER, tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
            continue
        if token.type == tokenize.OP and token.string in _FORMULA_OPERATORS:
            continue
        if token.type == tokenize.NAME and token.string in _FORMULA_NAMES:
            continue
        return False
    return True
