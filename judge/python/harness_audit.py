"""The audit hook of the in-sandbox harness: the import allowlist always, and the events the
run-time rule (``harness_guard``) decides.

Standard library only, bound read-only at /judge/harness_audit.py beside the harness.

Every event is raised inside the verifier's process, the harness's and the libraries' own
included, so the hook returns at once for the events it never handles. Always: tracing and
profiling are refused (a trace function sees every frame, the harness's after ``verify``
returned), unpickling admits exact (module, name) pairs only, ``os.system`` is refused, a
module body or a ``marshal.loads`` after the zygote's capture must be its library file's own
code. While armed: ``compile`` is decided by the provenance rule (``harness_guard``), and what
could mint a constant on the stack or reach the guard (gc's walkers, other threads' frames,
code objects, ``ctypes``) is refused outside a library's import. An exception inside the hook
is a refusal, never a pass. This module's code is the guard's own (``harness_library``), so
its frames are skipped when the rule looks for the code that asked.
"""

import types
from collections.abc import Callable

try:  # imported as part of the judge package (tests, mypy)
    from judge.python import harness_library
    from judge.python.harness_guard import (
        InjectionBlocked,
        _check_compile,
        _outside_guard,
        _refuse,
        _state,
    )
except ImportError:  # inside the sandbox: beside harness_guard.py and harness_library.py
    import harness_library  # type: ignore[no-redef]
    from harness_guard import (  # type: ignore[no-redef]
        InjectionBlocked,
        _check_compile,
        _outside_guard,
        _refuse,
        _state,
    )

ImportCheck = Callable[[str], bool]
Hook = Callable[[str, tuple[object, ...]], None]

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
    if harness_library.checking():
        return  # the guard's own reading of a library file (register_module_body)
    if event in _CAPTURED_ONLY and not harness_library.captured():
        return  # the zygote's own imports, before capture: both checks below admit them
    if event == "marshal.loads" or event == "marshal.load":
        data = args[0] if args else None
        if not harness_library.bytecode_admitted(_outside_guard(), data):
            raise _refuse("marshal.loads is not allowed in a verifier")
    elif event == "exec":
        if not harness_library.register_module_body(_outside_guard(), args[0]):
            raise _refuse("refused to run a module body that is not its library file's code")
    elif event == "pickle.find_class":
        pair = (args[0], args[1])
        if not all(type(part) is str for part in pair) or pair not in PICKLE_ALLOWED:
            raise _refuse(f"unpickling {args[0]!s:.80}.{args[1]!s:.80} is not allowed")
    elif event == "os.system":
        raise InjectionBlocked("os.system is not allowed in a verifier")
    elif _state["armed"]:
        if event == "compile":
            _check_compile(args[0])
        elif event == _SETATTR_EVENT and not _makes_code(args):
            return  # another attribute: no code is made
        elif not harness_library.importing_a_library(_outside_guard()):
            # __code__ assigned, a library function's defaults, _ARMED_REFUSED_EVENTS, ctypes.*
            what = f"assigning a function's {args[1]}" if event == _SETATTR_EVENT else event
            raise _refuse(f"{what} is not allowed in a verifier")


def _makes_code(args: tuple[object, ...]) -> bool:
    """An ``object.__setattr__`` event that changes what code runs: any function's
    ``__code__``, or the defaults of a library function (``parse_expr.__defaults__`` holds the
    transformations it applies when none are given; the verifier's own defaults are its own)."""
    name = args[1] if len(args) > 1 else None
    if name == "__code__":
        return True
    target = args[0]
    return (
        name in ("__defaults__", "__kwdefaults__")
        and type(target) is types.FunctionType
        and harness_library.library_code(target.__code__)
    )


_HANDLED = frozenset(
    {"compile", "exec", "marshal.loads", "marshal.load", "pickle.find_class", "os.system"}
    | {_SETATTR_EVENT}
    | _TRACE_EVENTS
    | _ARMED_REFUSED_EVENTS
)
# bytecode_admitted and register_module_body admit everything until capture(): the zygote's
# preloads need not walk the stack for them (thousands of module bodies at every cold start).
_CAPTURED_ONLY = frozenset({"exec", "marshal.loads", "marshal.load"})
# The events raised most often (the guard's own frame walks raise them: every f_code, id()),
# none of them handled: one set lookup returns. Derived, so a handled event is never skipped.
_FREQUENT_UNHANDLED = frozenset({"builtins.id", "object.__getattr__", "sys._getframe"}) - _HANDLED


def make_audit_hook(import_allowed: ImportCheck) -> Hook:
    """The audit hook: the import allowlist always, the provenance rule while armed."""

    def _audit(event: str, args: tuple[object, ...]) -> None:
        if event in _FREQUENT_UNHANDLED:
            return
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
