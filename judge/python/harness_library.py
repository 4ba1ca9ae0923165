"""Which code on the stack is library code, for the run-time rule (``harness_guard``).

Standard library only, bound read-only at /judge/harness_library.py beside the harness.

A code object's file name is whatever its compiler was told (``compile(text,
dataclasses.__file__, "exec")``), so nothing here trusts a name. Library code is a set of code
objects, by identity: every function's code that exists in the zygote when ``capture`` runs,
before any verifier (with their nested code), except code compiled at run time there
(namedtuple's and dataclasses' ``<string>``, ``<lambdifygenerated-1>``); and, while a verdict
runs, the body of a library module the import system loads, admitted only when it is equal
to the code of the library file at the loader's path, read by the guard. The import system's
own functions, the guard's and the listed factories are recognised by identity too.

The stack is read outwards from the guard's caller only through library code
(``library_frames``): the first other frame ends the walk, because above it the verifier, or
text that became code, is running, and that is not a library's own work.
"""

import builtins
import contextlib
import importlib.machinery
import marshal
import os
import sys
import types
from collections.abc import Iterator
from io import open_code

SITE = "/judge/site"
STDLIB = os.path.dirname(os.__file__) + "/"
_compile = builtins.compile  # bound now: a verifier may rebind the builtin
_CACHE_TAG = sys.implementation.cache_tag
_SOURCE_LOADERS = (importlib.machinery.SourceFileLoader, importlib.machinery.SourcelessFileLoader)
_LOADER_STATE = frozenset({"name", "path"})  # what FileLoader.__init__ sets; nothing else

# id -> code object (the value keeps the id from being reused).
_LIBRARY: dict[int, types.CodeType] = {}
_GUARD: dict[int, types.CodeType] = {}
_state: dict[str, object] = {"captured": False, "checking": False}


def frames(frame: types.FrameType | None) -> Iterator[types.FrameType]:
    """``frame`` and every frame outwards of it."""
    while frame is not None:
        yield frame
        frame = frame.f_back


def collect(code: types.CodeType, into: dict[int, types.CodeType]) -> None:
    into[id(code)] = code
    for const in code.co_consts:
        if type(const) is types.CodeType:
            collect(const, into)


def _made_at_run_time(code: types.CodeType) -> bool:
    name = code.co_filename
    return name.startswith("<") and not name.startswith("<frozen ")


def captured() -> bool:
    return bool(_state["captured"])


def checking() -> bool:
    """The guard itself is reading a library file's code or parsing a factory's text (its
    events are its own)."""
    return bool(_state["checking"])


@contextlib.contextmanager
def checking_now() -> Iterator[None]:
    before = _state["checking"]
    _state["checking"] = True
    try:
        yield
    finally:
        _state["checking"] = before


def capture() -> None:
    """The zygote, after its imports and warm-up, before it forks (no verifier has run):
    every function's code that exists now is library code (but what was compiled at run time),
    and the guard's own modules' code is the guard's. Once only."""
    if _state["captured"]:
        return
    import gc

    for obj in gc.get_objects():
        if type(obj) is types.FunctionType and not _made_at_run_time(obj.__code__):
            collect(obj.__code__, _LIBRARY)
    _capture_guard()
    _ROOTS.extend(root for root in sys.path if root.endswith(("site-packages", SITE)))
    _state["captured"] = True


_GUARD_MODULES = (
    "harness_guard", "harness_audit", "harness_admission", "harness_lambdify", "harness_factories",
    "harness_library", "harness_namespaces",
)  # fmt: skip


def _capture_guard() -> None:
    for name, module in list(sys.modules.items()):
        if name.rpartition(".")[2] in _GUARD_MODULES and name.startswith(
            ("judge.python.", "harness")
        ):
            for value in vars(module).values():
                if type(value) is types.FunctionType and value.__module__ == module.__name__:
                    collect(value.__code__, _GUARD)


def guard_code(code: types.CodeType) -> bool:
    """The guard's own code (its modules' functions and their closures)."""
    if not _GUARD:
        _capture_guard()  # the zygote before capture(): no verifier has run yet
    return _GUARD.get(id(code)) is code


def library_code(code: types.CodeType) -> bool:
    return _LIBRARY.get(id(code)) is code


def library_frames(frame: types.FrameType | None) -> Iterator[types.FrameType]:
    """The frames from ``frame`` outwards while their code is library code: the one walk by
    which the guard asks what library code is doing."""
    for f in frames(frame):
        if not library_code(f.f_code):
            return
        yield f


# --- the import system, by identity ---

_bootstrap = sys.modules["_frozen_importlib"]
_external = sys.modules["_frozen_importlib_external"]
CALL_REMOVED = _bootstrap._call_with_frames_removed.__code__
EXEC_MODULE = _external._LoaderBasics.exec_module.__code__
SOURCE_TO_CODE = _external.SourceLoader.source_to_code.__code__
COMPILE_BYTECODE = _external._compile_bytecode.__code__
# Who calls exec_module when the import system imports (or reloads) a module.
_IMPORTERS = (_bootstrap._load_unlocked.__code__, _bootstrap._exec.__code__)


# The folders of the standard library and of the allowed libraries (read-only in the sandbox),
# read from sys.path by ``capture`` (a verifier may append to sys.path afterwards).
_ROOTS: list[str] = []


def library_path(path: object) -> bool:
    """A file of the standard library or of the allowed libraries."""
    if type(path) is not str or "/../" in path or "/./" in path:
        return False
    return path.startswith(STDLIB) or any(path.startswith(root + "/") for root in _ROOTS)


# A lazy import while armed asks for the same library file two or three times (the check of
# its bytes, then the code it must match); library files do not change under a verdict.
_FILES: dict[str, bytes] = {}


def _read(path: str) -> bytes:
    if path not in _FILES:
        with open_code(path) as file:
            _FILES[path] = file.read()
    return _FILES[path]


def module_source_admitted(caller: types.FrameType, source: object) -> bool:
    """importlib compiling a module's source (``source_to_code``): admitted when the bytes are
    those of the library file it names, whoever read them (a loader's ``get_data`` replaced on
    the instance or the class returns the solution's text)."""
    outer = caller.f_back
    if caller.f_code is not CALL_REMOVED or outer is None or outer.f_code is not SOURCE_TO_CODE:
        return False
    path = outer.f_locals.get("path")
    return type(source) is bytes and library_path(path) and source == _read(path)  # type: ignore[arg-type]


def bytecode_admitted(caller: types.FrameType | None, data: object) -> bool:
    """``marshal.loads`` by importlib's ``_compile_bytecode`` of exactly a library .pyc file's
    code (the zygote's own imports, before ``capture``, are its own)."""
    if not _state["captured"] or _state["checking"]:
        return True
    if caller is None or caller.f_code is not COMPILE_BYTECODE or type(data) is not bytes:
        return False
    path = caller.f_locals.get("bytecode_path")
    return library_path(path) and path.endswith(".pyc") and _read(path)[16:] == data  # type: ignore[union-attr,arg-type]


def _genuine_exec_module(frame: types.FrameType) -> bool:
    """``frame`` runs the import system's own file loader's exec_module, called by the import
    system itself, on a loader that carries nothing of its own, at a library path."""
    loader = frame.f_locals.get("self")
    outer = frame.f_back
    return (
        outer is not None
        and any(outer.f_code is importer for importer in _IMPORTERS)
        and type(loader) in _SOURCE_LOADERS
        and set(vars(loader)) <= _LOADER_STATE
        and library_path(getattr(loader, "path", None))
    )


def _library_code_of(path: str) -> Iterator[types.CodeType]:
    """The code of the library file at ``path``: from its .pyc, then from its source."""
    if path.endswith(".pyc"):
        with checking_now():
            yield marshal.loads(_read(path)[16:])  # noqa: S302 -- a library file, read-only
        return
    folder, name = os.path.split(path)
    cached = os.path.join(folder, "__pycache__", f"{name[:-3]}.{_CACHE_TAG}.pyc")
    if name.endswith(".py") and os.path.exists(cached):
        with checking_now():
            code = marshal.loads(_read(cached)[16:])  # noqa: S302 -- a library file
        yield code
    with checking_now():
        code = _compile(_read(path), path, "exec", dont_inherit=True)
    yield code


def register_module_body(caller: types.FrameType | None, code: object) -> bool:
    """The "exec" of a module's code by a genuine exec_module (``_call_with_frames_removed``):
    the code becomes library code if it equals the code of the library file the loader names.
    False when it does not (the guard refuses the exec)."""
    if not _state["captured"] or _state["checking"]:
        return True
    if caller is None or caller.f_code is not CALL_REMOVED:
        return True  # not a module body: eval/exec of code elsewhere is not admitted by this
    outer = caller.f_back
    if outer is None or outer.f_code is not EXEC_MODULE:
        return True
    if type(code) is not types.CodeType or not _genuine_exec_module(outer):
        return False
    path = outer.f_locals["self"].path
    if any(code == expected for expected in _library_code_of(path)):
        collect(code, _LIBRARY)
        return True
    return False


def importing_a_library(frame: types.FrameType | None) -> bool:
    """A library module's body runs at ``frame`` (lazy imports: its own tables, no verdict
    data): its code was admitted as that file's code, and the import system runs it."""
    for f in library_frames(frame):
        if f.f_code is EXEC_MODULE:
            return _genuine_exec_module(f)
    return False
