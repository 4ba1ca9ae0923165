"""The program that runs INSIDE the sandbox: a zygote that forks one child per verdict.

Standard library only: this file is bound read-only at /judge/harness.py and run by the
interpreter with ``-I -S`` and an empty environment; it cannot import the ``judge`` package.

Zygote (trusted code, no job data, no secrets):
  1. receives its configuration (seccomp program, caps) from the host on the control socket;
  2. pre-imports numpy, scipy, sympy, mpmath, installs the import allowlist (an audit hook,
     which cannot be removed), runs ``gc.freeze()``;
  3. keeps one verdict child forked ahead: it creates the child's pipes, forks, hands the
     host its ends (SCM_RIGHTS); when the host takes that child ("take") it forks the next
     one at once, while the taken child runs; it reaps children (pidfds) and reports each
     exit status and rusage.

Child (one per verdict), before it reads any job byte:
  new session, fds 0/1/2 = /dev/null / capped output pipe, job on fd 3, result on a high fd,
  every other fd closed; rlimits; not dumpable; seccomp. The host meanwhile has moved it into
  the job's cgroup. Then it reads the job, reseeds the global RNGs, loads the verifier, arms
  the injection guard, calls ``verify(solution, numpy.random.default_rng(seed))`` and writes
  exactly one frame on the result pipe, then ``os._exit(0)``.

Result frames (4-byte big-endian length + payload): ``A<token>`` accepted, the token being this
verdict's secret from the job, so a frame forged without it is caught; ``R<type name>`` verify
returned something that is not True; ``E<detail>`` exception or malformed verifier; ``M``
MemoryError. The host accepts only a single ``A<token>`` frame followed by exit status 0.
"""

import _thread
import array
import ast
import ctypes
import gc
import json
import os
import re
import resource
import select
import signal
import socket
import struct
import sys
import unicodedata
from collections.abc import Callable

CONTROL_FD = int(sys.argv[1]) if len(sys.argv) > 1 else 3
SITE = "/judge/site"
JOB_FD = 3
RESULT_FD = 1023  # a high number: "write to fds 3..20" style attacks miss it
CREDS_FD = 1022
PRELOAD = (
    "numpy",
    "numpy.linalg",
    "numpy.random",
    "scipy",
    "scipy.linalg",
    "scipy.optimize",
    "scipy.special",
    "scipy.integrate",
    "scipy.sparse",
    "sympy",
    "mpmath",
    "formalmarket_verify",
)
DETAIL_LIMIT = 300

# --- import allowlist (audit hook: survives sys.meta_path / sys.path / __import__ tampering) ---


def _load_import_allowed() -> Callable[[str], bool]:
    """judge/python/imports.py, the one definition of the allowlist (bound beside this file
    in the sandbox; loaded by path because this program cannot import the judge package)."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "imports.py")
    spec = importlib.util.spec_from_file_location("_judge_import_allowlist", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"the import allowlist {path} is missing")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    allowed: Callable[[str], bool] = module.import_allowed
    return allowed


_import_allowed = _load_import_allowed()


# --- injection guard (second layer, armed once the verifier module is loaded) ---
# The verifier itself can disarm it (it runs in this process); it exists to stop the first
# step of code smuggled in through the *solution*, which cannot name anything of this module
# without the words the guard refuses.

_armed = False
_STDLIB_PREFIX = os.path.dirname(os.__file__) + "/"
_FORBIDDEN_WORDS = re.compile(
    r"__|\b(?:eval|exec|compile|open|getattr|setattr|delattr|globals|locals|vars|breakpoint|"
    r"input|help|memoryview|import|exit|quit|sys|os|builtins|subprocess|ctypes|"
    r"gi_frame|gi_code|f_back|f_locals|f_globals|f_builtins|f_code|tb_frame|tb_next|cr_frame|"
    r"ag_frame|co_code|mro|subclasses|system|popen|spawn)\b"
)
_SAFE_IMPORT_LINE = re.compile(
    r"\s*(?:from\s+([\w.]+)\s+import\s+[\w\s,*]+|import\s+([\w.]+)(?:\s+as\s+\w+)?)\s*"
)
# Stdlib code generators whose compile() input is their own template, not the solution; and
# ast.parse, which only builds a tree (compiling a tree afterwards is refused below).
_CODEGEN_CALLERS = frozenset(
    _STDLIB_PREFIX + name
    for name in ("dataclasses.py", "collections/__init__.py", "typing.py", "enum.py", "ast.py")
)
# The allowed libraries generate code too (scipy.stats builds methods with exec, scipy's
# _bunch, sympy's monomials...): calls from their files are trusted, except from the modules
# that turn *text they are given* into code, whose input may be the solution.
_EVALUATOR_PARTS = (
    "/sympy/parsing/",
    "/sympy/core/sympify.py",
    "/sympy/utilities/lambdify.py",
    "/sympy/utilities/matchpy_connector.py",
    "/sympy/utilities/autowrap.py",
    "/sympy/plotting/",
    "/sympy/printing/",
    "/sympy/interactive/",
    "/sympy/testing/",
    "/numpy/f2py/",
    "/numpy/distutils/",
    "/numpy/testing/",
)


def _trusted_caller(caller: str) -> bool:
    if caller in _CODEGEN_CALLERS or caller.startswith("<frozen importlib"):
        return True
    return caller.startswith(SITE + "/") and not any(part in caller for part in _EVALUATOR_PARTS)


class InjectionBlocked(RuntimeError):
    pass


# Threads inside _caller_file: its own sys._getframe and f_code raise audit events, which the
# hook must let through instead of recursing.
_looking: set[int] = set()
_thread_id = _thread.get_ident


def _caller_file(depth: int) -> str:
    me = _thread_id()
    _looking.add(me)
    try:
        return sys._getframe(depth).f_code.co_filename
    except ValueError:
        return ""
    finally:
        _looking.discard(me)


def _runtime_code_on_stack(limit: int = 200) -> bool:
    me = _thread_id()
    _looking.add(me)  # f_code and sys._getframe raise audit events
    try:
        frame = sys._getframe(2)
        while frame is not None and limit > 0:
            if _compiled_at_run_time(frame.f_code.co_filename):
                return True
            frame, limit = frame.f_back, limit - 1  # type: ignore[assignment]
        return False
    finally:
        _looking.discard(me)


def _check_source(source: object) -> None:
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8", "replace")
        except Exception:  # noqa: BLE001
            raise InjectionBlocked("compile of undecodable source") from None
    if not isinstance(source, str):
        # An AST object: only the import system and our own safe parser produce those.
        raise InjectionBlocked("compile of an AST after the verifier was loaded")
    # The compiler NFKC-normalises identifiers: `x.\uff46_\uff42\uff41\uff43\uff4b` (fullwidth
    # letters) *is* `x.f_back`. Check what the compiler will see, not the raw text.
    source = unicodedata.normalize("NFKC", source)
    # Import-only snippets of allowed modules (lambdify's namespace set-up) are harmless.
    statements = [part for part in re.split(r"[;\n]", source) if part.strip()]
    matches = [_SAFE_IMPORT_LINE.fullmatch(part) for part in statements]
    if statements and all(
        match is not None and _import_allowed(match.group(1) or match.group(2) or "")
        for match in matches
    ):
        return
    found = _FORBIDDEN_WORDS.search(source)
    if found:
        raise InjectionBlocked(f"refused to compile code containing {found.group(0)!r}")


# Attribute reads that hand out frames or code objects (CPython raises "object.__getattr__"
# for these; f_back/f_locals/f_globals are not audited, so the way in is what we refuse).
_INTROSPECTION_ATTRS = frozenset(
    {"gi_frame", "cr_frame", "ag_frame", "tb_frame", "f_code", "gi_code", "cr_code", "ag_code"}
)


# Other ways to frames (and to every object, the harness's own included).
_STACK_EVENTS = frozenset(
    {
        "sys._getframe",
        "sys._current_frames",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
    }
)


_REAL_CODE = (_STDLIB_PREFIX, SITE + "/", os.path.abspath(__file__), "<frozen ")


def _compiled_at_run_time(caller: str) -> bool:
    """Code that is neither a file of ours, the stdlib's or a library's, nor the verifier:
    eval/exec'd text (sympify's ``<string>``, or any name such text gives itself)."""
    return not (caller.startswith(_REAL_CODE) or caller == "<verifier>")


# sympify/parse_expr turn solution text into an expression they eval. What their
# transformations produce for mathematics is names, numbers, strings, calls, operators,
# subscripts and containers; a payload needs more: attributes (`x._assumptions.update(zero=True)`
# makes the verifier's own `x` zero without a single refused word), keyword arguments, lambdas,
# walrus, comprehensions (generators hand out frames).
_MATH_PARSERS = ("/sympy/parsing/", "/sympy/core/sympify.py")
_CLASS_FACTORIES = frozenset({"Function", "WildFunction", "FunctionClass"})
_NOT_MATH = (
    ast.Attribute,
    ast.Dict,
    # Function('f', is_Add=True)(x**2) builds a class whose attributes the solution chose:
    # it passes for an Add and cancels `- x**2`. sympy's transformations never emit keywords.
    ast.keyword,
    ast.Lambda,
    ast.NamedExpr,
    ast.GeneratorExp,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
)


def _check_math_expression(source: object) -> None:
    if isinstance(source, bytes):
        source = source.decode("utf-8", "replace")
    if not isinstance(source, str):
        return  # ASTs are refused by _check_source
    me = _thread_id()
    _looking.add(me)  # ast.parse raises a compile event of its own
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return  # compile() will fail the same way
    finally:
        _looking.discard(me)
    # Class factories: Function('f', (Add,)) or FunctionClass('f', (Add,), {}) make a class
    # that passes for an Add. Function/WildFunction may only be called with a lone name.
    plain_calls = {
        id(node.func)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and len(node.args) <= 1 and isinstance(node.func, ast.Name)
    }
    for node in ast.walk(tree):
        if isinstance(node, _NOT_MATH):
            raise InjectionBlocked(
                f"refused to evaluate {type(node).__name__} nodes in a mathematical expression"
            )
        if isinstance(node, ast.Name) and node.id in _CLASS_FACTORIES:
            if node.id == "FunctionClass" or id(node) not in plain_calls:
                raise InjectionBlocked(f"refused to build classes with {node.id}")


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event == "import":
        name = args[0]
        if isinstance(name, str) and not _import_allowed(name):
            # Exactly what a missing module raises: libraries that probe for optional
            # dependencies with `except ModuleNotFoundError` keep working.
            raise ModuleNotFoundError(f"import of {name!r} is not allowed in a verifier", name=name)
        return
    if not _armed or (_looking and _thread_id() in _looking):
        return
    if event == "compile":
        caller = _caller_file(2)
        if not _trusted_caller(caller):
            if _runtime_code_on_stack():
                # sympify's eval'd text calling lambdify/sympify with a string of its own: the
                # inner text escapes the checks made for the outer one.
                raise InjectionBlocked("code compiled at run time may not compile more code")
            _check_source(args[0])
            if any(part in caller for part in _MATH_PARSERS):
                _check_math_expression(args[0])
    elif event == "marshal.loads" or event == "marshal.load":
        if not _caller_file(2).startswith("<frozen importlib"):
            raise InjectionBlocked("marshal.loads is not allowed in a verifier")
    elif event == "pickle.find_class":
        # Whoever calls it (numpy.load too): unpickling builds arbitrary objects.
        module = str(args[0])
        if module.partition(".")[0] != "numpy":
            raise InjectionBlocked(f"unpickling {module}.{args[1]} is not allowed")
    elif event in ("code.__new__", "ctypes.dlopen", "ctypes.dlsym", "ctypes.call_function"):
        if not _trusted_caller(_caller_file(2)):
            raise InjectionBlocked(f"{event} is not allowed in a verifier")
    elif event == "os.system":
        raise InjectionBlocked("os.system is not allowed in a verifier")
    elif event == "object.__getattr__":
        # Anywhere below run-time compiled code, not only in it: `inspect.stack()`,
        # `inspect.getargvalues(frame)` read frames from a real file on the payload's behalf.
        if args[1] in _INTROSPECTION_ATTRS and _runtime_code_on_stack():
            raise InjectionBlocked(f"run-time compiled code may not read .{args[1]}")
    elif event in _STACK_EVENTS:
        if _runtime_code_on_stack():
            raise InjectionBlocked(f"run-time compiled code may not call {event}")


def _guard_find_spec() -> None:
    """Check names where every import path meets: importlib's _find_spec.

    ``importlib.import_module`` does not raise the "import" audit event in Python 3.11, but
    it, ``__import__`` and the import statement all find modules through _find_spec.
    """
    bootstrap = sys.modules["_frozen_importlib"]
    original = bootstrap._find_spec

    def _find_spec(name: str, path: object, target: object = None) -> object:
        if not _import_allowed(name):
            # Exactly what a missing module raises: libraries that probe for optional
            # dependencies with `except ModuleNotFoundError` keep working.
            raise ModuleNotFoundError(f"import of {name!r} is not allowed in a verifier", name=name)
        return original(name, path, target)

    setattr(bootstrap, "_find_spec", _find_spec)  # noqa: B010 -- a frozen module: mypy cannot type it


# --- child setup ---

_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_DUMPABLE = 4
_PR_SET_NO_NEW_PRIVS = 38
_SYS_SECCOMP = 317
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _prepare_seccomp(program: bytes) -> tuple[_SockFprog, ctypes.Array[ctypes.c_char]]:
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    return fprog, buffer


def _write_frame(payload: bytes) -> None:
    data = struct.pack(">I", len(payload)) + payload
    view = memoryview(data)
    while view:
        written = os.write(RESULT_FD, view)
        view = view[written:]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= DETAIL_LIMIT else text[: DETAIL_LIMIT - 3] + "..."


def _describe(exc: BaseException) -> str:
    message = str(exc)
    return _short(f"{type(exc).__name__}: {message}" if message else type(exc).__name__)


def _type_name(value: object) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "")
    name = getattr(kind, "__qualname__", kind.__name__)
    return name if module == "builtins" else f"{module}.{name}"


def _read_job() -> dict[str, object]:
    chunks = []
    while True:
        chunk = os.read(JOB_FD, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(JOB_FD)
    job: dict[str, object] = json.loads(b"".join(chunks))
    return job


def _run_child(
    config: dict[str, object], fprog: _SockFprog, creds_fd: int, fds: dict[str, int]
) -> None:
    """Never returns."""
    try:
        os.setsid()
        os.dup2(fds["devnull"], 0)
        os.dup2(fds["output_w"], 1)
        os.dup2(fds["output_w"], 2)
        os.dup2(fds["job_r"], JOB_FD)
        os.dup2(fds["result_w"], RESULT_FD)
        os.dup2(creds_fd, CREDS_FD)
        os.set_inheritable(RESULT_FD, False)
        os.closerange(4, CREDS_FD)
        os.closerange(RESULT_FD + 1, 65536)
        cpu_s = int(config["max_cpu_s"])  # type: ignore[call-overload]
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        resource.setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))
        resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
        nproc = int(config["max_threads"])  # type: ignore[call-overload]
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
        if _libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "PR_SET_DUMPABLE")
        if (
            _libc.syscall(
                _SYS_SECCOMP,
                _SECCOMP_SET_MODE_FILTER,
                _SECCOMP_FILTER_FLAG_TSYNC,
                ctypes.byref(fprog),
            )
            != 0
        ):
            raise OSError(ctypes.get_errno(), "seccomp")
        # Setup is complete: tell the host who we are. The kernel attaches our pid, translated
        # into the host's pid namespace, to this message (SO_PASSCRED is set on the other end).
        # Only now may the host set our CPU limit and move us into the job's cgroup.
        os.write(CREDS_FD, b"c")
        os.close(CREDS_FD)
    except BaseException as exc:  # noqa: BLE001 -- setup failure: the host sees exit code 70
        try:
            os.write(2, f"sandbox setup failed: {exc!r}\n".encode())
        finally:
            os._exit(70)
    # From here on the job's bytes are in play; layers are all applied.
    try:
        job = _read_job()
    except BaseException:  # noqa: BLE001
        os._exit(71)
    _judge(job)


def _judge(job: dict[str, object]) -> None:
    global _armed
    payload: bytes
    try:
        # The acceptance frame's secret: kept in this frame only, out of the job dict.
        token = str(job.pop("token")).encode()
        seed = int(job["seed"])  # type: ignore[call-overload]
        import random

        import numpy

        # The zygote's RNG states are shared by every child: reseed them from the job's seed.
        random.seed(seed)
        numpy.random.seed(seed % (2**32))
        rng = numpy.random.default_rng(seed)
        source = str(job["verifier"])
        solution = str(job["solution"])
        module = type(sys)("verifier")
        module.__file__ = "<verifier>"
        sys.modules["verifier"] = module
        code = compile(source, "<verifier>", "exec", dont_inherit=True)
        exec(code, module.__dict__)  # noqa: S102 -- the verifier is the author's trusted code
        verify = module.__dict__.get("verify")
        if not callable(verify):
            payload = b"Everifier defines no callable verify(solution, rng)"
        else:
            _armed = True
            result = verify(solution, rng)
            _armed = False
            # Only the object True accepts: never bool(), ==, or str() of what came back.
            payload = b"A" + token if result is True else b"R" + _type_name(result).encode()[:100]
    except MemoryError:
        payload = b"M"
    except BaseException as exc:  # noqa: BLE001 -- SystemExit, KeyboardInterrupt included
        _armed = False
        try:
            payload = b"E" + _describe(exc).encode("utf-8", "replace")
        except BaseException:  # noqa: BLE001
            payload = b"Eexception while describing an exception"
    try:
        _write_frame(payload)
    except BaseException:  # noqa: BLE001
        # Our frame did not get out whole (the fd was closed or replaced under us): never exit
        # 0, or a frame written earlier by someone else would stand alone.
        os._exit(75)
    os._exit(0)


def _send(sock: socket.socket, message: dict[str, object], fds: list[int] | None = None) -> None:
    data = json.dumps(message).encode()
    if fds:
        sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    else:
        sock.sendall(data)


def _zygote() -> None:
    sock = socket.socket(fileno=CONTROL_FD)
    raw = sock.recv(1 << 20)
    config = json.loads(raw)
    program = bytes.fromhex(str(config["seccomp"]))
    fprog, _keep = _prepare_seccomp(program)
    sys.path.append(SITE)
    sys.addaudithook(_audit)
    preload_errors = []
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception as exc:  # noqa: BLE001
            preload_errors.append(f"{name}: {_describe(exc)}")
    if preload_errors:
        _send(sock, {"event": "failed", "detail": "; ".join(preload_errors)})
        os._exit(1)
    _guard_find_spec()
    devnull = os.open("/dev/null", os.O_RDWR | os.O_CLOEXEC)
    gc.collect()
    # Objects that exist now are never collected; children then do not touch (and copy) the
    # zygote's pages when their gc runs.
    gc.freeze()
    _send(sock, {"event": "zygote", "pid": os.getpid()})
    # One idle child is always ready. When the host takes it ("take"), the next one is forked
    # at once, while the taken child runs its job: the fork is off the next verdict's path.
    children: dict[int, int] = {}  # pidfd -> pid
    _prefork(sock, config, fprog, devnull, children)
    while True:
        readable, _, _ = select.select([sock.fileno(), *children], [], [])
        for fd in readable:
            if fd == sock.fileno():
                message = sock.recv(1 << 16)
                if not message:
                    os._exit(0)  # the host is gone
                if json.loads(message).get("event") == "take":
                    _prefork(sock, config, fprog, devnull, children)
                continue
            pid = children.pop(fd)
            os.close(fd)
            _, status, usage = os.wait4(pid, 0)
            report = {
                "event": "exit",
                "pid": pid,
                "status": status,
                "cpu_s": usage.ru_utime + usage.ru_stime,
                "maxrss_kb": usage.ru_maxrss,
            }
            _send(sock, report)


def _prefork(
    sock: socket.socket,
    config: dict[str, object],
    fprog: _SockFprog,
    devnull: int,
    children: dict[int, int],
) -> None:
    job_r, job_w = os.pipe2(os.O_CLOEXEC)
    result_r, result_w = os.pipe2(os.O_CLOEXEC)
    output_r, output_w = os.pipe2(os.O_CLOEXEC)
    creds_host, creds_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    creds_host.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    pid = os.fork()
    if pid == 0:
        os.close(job_w)
        os.close(result_r)
        os.close(output_r)
        creds_host.close()
        fds = {
            "devnull": devnull,
            "job_r": job_r,
            "result_w": result_w,
            "output_w": output_w,
        }
        child_creds = creds_child.detach()
        sock.detach()
        os.close(CONTROL_FD)
        _run_child(config, fprog, child_creds, fds)
        os._exit(72)
    children[os.pidfd_open(pid)] = pid
    os.close(job_r)
    os.close(result_w)
    os.close(output_w)
    creds_child.close()
    _send(sock, {"event": "ready", "pid": pid}, [job_w, result_r, output_r, creds_host.fileno()])
    os.close(job_w)
    os.close(result_r)
    os.close(output_r)
    creds_host.close()


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        _zygote()
    except BaseException:  # noqa: BLE001 -- the host sees the control socket close
        os._exit(1)
