"""The reviewed lists of the publishing check: what a value derived from the solution may meet.

Everything not listed here is refused when it receives such a value. Adding a name to these
lists is a security decision: the operation must run no code chosen by its argument (no
``eval``, no ``sympify``, no unpickling, no call of a method of the argument other than the
builtin types' own) and must return either a builtin data value or a clean one.
"""

from __future__ import annotations

import builtins

from judge.python import vocabulary

# --- sanitisers: the result carries nothing of the solution but plain numbers/booleans ---
SANITISERS = frozenset(
    {"int", "float", "complex", "bool", "len", "ord", "hash", "isinstance", "issubclass",
     "callable", "id", "fractions.Fraction", "decimal.Decimal",
     # mpmath's number parser (libmpf.from_str: digits, exponent, inf/nan; no eval, no sympy).
     # Its result's dunders convert numbers only: a str on the other side is NotImplemented.
     "mpmath.mpf"}
)  # fmt: skip
# Not type(): type(x) runs no code of x, but it is x's class, and the class of the verifier's
# own instance carries its class attributes (``Memo.last = text``, then ``type(memo).last``).
# type(x) with one argument is allowed on the solution's data; its result is tainted when an
# own class holds the solution (taint.py). type(name, bases, namespace) builds a class from
# its arguments and stays refused.
CLASS_OF = "type"


# Builtins that always return a builtin value, whatever their arguments. Not ``type``: the
# class of a library object is a library class, whose methods take the instance explicitly
# (``type(poly).add(poly, solution)`` sympified the solution); it is plain of a plain value.
ALWAYS_PLAIN = SANITISERS | {"str", "repr", "ascii", "chr", "format", "any", "all"}


def is_sanitiser(name: str | None) -> bool:
    """Whether a call of ``name`` returns nothing of its arguments but plain numbers or
    booleans."""
    return name in SANITISERS


# The verifier library's parsers: their result is a sympy object the library built itself from
# a validated syntax tree. Only the text (first argument) may come from the solution.
LIBRARY_PARSERS = frozenset(
    {"formalmarket_verify.parse_math", "formalmarket_verify.parse.parse_math"}
)

# --- pure propagators: the result is still tainted (builtin data), no code of the argument runs ---
PROPAGATORS = frozenset(
    {"str", "repr", "ascii", "format", "list", "tuple", "dict", "set", "frozenset", "sorted",
     "reversed", "enumerate", "zip", "range", "min", "max", "sum", "any", "all", "abs", "round",
     "divmod", "pow", "iter", "next", "chr", "bytes", "bytearray", "slice", "map",
     "filter",
     "re.match", "re.fullmatch", "re.search", "re.findall", "re.finditer", "re.split", "re.sub",
     "re.subn", "re.compile", "re.escape",
     "json.loads", "json.dumps",
     "ast.parse", "ast.literal_eval", "ast.walk", "ast.iter_child_nodes", "ast.iter_fields",
     "ast.dump",
     "unicodedata.normalize", "unicodedata.category", "unicodedata.numeric",
     "unicodedata.digit", "unicodedata.decimal",
     "collections.Counter", "itertools.permutations", "itertools.combinations",
     "itertools.product", "itertools.chain", "itertools.islice", "itertools.pairwise",
     # csv.reader(io.StringIO(text)): a buffer of the text, rows of str read from it.
     "io.StringIO", "csv.reader",
     # Reorder or hand out the elements they are given, comparing them with `<` (no push:
     # a push stores into the heap, which a propagator does not follow).
     "heapq.heapify", "heapq.heappop", "heapq.nsmallest", "heapq.nlargest"}
)  # fmt: skip
# Arguments of propagators that are functions called with the tainted data: they must be a
# lambda or a function of the verifier (analysed with tainted parameters) or a listed builtin.
CALLABLE_ARGUMENTS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "map": ((0,), ()),
    "filter": ((0,), ()),
    "sorted": ((), ("key",)),
    "min": ((), ("key",)),
    "max": ((), ("key",)),
    "re.sub": ((1,), ("repl",)),
    "re.subn": ((1,), ("repl",)),
    "sort": ((), ("key",)),  # list.sort
    "heapq.nsmallest": ((), ("key",)),
    "heapq.nlargest": ((), ("key",)),
}
SAFE_CALLABLE_VALUES = frozenset(
    {"int", "float", "str", "len", "abs", "bool", "repr", "ord", "chr", "tuple", "list",
     "sorted", "sum", "min", "max", "fractions.Fraction", "decimal.Decimal"}
)  # fmt: skip

# Methods of str/bytes, list, dict, set, Counter, re.Match and the numeric types: on a tainted
# receiver, or on a plain one (a literal, a list the verifier built) given tainted arguments.
BUILTIN_METHODS = frozenset(
    {"capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find",
     "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier",
     "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust",
     "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind",
     "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith",
     "strip", "swapcase", "title", "translate", "upper", "zfill", "decode", "hex", "format",
     "format_map",
     "append", "extend", "insert", "pop", "remove", "reverse", "sort", "copy", "clear", "keys",
     "values", "items", "get", "setdefault", "update", "popitem", "add", "discard", "union",
     "intersection", "difference", "symmetric_difference", "issubset", "issuperset",
     "isdisjoint",
     "group", "groups", "groupdict", "start", "end", "span", "expand",
     "is_integer", "bit_length", "as_integer_ratio", "conjugate",
     "most_common", "elements", "total"}
)  # fmt: skip
# These store their arguments in the receiver (which then holds the solution) and call nothing.
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})
# Methods of a compiled regular expression (a name bound to re.compile(...)).
PATTERN_METHODS = frozenset(
    {"match", "fullmatch", "search", "findall", "finditer", "split", "sub", "subn"}
)

# Calls whose result holds text of an exception, which may be the solution's.
TAINT_SOURCES = frozenset(
    {"sys.exc_info", "sys.exception", "warnings.catch_warnings", "traceback.format_exc",
     "traceback.format_exception",
     "traceback.format_exception_only", "traceback.extract_tb", "traceback.TracebackException"}
)  # fmt: skip

# Of those, the calls whose result is (or holds) the exception object itself: whatever was
# raised, a library object too. Their values are foreign, not the solution's data.
FOREIGN_SOURCES = frozenset(
    {"sys.exc_info", "sys.exception", "traceback.extract_tb", "traceback.TracebackException",
     "warnings.catch_warnings"}
)  # fmt: skip

# Decorators that leave the function as written (so calls to it can be followed).
TRANSPARENT_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "functools.cache", "functools.lru_cache"}
)
CLASS_DECORATORS = frozenset({"dataclasses.dataclass"})

BUILTIN_NAMES = frozenset(dir(builtins))
EXCEPTION_CLASSES = frozenset(
    name
    for name in BUILTIN_NAMES
    if isinstance(getattr(builtins, name), type)
    and issubclass(getattr(builtins, name), BaseException)
)
# Constants of stdlib modules that are plain numbers (re flags, math constants).
PLAIN_MODULE_ATTRIBUTES = frozenset(
    {
        "math.pi",
        "math.e",
        "math.tau",
        "math.inf",
        "math.nan",
        "sys.maxsize",
        "string.digits",
        "string.ascii_letters",
        "string.ascii_lowercase",
        "string.ascii_uppercase",
        "string.hexdigits",
        "string.punctuation",
        "string.whitespace",
    }  # fmt: skip
)

# --- refused outright, or allowed only on literals: the one table in judge/python/vocabulary.py
REFUSED = vocabulary.REFUSED
LITERAL_ONLY = vocabulary.LITERAL_ONLY
REFUSED_ATTRIBUTES = vocabulary.REFUSED_ATTRIBUTES
BY_NAME = vocabulary.BY_NAME

ADVICE = (
    "parse the text first: int()/float()/fractions.Fraction() for numbers, re or str methods "
    "for structure, formalmarket_verify.parse_math() for expressions (its result is safe)"
)
# What each finding about the solution's data says; the full ADVICE follows once, at the end.
# A finding that ends with this pointer gets the full ADVICE once, as the report's last error.
SEE_BELOW = "see below)"
SHORT_ADVICE = f"instead, convert the text first (int(), Fraction(), parse_math(); {SEE_BELOW}"
# For a finding about the value the solution's data meets (not the data itself): often the
# author's own value, which the check could not type (a helper's or a library call's result).
OTHER_ADVICE = (
    "instead, make that value one the check can read (a literal, a display of literals, or "
    "str()/int()/float()/list() of it), or convert the text first (int(), Fraction(), "
    f"parse_math(); {SEE_BELOW}"
)
