"""The run-time guard of the in-sandbox harness: no text becomes code unless a programmer wrote it.

Standard library only, bound read-only at /judge/harness_guard.py beside the harness.

While a verdict's ``verify`` runs (the guard is *armed*), text may become code -- ``compile``,
``exec``, ``eval``, sympy's ``sympify``/``parse_expr``/``S()`` of a ``str``, ``lambdify``,
pickle's ``find_class``, ``marshal.loads``, ``CodeType(...)`` -- only when:

(a) the text equals a constant (``co_consts``, nested code objects included) of a code object
    on the current call stack or of the verifier module: the verifier's own literals, one it
    hands to a library (``Poly("x**2 + 1", x)``), or a library's own literal (``S("1/2")``);
(b) the compile comes from a short list of library factories that build code from identifiers
    and numbers, each a code object captured in the zygote (never a file name) with a check
    of the text it compiles; a factory without a check admits nothing (``harness_factories``;
    ``nsimplify``'s formula from ``mpmath.identify`` is checked to be numbers and plain names
    only; ``lambdify`` only of objects whose every name is a plain identifier); or
(c) it is ``formalmarket_verify.parse_math``, which compiles nothing (``ast.parse`` builds a
    tree; compiling a tree is refused).

This is positive: whatever path the solution's text took through the verifier (a list in a list,
an exception's args, a ``dict.get`` default...), it is not a constant of any code, so it never
becomes code. sympy's entry points are wrapped (``harness_admission.install_text_entries``) so
that the ORIGINAL string is checked, before sympy transforms it; the audit hook then admits
exactly the compiles the admitted entry itself performs (``_admitted_call`` on the stack with
only library code between: what the admitted text runs is checked on its own) and refuses the
rest. The stack is walked, never counted: outwards from the first frame that is not the
guard's, through library code only (``harness_library.library_frames``: code objects captured
in the zygote, or a module body equal to its library file's code; never a file name).
Arming is one way, and while armed what could mint a constant on the stack or reach the guard
(gc's walkers, other threads' frames, code objects, ctypes) is refused. Every refusal is also
recorded (``refusal()``): the harness turns a verdict that saw one into RUNTIME_ERROR even if
the verifier caught the exception. An exception inside the guard is a refusal, never a pass.
"""

import ast
import codecs
import io
import sys
import tokenize
import types
from collections.abc import Callable

try:  # imported as part of the judge package (tests, mypy)
    from judge.python import (
        harness_entries,
        harness_factories,
        harness_library,
        harness_namespaces,
    )
except ImportError:  # inside the sandbox: beside harness_factories.py and harness_library.py
    import harness_entries  # type: ignore[no-redef]
    import harness_factories  # type: ignore[no-redef]
    import harness_library  # type: ignore[no-redef]
    import harness_namespaces  # type: ignore[no-redef]

VERIFIER_FILENAME = "<verifier>"


class InjectionBlocked(RuntimeError):
    pass


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
    capture()  # done in the zygote already; here for an interpreter that arms directly (tests)
    if verifier_code is not None:
        _verifier_consts[0] = _consts_of(verifier_code)
    _state["armed"] = True


def capture() -> None:
    """The zygote, before it forks and before any verifier: which code is library code, the
    factories and the import system's functions, by identity (``harness_library``), and the
    namespaces each admission runs through (``harness_namespaces``). Once."""
    if not harness_library.captured():
        harness_factories.capture()
        harness_entries.capture()
        harness_namespaces.capture()
        harness_library.capture()


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


def _outside_guard() -> types.FrameType | None:
    """The first frame whose code is not the guard's (by identity; no literal depths)."""
    for frame in harness_library.frames(sys._getframe()):
        if not harness_library.guard_code(frame.f_code):
            return frame
    return None


def written_by_a_programmer(text: object) -> bool:
    """``text`` (exactly a str or bytes) is a constant of the verifier or of code on the stack."""
    if type(text) is not str and type(text) is not bytes:
        return False
    if text in _verifier_consts[0]:
        return True
    # From this very frame: the guard's own constants are programmers' text too (honest_calls).
    return any(text in _consts_of(f.f_code) for f in harness_library.frames(sys._getframe()))


# --- what the entry points (harness_admission.py) run their admitted call under ---


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


def _admitting_entry(frame: types.FrameType | None) -> types.FrameType | None:
    """The admitted entry (its ``_admitted_call`` frame) whose own work ``frame`` is part of.

    None when code compiled at run time lies between: the admitted text is running, and what
    it calls (``sympify("Matrix(rows)", locals={"rows": rows})`` sympifies each str of
    ``rows``) is checked on its own, or the admitted literal would carry any text with it.
    """
    for f in harness_library.library_frames(frame):
        if f.f_code is _ADMITTED_CODE:
            return f
    return None


def _factory_admits(check: harness_factories.Check, frame: types.FrameType, source: object) -> bool:
    try:
        return check(frame, source_text(source))
    except Exception:  # noqa: BLE001 -- fail closed
        return False


def _literal(source: object) -> bool:
    raw = bytes(source) if isinstance(source, bytearray | memoryview) else source
    return written_by_a_programmer(raw) or written_by_a_programmer(source_text(source))


def _path_holds(path: str | None, what: str) -> None:
    """An admission holds only while the library code on its path is the zygote's: a module
    global or class attribute rebound there decides what the admitted call compiles."""
    changed = "its library function" if path is None else harness_namespaces.changed(path)
    if changed is not None:
        raise _refuse(
            f"refused to compile under {what}: {changed} is not the library's own "
            "(rebound while the verdict ran)"
        )


def _entry_compiles(
    path: str | None, admitting: types.FrameType, caller: types.FrameType, source: object
) -> bool:
    """The compile is the admitted entry's own work: for the parser, text built from the
    admitted literal and the parser's own words (a tree read as text, once ast's node classes
    are checked to be the zygote's); for lambdify, the object one of its compile sites holds."""
    if path == "parser":
        admitted = admitting.f_locals.get("admitted_text")
        if type(admitted) is not str:
            return False
        if type(source) is str or type(source) is bytes:
            text: str | None = source_text(source)
        elif issubclass(type(source), ast.AST):
            _path_holds("tree", "a syntax tree")
            text = harness_entries.parser_tree(caller, source)
        else:
            return False
        return text is not None and harness_entries.parser_output(admitted, text)
    if path == "lambdify":
        return harness_entries.lambdify_site(caller, source)
    return False


def _check_compile(source: object) -> None:
    caller = _outside_guard()
    # An admitted entry's own compile, or a library module's body while it is imported; the
    # verifier's code and code made at run time are decided by (a) or (b).
    admitting = _admitting_entry(caller)
    if admitting is not None:
        if isinstance(source, str | bytes) and _literal(source):
            return  # a programmer's text: (a) admits it whatever the path (parse_expr's own)
        function = admitting.f_locals.get("function")
        path = harness_namespaces.entry_path(function)
        _path_holds(path, "an admitted entry")
        if caller is not None and _entry_compiles(path, admitting, caller, source):
            return None
        # Not the entry's own work (code of the verifier's ran inside it): judged as any other.
    if harness_library.importing_a_library(caller) and harness_entries.import_statements(
        source_text(source)
    ):
        return _admitted("compile: imports in a library module's body")
    if caller is not None and harness_library.module_source_admitted(caller, source):
        return _admitted("compile: a library module's source")
    factory = None if caller is None else harness_factories.factory_check(caller)
    if caller is not None and factory is not None:
        check, path = factory
        _path_holds(path, f"the factory {caller.f_code.co_name}")
        if not _factory_admits(check, caller, source):
            raise _refuse(
                f"refused to compile text in {caller.f_code.co_name} that is not the code "
                "its library generates"
            )
        return _admitted(f"compile: factory {caller.f_code.co_name}")
    if _literal(source):
        return _admitted("compile: a literal")
    raise _refuse(
        "refused to compile text that is not a literal of the verifier's code "
        "(a solution is parsed with formalmarket_verify.parse_math)"
    )
