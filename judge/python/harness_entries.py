"""What an admitted entry (``harness_admission``: sympify/parse_expr of a literal, lambdify,
a library import) may compile itself: part of the run-time rule (``harness_guard``), split
from ``harness_factories`` by topic (a factory generates its text; an entry compiles text it
was given).

Standard library only, bound read-only at /judge/harness_entries.py beside the harness.
"""

import ast
import builtins
import io
import keyword
import tokenize
import types

try:  # imported as part of the judge package (tests, mypy)
    from judge.python import harness_library as library
    from judge.python.harness_factories import tree_of
except ImportError:  # inside the sandbox: beside harness_library.py and harness_factories.py
    import harness_library as library  # type: ignore[no-redef]
    from harness_factories import tree_of  # type: ignore[no-redef]

_unparse = ast.unparse  # bound now: a verifier may rebind ast's attributes
_generate_tokens = tokenize.generate_tokens

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


def capture() -> None:
    """Capture the entry sites and the parser's words, in the zygote before any verifier."""
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
        tree = tree_of(text)
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
