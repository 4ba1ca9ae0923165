"""Who a sandbox runs as on the host: one unprivileged uid per zygote, leased from a pool.

isolate's model: every concurrent box has a uid of its own that owns nothing on the host, so
what a verifier does with its credentials (inotify instances, signals queued, processes
counted against RLIMIT_NPROC, files it could chmod) is charged to that uid alone, never to
root or to the worker, and never shared with another slot.

A worker running as root leases a uid from ``JUDGE_SANDBOX_UID_BASE`` (default 60000) up to
``JUDGE_SANDBOX_UID_COUNT`` (default 1000) uids, skipping any uid the host's passwd knows or
that a running process uses. The lease is an ``flock`` on ``<lock dir>/<uid>.lock``
(``JUDGE_SANDBOX_UID_LOCK_DIR``, default /run/formalmarket-judge/uids, root-only): distinct
across every worker process and every slot, released by the kernel if the worker dies.

bubblewrap must bind files only root can reach (the interpreter may live under /root), so it
cannot simply run as the pool uid: the uid is mapped instead. The worker creates a user
namespace whose map holds host root (for bwrap's set-up) and ``SANDBOX_INNER_UID`` -> the
pool uid; bwrap enters it (``--userns``) and hands the harness just the capabilities it needs
to remount the device nodes read-only and switch to the pool uid, which it does before it
imports anything, let alone reads a job (``judge/python/harness_user.py``).

A worker that is not root cannot map other uids: its sandboxes run as the worker's own
(unprivileged) uid through bwrap's ``--unshare-user``, as documented in docs/python-judge.md.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import fcntl
import os
import pwd
import stat

from judge.sandbox import procs
from judge.sandbox.errors import SandboxUnavailable

SANDBOX_INNER_UID = 65534  # the uid (and gid) the sandbox sees itself as
DEFAULT_UID_BASE = 60000
DEFAULT_UID_COUNT = 1000
DEFAULT_LOCK_DIR = "/run/formalmarket-judge/uids"
_CLONE_NEWUSER = 0x10000000


@dataclasses.dataclass(slots=True)
class UidLease:
    """A pool uid held by one zygote until ``release``."""

    uid: int
    _lock_fd: int

    def release(self) -> None:
        if self._lock_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)  # closing the fd drops the flock
            self._lock_fd = -1


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise SandboxUnavailable(f"{name} must be an integer, got {raw!r}") from exc
    if value <= 0 or value >= 2**31:
        raise SandboxUnavailable(f"{name} is out of range: {raw!r}")
    return value


def _lock_dir() -> str:
    path = os.environ.get("JUDGE_SANDBOX_UID_LOCK_DIR", "").strip() or DEFAULT_LOCK_DIR
    os.makedirs(path, mode=0o700, exist_ok=True)
    info = os.lstat(path)
    # Anyone else able to write there could hold every lease, or swap a lock file.
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        raise SandboxUnavailable(f"the uid lock folder {path} must be a root-owned folder (0700)")
    return path


def _uids_in_use() -> set[int]:
    """Real, effective, saved and fs uids of every process on the host."""
    found: set[int] = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as handle:
                for line in handle:
                    if line.startswith("Uid:"):
                        found.update(int(part) for part in line.split()[1:])
                        break
        except (OSError, ValueError):
            continue
    return found


def _known_to_passwd(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def is_root() -> bool:
    return os.geteuid() == 0


def uid_range() -> tuple[int, int]:
    """(base, count) of this worker's pool uids (JUDGE_SANDBOX_UID_BASE/COUNT)."""
    base = _env_int("JUDGE_SANDBOX_UID_BASE", DEFAULT_UID_BASE)
    count = _env_int("JUDGE_SANDBOX_UID_COUNT", DEFAULT_UID_COUNT)
    if base < 1000 or base <= SANDBOX_INNER_UID < base + count:
        raise SandboxUnavailable(f"JUDGE_SANDBOX_UID_BASE={base} would reuse a system uid")
    return base, count


def lease_scope() -> dict[str, object]:
    """Where this worker's leases are exclusive: one kernel (its boot id) and one lock folder.

    Two workers whose leases could collide run on the same kernel (uids are per kernel) with
    different lock folders (e.g. each container's own /run): their uid ranges must then be
    disjoint. Workers sharing a lock folder (one host folder mounted in every container has
    the same device and inode everywhere) are kept apart by the flock itself.
    """
    with open("/proc/sys/kernel/random/boot_id") as handle:
        kernel = handle.read().strip()
    info = os.stat(_lock_dir())
    base, count = uid_range()
    return {"kernel": kernel, "lock": f"{info.st_dev}:{info.st_ino}", "base": base, "count": count}


def conflicting_scope(mine: dict[str, object], other: dict[str, object]) -> bool:
    """Whether two workers' leases could hand the same host uid to two sandboxes at once."""
    if mine.get("kernel") != other.get("kernel") or mine.get("lock") == other.get("lock"):
        return False
    a, a_count = int(str(mine["base"])), int(str(mine["count"]))
    b, b_count = int(str(other["base"])), int(str(other["count"]))
    return a < b + b_count and b < a + a_count


def lease_uid() -> UidLease:
    """Lease a free pool uid (the worker must be root)."""
    base, count = uid_range()
    directory = _lock_dir()
    busy = _uids_in_use()
    for uid in range(base, base + count):
        if uid in busy or _known_to_passwd(uid):
            continue
        fd = os.open(f"{directory}/{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        # Checked again under the lock: a process of a crashed worker's sandbox may still run.
        if uid in _uids_in_use():
            os.close(fd)
            continue
        return UidLease(uid, fd)
    raise SandboxUnavailable(
        f"no free sandbox uid in {base}..{base + count - 1} (JUDGE_SANDBOX_UID_BASE/COUNT)"
    )


def user_namespace_fd(host_uid: int) -> int:
    """An fd of a new user namespace that maps host root and ``SANDBOX_INNER_UID`` -> host_uid.

    A forked helper creates it (a multi-threaded process cannot unshare a user namespace) and
    waits while this process, root on the host, writes its uid and gid maps.
    """
    unshare = ctypes.CDLL(None, use_errno=True).unshare  # resolved before fork
    ready_r, ready_w = os.pipe2(os.O_CLOEXEC)
    done_r, done_w = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:  # pragma: no cover -- the helper; only async-signal-safe work here
        try:
            os.close(done_w)
            os.write(ready_w, b"1" if unshare(_CLONE_NEWUSER) == 0 else b"0")
            os.read(done_r, 1)
        finally:
            os._exit(0)
    os.close(ready_w)
    os.close(done_r)
    try:
        if os.read(ready_r, 1) != b"1":
            raise SandboxUnavailable("cannot create a user namespace for the sandbox")
        mapping = f"0 0 1\n{SANDBOX_INNER_UID} {host_uid} 1\n"
        for kind in ("uid_map", "gid_map"):
            with open(f"/proc/{pid}/{kind}", "w") as handle:
                handle.write(mapping)
        return os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise SandboxUnavailable(f"cannot map the sandbox uid: {exc}") from exc
    finally:
        os.close(ready_r)
        os.close(done_w)  # the helper's read returns: it exits
        os.waitpid(pid, 0)


def check_sandbox_uid(bwrap_pid: int, uid: int) -> None:
    """Seen from the host: every sandbox process but bwrap's own runs as the pool uid."""
    found = {pid: procs.uids_of(pid) for pid in procs.descendants(bwrap_pid)}
    zygotes = [pid for pid, uids in found.items() if uids == (uid,) * 4]
    others = [pid for pid, uids in found.items() if uids not in ((uid,) * 4, (0,) * 4, None)]
    if not zygotes or others:
        raise SandboxUnavailable(f"the sandbox does not run as its pool uid {uid}")
