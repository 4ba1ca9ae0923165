"""Per-verdict memory and process limits with cgroups (v1 or v2, whichever the host offers).

One :class:`CgroupSlot` per verdict: created when the host takes a pre-forked child, which is
moved in before it reads its job; the limits are set before the job is written; after the
verdict anything left inside is killed and the cgroup removed (v1 hands its page-cache charges
to the parent). Slots live below the worker's own cgroup (v1) or beside it (v2), so the
worker's own limits still hold.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import secrets
import signal
import time

CGROUP_ROOT = pathlib.Path("/sys/fs/cgroup")


def _own_path(controller: str) -> str | None:
    """Our cgroup path in the hierarchy of ``controller`` ("" for the v2 unified one)."""
    try:
        lines = pathlib.Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller == "" and controllers == "" and line.startswith("0::"):
            return path
        if controller and controller in controllers.split(","):
            return path
    return None


# Every verdict writes and reads some ten cgroup files: plain os calls, not Python's buffered
# text files (which cost more than the kernel's side of a small cgroupfs read or write).
def _write(path: pathlib.Path, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _read(path: pathlib.Path) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode()


def _read_int(path: pathlib.Path) -> int | None:
    try:
        return int(_read(path).split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _read_key(path: pathlib.Path, key: str) -> int | None:
    try:
        for line in _read(path).splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        return None
    return None


class CgroupSlot:
    """A memory + pids cgroup for one verdict at a time."""

    kind: str

    def add(self, pid: int) -> None:
        raise NotImplementedError

    def dirs(self) -> list[str]:
        raise NotImplementedError

    def prepare(self, *, memory_bytes: int, max_pids: int) -> None:
        raise NotImplementedError

    def peak_bytes(self) -> int | None:
        raise NotImplementedError

    def oom_kills(self) -> int:
        raise NotImplementedError

    def procs(self) -> list[int]:
        raise NotImplementedError

    def remove(self) -> None:
        raise NotImplementedError

    def try_remove(self) -> bool:
        """One attempt at removing the (empty) cgroup; True when it is gone."""
        raise NotImplementedError

    def kill_all(self) -> None:
        for _ in range(50):
            pids = self.procs()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.002)


class CgroupV1Slot(CgroupSlot):
    kind = "v1"

    def __init__(self, name: str) -> None:
        memory_parent = _own_path("memory")
        pids_parent = _own_path("pids")
        if memory_parent is None or pids_parent is None:
            raise OSError("cgroup v1 memory/pids controllers not found")
        self.memory = CGROUP_ROOT / "memory" / memory_parent.lstrip("/") / name
        self.pids = CGROUP_ROOT / "pids" / pids_parent.lstrip("/") / name
        remove_stale_slots(self.memory.parent)
        remove_stale_slots(self.pids.parent)
        self.memory.mkdir(exist_ok=True)
        try:
            self.pids.mkdir(exist_ok=True)
        except OSError:
            self.memory.rmdir()
            raise
        self._memsw = (self.memory / "memory.memsw.limit_in_bytes").exists()
        self._limits: tuple[int, int] | None = None

    def dirs(self) -> list[str]:
        return [str(self.memory), str(self.pids)]

    def add(self, pid: int) -> None:
        _write(self.memory / "cgroup.procs", str(pid))
        _write(self.pids / "cgroup.procs", str(pid))

    def prepare(self, *, memory_bytes: int, max_pids: int) -> None:
        # Each cgroupfs write costs ~0.1 ms: write limits only when they change.
        if self._limits != (memory_bytes, max_pids):
            self._set_limits(memory_bytes, max_pids)
            self._limits = (memory_bytes, max_pids)
        _write(self.memory / "memory.max_usage_in_bytes", "0")

    def _set_limits(self, memory_bytes: int, max_pids: int) -> None:
        limit = str(memory_bytes)
        # memsw (memory+swap) must stay >= memory: order the writes so it always does.
        if self._memsw:
            try:
                _write(self.memory / "memory.memsw.limit_in_bytes", limit)
                _write(self.memory / "memory.limit_in_bytes", limit)
            except OSError:
                _write(self.memory / "memory.limit_in_bytes", limit)
                _write(self.memory / "memory.memsw.limit_in_bytes", limit)
        else:
            _write(self.memory / "memory.limit_in_bytes", limit)
        _write(self.pids / "pids.max", str(max_pids))

    def peak_bytes(self) -> int | None:
        return _read_int(self.memory / "memory.max_usage_in_bytes")

    def oom_kills(self) -> int:
        return _read_key(self.memory / "memory.oom_control", "oom_kill") or 0

    def procs(self) -> list[int]:
        found: set[int] = set()
        for directory in (self.memory, self.pids):
            with contextlib.suppress(OSError):
                found.update(int(x) for x in _read(directory / "cgroup.procs").split())
        return sorted(found)

    def try_remove(self) -> bool:
        gone = True
        for directory in (self.memory, self.pids):
            try:
                directory.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                gone = False
        return gone

    def remove(self) -> None:
        self.kill_all()
        for directory in (self.memory, self.pids):
            for _ in range(100):
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


class CgroupV2Slot(CgroupSlot):
    kind = "v2"

    def __init__(self, name: str) -> None:
        own_path = _own_path("")
        if own_path is None or not (CGROUP_ROOT / "cgroup.controllers").exists():
            raise OSError("no cgroup v2 unified hierarchy at /sys/fs/cgroup")
        own = CGROUP_ROOT / own_path.lstrip("/")
        # The "no internal processes" rule: a cgroup that holds processes (ours does) cannot
        # hand controllers to children. So slots live under a sibling folder of ours,
        # "formalmarket-judge", which holds no process; our parent must already delegate
        # memory and pids (the image's entrypoint arranges that, see its README).
        parent = own.parent if own != CGROUP_ROOT else own
        base = parent / "formalmarket-judge"
        base.mkdir(exist_ok=True)
        remove_stale_slots(base)
        _enable_controllers(parent)
        _enable_controllers(base)
        self.path = base / name
        self.path.mkdir(exist_ok=True)
        self._limits: tuple[int, int] | None = None

    def dirs(self) -> list[str]:
        return [str(self.path)]

    def add(self, pid: int) -> None:
        _write(self.path / "cgroup.procs", str(pid))

    def prepare(self, *, memory_bytes: int, max_pids: int) -> None:
        if self._limits != (memory_bytes, max_pids):
            _write(self.path / "memory.max", str(memory_bytes))
            with contextlib.suppress(OSError):
                _write(self.path / "memory.swap.max", "0")
            _write(self.path / "pids.max", str(max_pids))
            self._limits = (memory_bytes, max_pids)

    def peak_bytes(self) -> int | None:
        return _read_int(self.path / "memory.peak")

    def oom_kills(self) -> int:
        return _read_key(self.path / "memory.events", "oom_kill") or 0

    def procs(self) -> list[int]:
        try:
            return sorted(int(x) for x in _read(self.path / "cgroup.procs").split())
        except OSError:
            return []

    def kill_all(self) -> None:
        with contextlib.suppress(OSError):
            _write(self.path / "cgroup.kill", "1")
        super().kill_all()

    def try_remove(self) -> bool:
        try:
            self.path.rmdir()
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return True

    def remove(self) -> None:
        self.kill_all()
        for _ in range(100):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.01)


def _enable_controllers(directory: pathlib.Path) -> None:
    enabled = (directory / "cgroup.subtree_control").read_text().split()
    missing = [c for c in ("memory", "pids") if c not in enabled]
    if missing:
        _write(directory / "cgroup.subtree_control", " ".join(f"+{c}" for c in missing))


# A slot holds its verdict child from the moment it is created (milliseconds apart), so an
# empty one this old belongs to nobody. Slot names are random (``fmjudge-<16 hex>``), never a
# pid: two containers sharing a cgroup tree see each other's slots but not each other's pids.
STALE_SLOT_AGE_S = 600.0

_cleaned: set[pathlib.Path] = set()


def slot_name() -> str:
    """A slot name unique across every worker that may share this cgroup tree."""
    return f"fmjudge-{secrets.token_hex(8)}"


def remove_stale_slots(directory: pathlib.Path) -> None:
    """Remove slots left empty by dead workers (older than ``STALE_SLOT_AGE_S``).

    A worker killed without running its atexit handlers leaves its (empty) slot folders.
    The kernel refuses to remove a cgroup that holds a process, and a live slot is never
    empty for long, so another worker's slot (in another container too) is left alone.
    Done once per folder and process.
    """
    if directory in _cleaned:
        return
    _cleaned.add(directory)
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in directory.iterdir():
            if not entry.name.startswith("fmjudge-") or not entry.is_dir():
                continue
            with contextlib.suppress(OSError):
                if now - entry.stat().st_mtime > STALE_SLOT_AGE_S:
                    entry.rmdir()


def create_slot(name: str) -> CgroupSlot | None:
    """A cgroup slot, or None when the host offers neither v1 nor v2 memory+pids control."""
    v1_memory = CGROUP_ROOT / "memory"
    if (v1_memory / "memory.limit_in_bytes").exists() or (
        v1_memory.is_dir() and (CGROUP_ROOT / "pids").is_dir()
    ):
        with contextlib.suppress(OSError):
            return CgroupV1Slot(name)
    with contextlib.suppress(OSError):
        return CgroupV2Slot(name)
    return None
