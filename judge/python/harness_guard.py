"""The run-time guard of the in-sandbox harness: no text becomes code unless a programmer wrote it.

Standard library only, bound read-only at /judge/harness_guard.py beside the harness.

While a verdict's ``verify`` runs (the guard is *armed*), text may become code -- ``compile``,
``exec``, ``eval``, sympy's ``sympify``/``parse_expr``/``S()`` of a ``str``, ``lambdify``,
pickle's ``find_class``, ``marshal.loads``, ``CodeType(...)`` -- only when:

(a) the text equals a constant (``co_consts``, nested code objects included) of a code object
    on the current call stack or of the verifier module: the verifier's own literals, one it
    hands to a library (``Poly("x**2 + 1", x)``), or a library's own literal (``S("1/2")``);
(b) the compile comes from a short list of library factories that build code from identifiers
    and numbers (``FACTORIES``; ``nsimplify``'s formula from ``mpmath.identify`` is checked to
    be numbers and plain names only; ``lambdify`` only of objects whose every name is a plain
    identifier); or
(c) it is ``formalmarket_verify.parse_math``, which compiles nothing (``ast.parse`` builds a
    tree; compiling a tree is refused).

This is positive: whatever path the solution's text took through the verifier (a list in a
list, an exception's args, a ``dict.get`` default...), it is not a constant of any code, so it
never becomes code. sympy's entry points are wrapped (``install_text_entries``) so that the
ORIGINAL string is checked, before sympy transforms it; the audit hook then admits exactly the
compiles the admitted entry itself performs (``_admitted_call`` on the stack with no code
compiled at run time between: what the admitted text runs is checked on its own) and refuses
the rest. Arming is one way, and while armed what could mint a constant on the stack or reach
the guard (gc's walkers, other threads' frames, code objects, ctypes) is refused. Every
refusal is also recorded (``refusal()``): the harness turns a verdict that saw one into
RUNTIME_ERROR even if the verifier caught the exception. An exception inside the guard is a
refusal, never a pass.
"""

import builtins
import codecs
import io
import keyword
import os
import re
import sys
import tokenize
import types
from collections.abc import Callable, Iterator

SITE = "/judge/site"
VERIFIER_FILENAME = "<verifier>"


class InjectionBlocked(RuntimeError):
    pass


ImportCheck = Callable[[str], bool]
Hook = Callable[[str, tuple[object, ...]], None]

_state: dict[str, object] = {"armed": False, "refused": None}
# How each admitted text was admitted (the honest-code sweep reports these counts).
admissions: dict[str, int] = {}


def _admitted(why: str) -> None:
    admissions[why] = admissions.get(why, 0) + 1


_verifier_consts: list[frozenset[object]] = [frozenset()]


def arm(verifier_code: types.CodeType | None = None) -> None:
    """From now on text becomes code only by the rule above; ``verifier_code`` is the module's.
    A refusal recorded before (the verifier's module level) stays recorded.

    One way: once armed for a verdict, nothing disarms it (the child exits armed), and a
    second ``arm`` (new verifier constants) is refused."""
    if _state["armed"]:
        raise _refuse("the judge's guard is armed once per verdict")
    if verifier_code is not None:
        _verifier_consts[0] = _consts_of(verifier_code)
    _state["armed"] = True


def reset() -> None:
    """The zygote, before it forks: no refusal recorded (children start from this state).
    Refused once armed."""
    if _state["armed"]:
        raise _refuse("the judge's guard cannot be reset while a verdict runs")
    _state["refused"] = None


def refusal() -> str | None:
    """The first refusal of this verdict, if any (the verifier may have caught it)."""
    refused = _state["refused"]
    return refused if isinstance(refused, str) else None


def _refuse(message: str) -> InjectionBlocked:
    if _state["refused"] is None:
        _state["refused"] = message
    return InjectionBlocked(message)


# --- (a) the constants of the code on the stack ---

_CONSTS: dict[types.CodeType, frozenset[object]] = {}


def _collect(value: object, out: set[object]) -> None:
    kind = type(value)
    if kind is str or kind is bytes:
        out.add(value)
    elif kind is tuple or kind is frozenset:
        for item in value:  # type: ignore[attr-defined]
            _collect(item, out)
    elif kind is types.CodeType:
        for item in value.co_consts:  # type: ignore[attr-defined]
            _collect(item, out)


def _consts_of(code: types.CodeType) -> frozenset[object]:
    found = _CONSTS.get(code)
    if found is None:
        out: set[object] = set()
        _collect(code, out)
        found = _CONSTS[code] = frozenset(out)
    return found


def _frames(frame: types.FrameType | None) -> Iterator[types.FrameType]:
    while frame is not None:
        yield frame
        frame = frame.f_back


def _outside_guard() -> types.FrameType | None:
    """The first frame that is not this module's (no literal depths)."""
    for frame in _frames(sys._getframe()):
        if frame.f_code.co_filename != __file__:
            return frame
    return None


def written_by_a_programmer(text: object) -> bool:
    """``text`` (exactly a str or bytes) is a constant of the verifier or of code on the stack."""
    if type(text) is not str and type(text) is not bytes:
        return False
    if text in _verifier_consts[0]:
        return True
    # From this very frame: the guard's own constants are programmers' text too (honest_calls).
    return any(text in _consts_of(f.f_code) for f in _frames(sys._getframe()))


# --- (b) factories ---

_STDLIB = os.path.dirname(os.__file__) + "/"
# (file, function) of the library code that may compile text it generated itself. Measured
# over the honest-code sweep (docs/python-judge.md); nothing else in the libraries needs one.
FACTORIES: frozenset[tuple[str, str]] = frozenset(
    {
        (_STDLIB + "dataclasses.py", "_create_fn"),
        (_STDLIB + "collections/__init__.py", "namedtuple"),
        (_STDLIB + "ast.py", "parse"),  # a tree only: compiling a tree is refused below
    }
)
_IMPORT_CALL = "_call_with_frames_removed"
# Site-relative (the libraries live at /judge/site in the sandbox, in the venv on the host).
SITE_FACTORIES: frozenset[tuple[str, str]] = frozenset(
    {
        ("sympy/polys/monomials.py", "_build"),
        ("scipy/stats/_distn_infrastructure.py", "_attach_argparser_methods"),
    }
)
# The call sites of sympify whose text is a formula a library built from numbers and names.
NUMBER_FORMULA_CALLERS: frozenset[tuple[str, str]] = frozenset(
    {("sympy/simplify/simplify.py", "nsimplify_real")}
)


def _site_relative(filename: str) -> str | None:
    for root in sys.path:
        if root.endswith(("site-packages", SITE)) and filename.startswith(root + "/"):
            return filename[len(root) + 1 :]
    return None


def _genuine_import(frame: types.FrameType) -> bool:
    """The import system's own file loaders read the source, at a library path: not a loader
    of the verifier's (a SourceLoader subclass whose get_data returns the solution)."""
    import importlib.machinery

    genuine = (importlib.machinery.SourceFileLoader, importlib.machinery.SourcelessFileLoader)
    for f in _frames(frame):
        if f.f_code.co_name in ("get_code", "exec_module") and f.f_code.co_filename.startswith(
            "<frozen importlib"
        ):
            loader = f.f_locals.get("self")
            path = getattr(loader, "path", None)
            return (
                type(loader) in genuine
                and isinstance(path, str)
                and (path.startswith(_STDLIB) or _site_relative(path) is not None)
            )
    return False


def _is_factory(frame: types.FrameType) -> bool:
    code = frame.f_code
    if (code.co_filename, code.co_name) in FACTORIES:
        return True
    if (code.co_filename, code.co_name) == ("<frozen importlib._bootstrap>", _IMPORT_CALL):
        # source_to_code compiles a module's source through this helper
        outer = frame.f_back
        return (
            outer is not None
            and outer.f_code.co_name == "source_to_code"
            and _genuine_import(outer)
        )
    relative = _site_relative(code.co_filename)
    return relative is not None and (relative, code.co_name) in SITE_FACTORIES


def plain_name(name: object) -> bool:
    """An identifier that names nothing built in: what sympy prints verbatim into code."""
    return (
        type(name) is str
        and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) is not None
        and "__" not in name
        and not keyword.iskeyword(name)
        and not hasattr(builtins, name)
    )


_FORMULA_OPERATORS = frozenset({"+", "-", "*", "/", "**", "(", ")"})


def numbers_and_names(text: str) -> bool:
    """Numbers, arithmetic and plain names only (``mpmath.identify``'s formulas)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    for token in tokens:
        if token.type in (tokenize.NUMBER, tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
            continue
        if token.type == tokenize.OP and token.string in _FORMULA_OPERATORS:
            continue
        if token.type == tokenize.NAME and plain_name(token.string):
            continue
        return False
    return True


# --- the entry points: the original string is checked before sympy transforms it ---


def _admitted_call(
    function: Callable[..., object],
    args: tuple[object, ...],
    kwargs: dict[str, object],
    admitted_text: str | None = None,
) -> object:
    """The compiles this entry itself performs, below this frame, are admitted: not those of
    code the admitted text runs (see ``_admitting_entry``). ``admitted_text`` is read from
    this frame by a nested entry that sees the same text (sympify hands it to parse_expr)."""
    return function(*args, **kwargs)


_ADMITTED_CODE = _admitted_call.__code__


def _exact(text: str) -> str:
    # A str subclass could answer `in` and `replace` its own way: check and parse a real str.
    return text if type(text) is str else str.__getitem__(text, slice(None))


def _admit_text(entry: str, text: str, caller: types.FrameType | None) -> None:
    admitting = _admitting_entry(caller)
    if admitting is not None and admitting.f_locals.get("admitted_text") == text:
        return  # the same text, handed on by the admitted entry (sympify -> parse_expr)
    if written_by_a_programmer(text):
        return _admitted(f"{entry}: a literal")
    if caller is not None:
        relative = _site_relative(caller.f_code.co_filename)
        if (relative, caller.f_code.co_name) in NUMBER_FORMULA_CALLERS and numbers_and_names(text):
            return _admitted(f"{entry}: numbers and names from {caller.f_code.co_name}")
    raise _refuse(
        f"refused to {entry} text that is not a literal of the verifier's code "
        "(a solution is parsed with formalmarket_verify.parse_math)"
    )


def text_entry(function: Callable[..., object], entry: str) -> Callable[..., object]:
    """Wrap sympify/parse_expr: a ``str`` argument must be written by a programmer."""

    def checked(a: object, *args: object, **kwargs: object) -> object:
        if isinstance(a, str) and _state["armed"]:
            positional = args[2] if entry == "sympify" and len(args) > 2 else False
            strict = kwargs.get("strict", positional)
            if not strict:  # sympify(strict=True) refuses every str itself, compiling nothing
                text = _exact(a)
                try:
                    _admit_text(entry, text, _outside_guard())
                except InjectionBlocked:
                    raise
                except BaseException:  # noqa: BLE001 -- fail closed
                    raise _refuse(f"the judge's guard could not check {entry}") from None
                return _admitted_call(function, (text, *args), kwargs, text)
        return function(a, *args, **kwargs)

    checked.__wrapped__ = function  # type: ignore[attr-defined]
    checked.__name__ = getattr(function, "__name__", entry)
    checked.__doc__ = getattr(function, "__doc__", None)
    return checked


# The sympy packages whose node types lambdify prints from their names, numbers and operators
# only (whose names are checked below). Every other node type is refused: how a node is printed
# is its own code (``sympy.codegen.ast.String`` prints its text verbatim, ``FunctionCall`` a
# name it holds as text), and so is that of a class the verifier defines.
PRINTED_PACKAGES = tuple(
    f"sympy.{package}."
    for package in (
        "core", "functions", "matrices", "logic", "sets", "polys", "concrete", "integrals",
        "series", "tensor", "ntheory", "simplify", "calculus",
    )
)  # fmt: skip


def _printed_from_names(node: object) -> bool:
    from sympy.core.function import AppliedUndef, UndefinedFunction

    if isinstance(node, AppliedUndef | UndefinedFunction):
        return True  # Function("f")(x): its name is checked as a plain name
    module = getattr(type(node), "__module__", None)
    return isinstance(module, str) and module.startswith(PRINTED_PACKAGES)


def _vet_lambdify(value: object, caller: types.FrameType | None, depth: int = 0) -> None:
    """What lambdify prints verbatim into code: every name must be a plain identifier."""
    import numpy
    import sympy
    from sympy.core.function import AppliedUndef, UndefinedFunction
    from sympy.matrices import MatrixBase

    if depth > 50:
        raise _refuse("refused to lambdify an object nested this deeply")
    if isinstance(value, str):
        if not (plain_name(value) or written_by_a_programmer(_exact(value))):
            raise _refuse("refused to lambdify text that is not a literal of the verifier's code")
    elif value is None or isinstance(value, bool | int | float | complex | numpy.number):
        return
    elif isinstance(value, sympy.Basic):
        for node in sympy.preorder_traversal(value):
            if not _printed_from_names(node):
                raise _refuse(
                    f"refused to lambdify a {type(node).__name__}: only sympy's own "
                    "expressions are printed into code"
                )
            names: list[object] = []
            if isinstance(node, sympy.Symbol | sympy.core.symbol.Str):
                names.append(node.name)
            if isinstance(node, AppliedUndef) or isinstance(node, UndefinedFunction):
                names.append(getattr(node, "name", None) or type(node).__name__)
            for name in names:
                if not plain_name(name):
                    raise _refuse("refused to lambdify a name that is not a plain identifier")
    elif isinstance(value, MatrixBase):
        for item in value:
            _vet_lambdify(item, caller, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _vet_lambdify(item, caller, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            _vet_lambdify(key, caller, depth + 1)
            _vet_lambdify(item, caller, depth + 1)
    elif isinstance(value, types.ModuleType) or callable(value):
        return  # modules=/namespace entries: objects, not text
    elif isinstance(value, numpy.ndarray) and value.dtype.kind in "biufc":
        return
    else:
        raise _refuse(f"refused to lambdify a {type(value).__name__} (it is printed into code)")


def lambdify_entry(function: Callable[..., object]) -> Callable[..., object]:
    def checked(*args: object, **kwargs: object) -> object:
        if _state["armed"]:
            caller = _outside_guard()
            try:
                for value in (*args, *kwargs.values()):
                    _vet_lambdify(value, caller)
            except InjectionBlocked:
                raise
            except BaseException:  # noqa: BLE001 -- fail closed
                raise _refuse("the judge's guard could not check lambdify") from None
            _admitted("lambdify: plain names")
            return _admitted_call(function, args, kwargs)
        return function(*args, **kwargs)

    checked.__wrapped__ = function  # type: ignore[attr-defined]
    checked.__name__ = getattr(function, "__name__", "lambdify")
    checked.__doc__ = getattr(function, "__doc__", None)
    return checked


def bmat_entry(function: Callable[..., object]) -> Callable[..., object]:
    """``numpy.bmat("A,B; C,D")`` looks the names of its text up in its caller's namespace:
    a solution's text would pick any value of the verifier by name. Text only when a
    programmer wrote it; the caller's frame is the one that called this wrapper."""

    def checked(obj: object, ldict: object = None, gdict: object = None) -> object:
        if isinstance(obj, str):
            text = _exact(obj)
            if _state["armed"] and not written_by_a_programmer(text):
                raise _refuse(
                    "refused to look up the names of text that is not a literal of the "
                    "verifier's code (numpy.bmat of a str): pass the blocks as a list"
                )
            if gdict is None:  # what numpy.bmat does, one frame further out
                caller = _outside_guard()
                if caller is None:
                    raise _refuse("the judge's guard could not find bmat's caller")
                ldict, gdict = caller.f_locals, caller.f_globals
            return function(text, ldict, gdict)
        return function(obj, ldict, gdict)

    checked.__wrapped__ = function  # type: ignore[attr-defined]
    checked.__name__ = getattr(function, "__name__", "bmat")
    checked.__doc__ = getattr(function, "__doc__", None)
    return checked


def dataclass_entry(function: Callable[..., object]) -> Callable[..., object]:
    """dataclasses' factory prints each field name into the source it compiles; ``dataclass``
    of a class whose annotations are keyed by text (``type("C", (), {"__annotations__":
    {text: int}})``) would print that text as code. Field names must be identifiers, as
    ``make_dataclass`` already requires: then the factory builds code from names only."""

    def checked(cls: type, *args: object, **kwargs: object) -> object:
        annotations = cls.__dict__.get("__annotations__", {})
        if isinstance(annotations, dict):
            for name in annotations:
                if not (type(name) is str and name.isidentifier() and not keyword.iskeyword(name)):
                    raise _refuse("refused a dataclass field name that is not an identifier")
        return function(cls, *args, **kwargs)

    checked.__wrapped__ = function  # type: ignore[attr-defined]
    checked.__name__ = getattr(function, "__name__", "_process_class")
    return checked


def install_text_entries() -> None:
    """Replace sympify, parse_expr, lambdify and numpy.bmat everywhere they were imported
    (the zygote)."""
    import importlib

    from sympy.core.singleton import SingletonRegistry

    sympify_module = importlib.import_module("sympy.core.sympify")
    sympy_parser = importlib.import_module("sympy.parsing.sympy_parser")
    lambdify_module = importlib.import_module("sympy.utilities.lambdify")
    defmatrix = importlib.import_module("numpy.matrixlib.defmatrix")

    sympify = text_entry(sympify_module.sympify, "sympify")
    replacements: dict[int, object] = {
        id(sympify_module.sympify): sympify,
        id(sympy_parser.parse_expr): text_entry(sympy_parser.parse_expr, "parse_expr"),
        id(lambdify_module.lambdify): lambdify_entry(lambdify_module.lambdify),
        id(defmatrix.bmat): bmat_entry(defmatrix.bmat),
    }
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for name, value in list(namespace.items()):
            replacement = replacements.get(id(value))
            if replacement is not None:
                namespace[name] = replacement
    SingletonRegistry.__call__ = staticmethod(sympify)
    import dataclasses

    dataclasses._process_class = dataclass_entry(dataclasses._process_class)  # type: ignore[attr-defined]


# --- the audit hook ---


def source_text(source: object) -> str:
    """The text compile() will see. A ``# coding: utf-7`` payload hid its words from a UTF-8
    reading: bytes must be strict UTF-8 and declare no other coding, or they are refused."""
    if isinstance(source, str):
        return _exact(source)
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except Exception:  # noqa: BLE001 -- fail closed
            raise InjectionBlocked("compile of source the guard cannot decode") from None
        if codecs.lookup(encoding).name not in ("utf-8", "utf-8-sig"):
            raise InjectionBlocked(f"compile of source declaring coding {encoding!r}")
        if data.startswith(codecs.BOM_UTF8):
            data = data[len(codecs.BOM_UTF8) :]
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise InjectionBlocked("compile of source that is not UTF-8") from None
    raise InjectionBlocked("compile of a syntax tree")


def _compiled_at_run_time(code: types.CodeType) -> bool:
    """Code that text became while the process ran (``<string>`` of eval/exec, lambdify's
    ``<lambdifygenerated-1>``), the verifier's included: not a file's."""
    name = code.co_filename
    return name.startswith("<") and not name.startswith("<frozen ")


def _admitting_entry(frame: types.FrameType | None) -> types.FrameType | None:
    """The admitted entry (its ``_admitted_call`` frame) whose own work ``frame`` is part of.

    None when code compiled at run time lies between: the admitted text is running, and what
    it calls (``sympify("Matrix(rows)", locals={"rows": rows})`` sympifies each str of
    ``rows``) is checked on its own, or the admitted literal would carry any text with it.
    """
    for f in _frames(frame):
        code = f.f_code
        if code is _ADMITTED_CODE:
            return f
        if _compiled_at_run_time(code):
            return None
    return None


def _below_admitted_entry(frame: types.FrameType | None) -> bool:
    if _admitting_entry(frame) is not None:
        return True
    for f in _frames(frame):
        code = f.f_code
        if code.co_name == "exec_module" and code.co_filename.startswith("<frozen importlib"):
            # a library module's body runs: its own tables, no verdict data
            return _genuine_import(f)
        if _compiled_at_run_time(code):
            return False  # the verifier's code, or code made at run time: (a) or (b) decide
    return False


def _check_compile(source: object) -> None:
    caller = _outside_guard()
    if _below_admitted_entry(caller):
        return
    if caller is not None and _is_factory(caller):
        return _admitted(f"compile: factory {caller.f_code.co_name}")
    raw = bytes(source) if isinstance(source, bytearray | memoryview) else source
    if written_by_a_programmer(raw) or written_by_a_programmer(source_text(source)):
        return _admitted("compile: a literal")
    raise _refuse(
        "refused to compile text that is not a literal of the verifier's code "
        "(a solution is parsed with formalmarket_verify.parse_math)"
    )


def _importing_a_library() -> bool:
    """A library module's body runs, loaded by the import system's own file loader (with no
    code made at run time between it and the guard)."""
    for f in _frames(_outside_guard()):
        code = f.f_code
        if code.co_name == "exec_module" and code.co_filename.startswith("<frozen importlib"):
            return _genuine_import(f)
        if _compiled_at_run_time(code):
            return False
    return False


# Unpickling builds arbitrary objects, whoever calls it (numpy.load too). Exact (module, name)
# pairs only: a dotted name (protocol 4) walks attributes from the module, and a module prefix
# admits every submodule.
PICKLE_ALLOWED: frozenset[tuple[str, str]] = frozenset(
    {
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy.core.multiarray", "scalar"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "scalar"),
    }
)
# A trace or profile function sees every frame, the harness's after verify returned too.
_TRACE_EVENTS = frozenset({"sys.settrace", "sys.setprofile"})
# While armed, refused outside a library's import: what reaches every object or frame (gc's
# walkers, other threads' frames), what makes code objects (``CodeType()``, ``code.replace``,
# a function's ``__code__`` assigned) and foreign calls (every ``ctypes.*`` event). None of
# them is needed by honest verifiers or by the libraries' calls in the sweep
# (docs/python-judge.md); each could mint a "constant on the stack" or reach the guard.
_ARMED_REFUSED_EVENTS = frozenset(
    {"gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames",
     "code.__new__"}
)  # fmt: skip
_CTYPES_EVENTS = "ctypes."
_SETATTR_EVENT = "object.__setattr__"


def _event(event: str, args: tuple[object, ...]) -> None:
    if event in _TRACE_EVENTS:
        raise InjectionBlocked(f"{event} is not allowed in a verifier")
    if event == "marshal.loads" or event == "marshal.load":
        caller = _outside_guard()
        if caller is None or not _genuine_import(caller):
            raise _refuse("marshal.loads is not allowed in a verifier")
    elif event == "pickle.find_class":
        pair = (args[0], args[1])
        if not all(type(part) is str for part in pair) or pair not in PICKLE_ALLOWED:
            raise _refuse(f"unpickling {args[0]!s:.80}.{args[1]!s:.80} is not allowed")
    elif event == "os.system":
        raise InjectionBlocked("os.system is not allowed in a verifier")
    elif _state["armed"]:
        if event == "compile":
            _check_compile(args[0])
        elif event == _SETATTR_EVENT:
            if len(args) > 1 and args[1] == "__code__" and not _importing_a_library():
                raise _refuse("assigning a function's __code__ is not allowed in a verifier")
        elif not _importing_a_library():  # _ARMED_REFUSED_EVENTS, ctypes.*
            raise _refuse(f"{event} is not allowed in a verifier")


_HANDLED = frozenset(
    {"compile", "marshal.loads", "marshal.load", "pickle.find_class", "os.system"}
    | {_SETATTR_EVENT}
    | _TRACE_EVENTS
    | _ARMED_REFUSED_EVENTS
)


def make_audit_hook(import_allowed: ImportCheck) -> Hook:
    """The audit hook: the import allowlist always, the provenance rule while armed."""

    def _audit(event: str, args: tuple[object, ...]) -> None:
        if event == "import":
            name = args[0]
            if isinstance(name, str) and not import_allowed(name):
                # Exactly what a missing module raises: libraries that probe for optional
                # dependencies with `except ModuleNotFoundError` keep working.
                raise ModuleNotFoundError(
                    f"import of {name!r} is not allowed in a verifier", name=name
                )
            return
        if event not in _HANDLED and not event.startswith(_CTYPES_EVENTS):
            return
        try:
            _event(event, args)
        except InjectionBlocked:
            raise
        except BaseException:  # noqa: BLE001 -- the guard failed: refuse, never pass
            raise _refuse(f"the judge's guard could not check {event}") from None

    return _audit


def refuse_thread_tracing() -> None:
    """threading.settrace/setprofile store a function every new thread installs: refuse them
    (a thread started anyway calls sys.settrace, which the audit hook refuses)."""
    import threading

    def _refused(*args: object, **kwargs: object) -> None:
        raise InjectionBlocked("threading.settrace/setprofile are not allowed in a verifier")

    for name in ("settrace", "setprofile", "settrace_all_threads", "setprofile_all_threads"):
        if hasattr(threading, name):
            setattr(threading, name, _refused)


# --- what honest code needs: the sweep measured under the rule, and the zygote's warm-up ---


def honest_calls() -> list[tuple[str, Callable[[], object]]]:
    """Common library calls of honest verifiers (docs/python-judge.md lists what the rule did
    with them). The zygote runs them once before it forks, so that a verdict's first call of
    any of them finds its lazy imports and caches warm."""
    import collections
    import dataclasses

    import mpmath
    import numpy
    import scipy.integrate
    import scipy.optimize
    import scipy.stats
    import sympy

    x, y, t = sympy.symbols("x y t")
    f = sympy.Function("f")

    @dataclasses.dataclass(frozen=True)
    class Pair:
        left: int
        right: int

    return [
        ("sympify of a literal", lambda: sympy.sympify("x**2 + 2*x + 1")),
        ("S of a literal", lambda: sympy.S("1/3")),
        ("Poly of a literal", lambda: sympy.Poly("x**2 + 1", x)),
        ("factor", lambda: sympy.factor(x**4 - 5 * x**2 + 4)),
        ("factorint", lambda: sympy.factorint(391)),
        ("solve", lambda: sympy.solve(x**2 - 2, x)),
        ("integrate", lambda: sympy.integrate(sympy.sin(t) ** 2, (t, 0, sympy.pi))),
        ("simplify", lambda: sympy.simplify(sympy.sin(x) ** 2 + sympy.cos(x) ** 2)),
        ("nsimplify", lambda: sympy.nsimplify(1.4142135623730951)),
        ("nsimplify with constants", lambda: sympy.nsimplify(6.283185307179586, [sympy.pi])),
        ("dsolve", lambda: sympy.dsolve(f(x).diff(x) - f(x), f(x))),
        ("diophantine", lambda: sympy.diophantine(x**2 - 2 * y**2 - 1)),
        ("groebner", lambda: sympy.groebner([x**2 + y, x * y - 1], x, y)),
        ("Poly roots", lambda: sympy.Poly(x**3 - 6 * x**2 + 11 * x - 6, x).all_roots()),
        ("Matrix inverse", lambda: sympy.Matrix([[2, 1], [1, 1]]).inv()),
        ("limit", lambda: sympy.limit(sympy.sin(x) / x, x, 0)),
        ("series", lambda: sympy.series(sympy.exp(x), x, 0, 5)),
        ("minimal_polynomial", lambda: sympy.minimal_polynomial(sympy.sqrt(2) + 1, x)),
        ("lambdify numpy", lambda: sympy.lambdify(x, x**2 + 1, "numpy")(numpy.arange(3.0))),
        ("lambdify math", lambda: sympy.lambdify((x, y), sympy.sin(x) * y, "math")(0.5, 2.0)),
        ("scipy quad", lambda: scipy.integrate.quad(numpy.sin, 0, numpy.pi)),
        ("scipy brentq", lambda: scipy.optimize.brentq(lambda v: v**2 - 2, 0, 2)),
        ("scipy linprog", lambda: scipy.optimize.linprog([1, 1], A_ub=[[-1, -1]], b_ub=[-1])),
        ("scipy solve_ivp", lambda: scipy.integrate.solve_ivp(lambda s, v: -v, (0, 1), [1.0])),
        ("scipy stats norm", lambda: scipy.stats.norm(0, 1).cdf(0.5)),
        ("scipy stats binom", lambda: scipy.stats.binom.pmf(3, 10, 0.5)),
        ("mpmath quad", lambda: mpmath.quad(mpmath.sin, [0, mpmath.pi])),
        ("mpmath findroot", lambda: mpmath.findroot(lambda v: v**2 - 2, 1.5)),
        ("namedtuple", lambda: collections.namedtuple("Point", "a b")),
        ("dataclass", lambda: Pair(1, 2)),
    ]


def warm() -> None:
    """Run the honest calls once (the zygote, unarmed, before it forks)."""
    for _name, call in honest_calls():
        call()
