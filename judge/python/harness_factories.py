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
_unparse = ast.unparse  # bound now too (ast is also on the parser's path, checked first)
_generate_tokens = tokenize.generate_tokens
_ONLY_AST = ast.PyCF_ONLY_AST  # the value, read now: ast's module attribute can be rebound


def _tree(text: str) -> ast.Module:
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
    _capture_entry_sites()


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
    for node in ast.walk(_tree(text)):
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
    tree = _tree(text)
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
    tree = _tree(text)
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
        if ast.dump(_tree(expected)) == ast.dump(tree):
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


# --- what an admitted entry (harness_admission) compiles itself ---
#
# An admitted entry admits the compile of its own work, not every compile below it: code of
# the verifier's can run inside the entry before its compile (a key's ``__eq__`` in
# ``locals``, a transformation appended to a list, ``staticmethod(partial(exec, text))``
# called from C with a library frame as the caller, a frame's token list edited), and each
# of those made the entry compile the solution's text (tests/redteam/attacks/rule_entry_*).
# So the parser's compile must be built from the admitted literal (its names, numbers and
# strings) and the parser's own words; lambdify's compile must be the object its own
# compile sites hold.

_PARSER_WORDS: set[str] = set()
_PARSE_SITE: dict[str, types.CodeType] = {}
_LAMBDIFY_SITES: dict[int, tuple[types.CodeType, tuple[str, ...]]] = {}
_AST_TYPES: set[type] = set()
_KEPT_KEYWORDS = frozenset({"True", "False", "None"})


def _words(value: object, out: set[str]) -> None:
    """The identifiers among the string constants of ``value`` (code, or a class's tables)."""
    if type(value) is str:
        if value.isidentifier():
            out.add(value)
    elif type(value) in (tuple, list, frozenset, set):
        for item in value:  # type: ignore[attr-defined]
            _words(item, out)
    elif type(value) is dict:
        for item in value.values():
            _words(item, out)
    elif type(value) is types.CodeType:
        for item in value.co_consts:
            _words(item, out)
    elif type(value) is types.FunctionType:
        _words(value.__code__, out)


def _capture_entry_sites() -> None:
    import importlib

    parser = importlib.import_module("sympy.parsing.sympy_parser")
    lambdify = importlib.import_module("sympy.utilities.lambdify")
    words: set[str] = set()
    for value in vars(parser).values():
        if type(value) is types.FunctionType and value.__module__ == parser.__name__:
            _words(value, words)
        elif isinstance(value, type) and value.__module__ == parser.__name__:
            for item in vars(value).values():
                _words(item, words)
    # The names sympy's parser writes (Symbol, Integer, Add, evaluate...), never a builtin
    # (eval, max) or a keyword, which only the admitted literal itself may name.
    _PARSER_WORDS.update(
        word
        for word in words
        if word in _KEPT_KEYWORDS
        or not (keyword.iskeyword(word) or hasattr(builtins, word) or word.startswith("__"))
    )
    parse_expr = getattr(parser.parse_expr, "__wrapped__", parser.parse_expr)
    _PARSE_SITE["parse_expr"] = parse_expr.__code__
    original = getattr(lambdify.lambdify, "__wrapped__", lambdify.lambdify)
    for code, names in (
        (original.__code__, ("funcstr", "ln")),
        (lambdify._import.__code__, ("import_command",)),
    ):
        _LAMBDIFY_SITES[id(code)] = (code, names)
    _AST_TYPES.update(
        value
        for value in vars(ast).values()
        if isinstance(value, type) and issubclass(value, ast.AST)
    )


_SKIPPED_TOKENS = frozenset(
    {tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
)


def _tokens(text: str) -> list[tuple[int, str]]:
    with library.checking_now():
        return [(t.type, t.string) for t in _generate_tokens(io.StringIO(text).readline)]


# (admitted literal, compiled text) pairs found built from it: exact strs, and the parser's
# words are fixed once captured, so a pair's answer never changes (a literal in a loop).
_PARSED: dict[tuple[str, str], bool] = {}


def parser_output(admitted: str, code: str) -> bool:
    """``code`` is what sympy's parser builds from the admitted literal: every name is one of
    the literal's names (or a part of one: ``split_symbols``) or a word of the parser's own,
    every number one of the literal's (or a part), every string one of the literal's or a
    quoted name or number of it (``Symbol('x')``, ``Float('1.5')``); operators as they come."""
    key = (admitted, code)
    if type(admitted) is not str or type(code) is not str:
        return False
    found = _PARSED.get(key)
    if found is None:
        if len(_PARSED) > 4096:
            _PARSED.clear()
        found = _PARSED[key] = _built_from(admitted, code)
    return found


def _built_from(admitted: str, code: str) -> bool:
    try:
        given = _tokens(admitted)
        built = _tokens(code)
    except (tokenize.TokenError, SyntaxError):
        return False
    names = [text for kind, text in given if kind == tokenize.NAME]
    numbers = [text for kind, text in given if kind == tokenize.NUMBER]
    strings = {text for kind, text in given if kind == tokenize.STRING}
    pieces = names + numbers
    for kind, text in built:
        if kind == tokenize.OP or kind in _SKIPPED_TOKENS:
            continue
        if kind == tokenize.NAME:
            ok = text in _PARSER_WORDS or any(text in name for name in names)
        elif kind == tokenize.NUMBER:
            ok = text == "1" or any(text in number for number in numbers)
        elif kind == tokenize.STRING:
            ok = text in strings or (
                len(text) >= 2
                and text[0] == text[-1]
                and text[0] in "'\""
                and "\\" not in text
                and any(text[1:-1] in piece for piece in pieces)
            )
        else:
            ok = False
        if not ok:
            return False
    return True


_TREE_VALUES = frozenset({str, int, float, complex, bool, type(None), bytes})


def parser_tree(caller: types.FrameType, tree: object) -> str | None:
    """The text of the tree that ``parse_expr`` compiles (``evaluate=False``: the tree
    ``evaluateFalse`` builds), or None when the compile is not that site's or the tree holds
    anything but ast's own node types and plain values (the guard reads it as text)."""
    if _PARSE_SITE.get("parse_expr") is not caller.f_code:
        return None
    pending: list[object] = [tree]
    seen = 0
    while pending:
        node = pending.pop()
        seen += 1
        if seen > 100_000 or type(node) not in _AST_TYPES:
            return None
        for value in vars(node).values():
            for item in value if type(value) is list else (value,):
                if type(item) in _AST_TYPES:
                    pending.append(item)
                elif type(item) not in _TREE_VALUES:
                    return None
    return _unparse(tree)  # type: ignore[arg-type]


def lambdify_site(caller: types.FrameType, source: object) -> bool:
    """The compile is lambdify's own: at one of its compile sites (its generated function,
    a printer's import line, a module's import command), of the text that site holds
    (``exec`` of a str hands the compile its UTF-8 bytes)."""
    found = _LAMBDIFY_SITES.get(id(caller.f_code))
    if found is None or found[0] is not caller.f_code:
        return False
    if type(source) is bytes:
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError:
            return False
    if type(source) is not str:
        return False
    local = caller.f_locals
    return any(type(local.get(name)) is str and local.get(name) == source for name in found[1])


def import_statements(text: str) -> bool:
    """Import statements of module names only (``from numpy import *``), what a library
    module's body compiles while it is imported (scipy's ``clone_module``); any other text
    there is checked as anywhere else. A library import used to admit every compile below
    it, and a C callable of the verifier's (a ``sys.modules`` key's ``__eq__``) called by the
    import system compiled the solution's text as the module's own
    (tests/redteam/attacks/rule_import_key_eq_calls_exec_from_c)."""
    try:
        tree = _tree(text)
    except (SyntaxError, ValueError, TypeError):
        return False
    for statement in tree.body:
        if type(statement) is ast.ImportFrom:
            if statement.level != 0:
                return False
        elif type(statement) is not ast.Import:
            return False
        for alias in statement.names:
            if type(alias) is not ast.alias or alias.asname is not None:
                return False
    return bool(tree.body)
