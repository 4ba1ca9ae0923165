"""The program that runs INSIDE the sandbox: a zygote that forks one child per verdict.

Standard library only: this file is bound read-only at /judge/harness.py and run by the
interpreter with ``-s -P -S -B`` (``-I`` minus ``-E``: PYTHONHASHSEED must apply) and
only the sandbox's environment; it cannot import the ``judge`` package.

Zygote (trusted code, no job data, no secrets):
  1. receives its configuration (seccomp program, caps, the sandbox user) from the host on the
     control socket; when the host mapped a pool uid, it remounts the device nodes read-only,
     drops the capability bounding set and becomes that uid (``harness_user.py``) before
     it imports anything;
  2. installs the import allowlist (an audit hook, ``harness_audit.py``, which cannot be
     removed), pre-imports numpy, scipy, sympy, mpmath and runs the honest calls with the
     cyclic gc off, gathers its heap into huge pages, runs ``gc.freeze()``, turns the gc on;
  3. keeps one verdict child forked ahead: it creates the child's pipes, forks, hands the
     host its ends (SCM_RIGHTS); when the host takes that child ("take") it forks the next
     one at once, while the taken child runs; it reaps children (pidfds) and reports each
     exit status and rusage.

Child (one per verdict), before it reads any job byte:
  new session, fds 0/1/2 = /dev/null / capped output pipe, job on fd 3, result on a high fd,
  every other fd closed; rlimits; not dumpable; seccomp (``harness_child.py``). Waiting for its
  job, it rehearses a verdict's first steps on fixed data (``harness_pages.py``). The host
  meanwhile has moved it into the job's cgroup. Then it reads the job, reseeds every library
  RNG from the job's seed (``harness_user.reseed``), loads the verifier, arms the injection
  guard, calls ``verify(solution, numpy.random.default_rng(seed))``, writes exactly one frame
  on the result pipe, then ``os._exit(0)``.

Result frames (4-byte big-endian length + payload): ``A<token>`` accepted, the token being this
verdict's secret from the job, so a frame forged without it is caught; ``R<type name>`` verify
returned something that is not True; ``E<type name>\n<detail>`` exception or malformed verifier
(the type alone is what a solver may see when the verifier's source is private: the message
can hold the verifier's hidden values); ``M`` MemoryError. The host accepts only a single
``A<token>`` frame followed by exit status 0.
"""

import array
import gc
import json
import os
import select
import signal
import socket
import struct
import sys
from collections.abc import Callable

try:  # imported as part of the judge package (tests, mypy)
    from judge.python import harness_admission as admission
    from judge.python import harness_audit as audit
    from judge.python import harness_child as child
    from judge.python import harness_guard as guard
    from judge.python import harness_pages as pages
    from judge.python import harness_sweep as sweep
    from judge.python import harness_user as user
except ImportError:  # inside the sandbox: the guard is bound beside this file
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import harness_admission as admission  # type: ignore[no-redef]
    import harness_audit as audit  # type: ignore[no-redef]
    import harness_child as child  # type: ignore[no-redef]
    import harness_guard as guard  # type: ignore[no-redef]
    import harness_pages as pages  # type: ignore[no-redef]
    import harness_sweep as sweep  # type: ignore[no-redef]
    import harness_user as user  # type: ignore[no-redef]

    del sys.path[0]

CONTROL_FD = int(sys.argv[1]) if len(sys.argv) > 1 else 3
SITE = "/judge/site"
JOB_FD = 3
RESULT_FD = 1023  # a high number: "write to fds 3..20" style attacks miss it
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


# --- sandbox user, child setup ---


def _write_frame(payload: bytes) -> None:
    data = struct.pack(">I", len(payload)) + payload
    view = memoryview(data)
    while view:
        written = os.write(RESULT_FD, view)
        view = view[written:]


def _hide_host_paths(text: str) -> str:
    """The interpreter's host paths (bound as they are) out of a detail, BEFORE it is cut:
    the host redacts too, but cannot recognise a path cut in the middle."""
    stdlib = os.path.dirname(os.__file__)
    prefixes = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(stdlib))}
    for prefix in sorted(prefixes, key=len, reverse=True):
        if len(prefix) > 1:
            text = text.replace(prefix, "<python>")
    return text


def _short(text: str) -> str:
    text = " ".join(_hide_host_paths(text).split())
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
    config: dict[str, object], fprog: child.SockFprog, creds_fd: int, fds: dict[str, int]
) -> None:
    """Never returns."""
    try:
        child.confine(config, fprog, creds_fd, fds, job_fd=JOB_FD, result_fd=RESULT_FD)
        # Layers applied, no job byte read yet: the first steps of a verdict, on fixed data,
        # while the job is not here (harness_pages.py).
        pages.rehearse(user.reseed)
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


def _error_payload(exc: BaseException) -> bytes:
    return b"E" + _type_name(exc).encode()[:100] + b"\n" + _describe(exc).encode("utf-8", "replace")


def _judge(job: dict[str, object]) -> None:
    payload: bytes
    try:
        # The acceptance frame's secret: kept in this frame only, out of the job dict.
        token = str(job.pop("token")).encode()
        seed = int(job["seed"])  # type: ignore[call-overload]
        import numpy

        user.reseed(seed)
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
            payload = b"E\nverifier defines no callable verify(solution, rng)"
        else:
            guard.arm(code)  # one way: the child exits armed
            result = verify(solution, rng)
            refused = guard.refusal()
            if refused is not None:
                # The verifier caught the refusal: the verdict still saw text that may not be
                # code, and is a RUNTIME_ERROR whatever verify returned.
                payload = _error_payload(guard.InjectionBlocked(refused))
            elif result is True:  # only the object True accepts: never bool(), ==, str()
                payload = b"A" + token
            else:
                payload = b"R" + _type_name(result).encode()[:100]
    except MemoryError:
        payload = b"M"
    except BaseException as exc:  # noqa: BLE001 -- SystemExit, KeyboardInterrupt included
        refused = guard.refusal()
        try:
            payload = _error_payload(exc if refused is None else guard.InjectionBlocked(refused))
        except BaseException:  # noqa: BLE001
            payload = b"E\nexception while describing an exception"
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
    sandbox_uid = config.get("sandbox_uid")
    if sandbox_uid is not None:
        try:
            user.become_sandbox_user(int(sandbox_uid))
        except Exception as exc:  # noqa: BLE001 -- the host refuses to use this zygote
            _send(sock, {"event": "failed", "detail": f"sandbox user: {_describe(exc)}"})
            os._exit(1)
    program = bytes.fromhex(str(config["seccomp"]))
    fprog, _keep = child.prepare_seccomp(program)
    sys.path.append(SITE)
    sys.addaudithook(audit.make_audit_hook(_import_allowed))
    # No cyclic gc from the first import to the freeze (the recipe of gc.freeze's docs): each
    # collection walked the whole growing heap again (~0.1 CPU-s of the imports and warm-up),
    # and a start makes almost no cyclic garbage (~3,500 unreachable objects of ~230,000),
    # which is frozen with the rest: freeing it took a full collection (0.05-0.1 CPU-s), and
    # the holes it left cost the heap ~8 MB of huge pages. docs/performance.md.
    gc.disable()
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
    audit.refuse_thread_tracing()
    admission.install_text_entries()
    user.install_seed_sources()
    try:
        sweep.warm()  # the first verdict finds the honest calls' lazy imports and caches warm
    except Exception as exc:  # noqa: BLE001
        _send(sock, {"event": "failed", "detail": f"warm-up: {_describe(exc)}"})
        os._exit(1)
    # Which code is library code, the factories and the import system's functions, by
    # identity, now that every preloaded and warmed module exists and before any verifier.
    guard.capture()
    guard.reset()
    # Before the objects move to the permanent generation, which gc.get_objects() omits.
    pages.collapse_heap()
    # Objects that exist now are never collected; children then do not touch (and copy) the
    # zygote's pages when their gc runs, and collect their own objects as any interpreter.
    gc.freeze()
    gc.enable()
    _send(sock, {"event": "zygote", "pid": os.getpid()})
    # One idle child is always ready. When the host takes it ("take"), the next one is forked
    # at once, while the taken child runs its job: the fork is off the next verdict's path.
    children: dict[int, int] = {}  # pidfd -> pid
    _prefork(sock, config, fprog, children)
    while True:
        readable, _, _ = select.select([sock.fileno(), *children], [], [])
        for fd in readable:
            if fd == sock.fileno():
                message = sock.recv(1 << 16)
                if not message:
                    os._exit(0)  # the host is gone
                if json.loads(message).get("event") == "take":
                    _prefork(sock, config, fprog, children)
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
    fprog: child.SockFprog,
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
