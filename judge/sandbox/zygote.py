"""Host side of one sandboxed zygote: start it, hand it jobs, enforce the limits it cannot.

The zygote (``judge/python/harness.py``) runs inside bubblewrap and keeps one verdict child
forked ahead of time. Per verdict the host: learns the child's host pid (SO_PASSCRED),
pins it with a pidfd, moves it into a fresh cgroup of its own, sets the memory/pids limits and
the CPU rlimit, writes the job straight into the child's job pipe (the zygote never sees job
data), then watches the result pipe, the capped output pipe, the zygote's exit report and the
wall clock, killing the child on a timeout or an output flood.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import resource
import select
import signal
import socket
import subprocess  # noqa: S404 -- starts bubblewrap with an argv we build
from typing import Any

from judge.sandbox import identity, procs, seccomp
from judge.sandbox.bwrap import ENTROPY_DEVICES, build_argv
from judge.sandbox.cgroup import CgroupSlot, create_slot, slot_name
from judge.sandbox.channel import ChannelClosed, close_all, parse_frames, peer_pid, receive
from judge.sandbox.entropy import entropy_fd
from judge.sandbox.errors import SandboxUnavailable
from judge.sandbox.requests import SandboxRequest, SandboxResult, VerdictChild
from judge.sandbox.rootfs import build_rootfs
from judge.sandbox.watch import KILL_GRACE_S, OUTPUT_CAP_BYTES, RESULT_CAP_BYTES, watch_child

__all__ = [
    "KILL_GRACE_S",
    "OUTPUT_CAP_BYTES",
    "RECYCLE_AFTER_JOBS",
    "RESULT_CAP_BYTES",
    "SandboxRequest",
    "SandboxResult",
    "Zygote",
    "parse_frames",
]

MAX_PIDS = 16  # threads included; fork is refused by seccomp anyway
ZYGOTE_START_TIMEOUT_S = 60.0
RECYCLE_AFTER_JOBS = 500  # fresh zygote now and then: heap growth, shared ASLR layout


class Zygote:
    """One sandboxed zygote and its cgroup slot. Not thread-safe: one verdict at a time."""

    def __init__(
        self, *, max_cpu_s: int, use_cgroup: bool = True, seccomp_program: bytes | None = None
    ) -> None:
        self.max_cpu_s = max_cpu_s
        self._seccomp_program = (
            seccomp_program if seccomp_program is not None else seccomp.build_filter()
        )
        self.jobs_done = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._pending: list[tuple[dict[str, Any], list[int]]] = []
        self._child: VerdictChild | None = None
        # One fresh cgroup per verdict (mkdir + rmdir cost ~0.1 ms on cgroup v1): its peak
        # counter and OOM count are the verdict's alone, and the page cache it charged is
        # handed to the worker's cgroup when it is removed. Probe once whether we can.
        self._use_cgroup = use_cgroup
        self._cgroup_kind: str | None = None
        if use_cgroup:
            probe = create_slot(slot_name())
            if probe is not None:
                self._cgroup_kind = probe.kind
                probe.remove()
        self._cgroup: CgroupSlot | None = None  # the slot of the child taken, if any
        # A pidfd of the sandbox's pid-namespace init (bwrap inside): killing it kills every
        # process of the sandbox, and it becomes readable only once they are all gone. Held
        # for the zygote's lifetime, so it cannot be fooled by pid reuse or by the tree being
        # re-parented (bwrap outside dies with the thread that started it).
        self._ns_init_pidfd: int | None = None
        self._retired: list[CgroupSlot] = []  # slots whose removal has to be retried
        self._lease: identity.UidLease | None = None
        # Pids are one counter per pid namespace: a verdict that starts threads moves it, and a
        # later verdict would read how far from its own pid (a deterministic channel between
        # verdicts). The zygote forks nothing else, so each child must have the pid after the
        # previous child's; when one does not, the pool replaces this zygote (pid_moved).
        self._last_child_ns_pid: int | None = None
        self._pid_moved = False
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    @property
    def cgroup_kind(self) -> str | None:
        return self._cgroup_kind

    @property
    def sandbox_uid(self) -> int | None:
        """The host uid this zygote's sandbox runs as (None: the worker's own, not root)."""
        return self._lease.uid if self._lease is not None else None

    @property
    def host_pids(self) -> list[int]:
        """Host pids of the bwrap process (for leak checks in tests)."""
        return [self._process.pid] if self._process else []

    # -- lifecycle ---------------------------------------------------------------------------

    def _start(self) -> None:
        rootfs = build_rootfs()
        userns_fd: int | None = None
        if identity.is_root():
            self._lease = identity.lease_uid()
            userns_fd = identity.user_namespace_fd(self._lease.uid)
        host_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = host_end
        entropy = [entropy_fd(device) for device in ENTROPY_DEVICES]
        try:
            argv = build_argv(rootfs, zygote_end.fileno(), userns_fd, tuple(entropy))
            passed = [zygote_end.fileno(), *([userns_fd] if userns_fd is not None else [])]
            passed += entropy
            self._process = subprocess.Popen(  # noqa: S603
                argv,
                pass_fds=passed,
                env={},
                # bwrap (root, for its set-up) keeps none of the worker's supplementary groups.
                extra_groups=[] if userns_fd is not None else None,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
                cwd="/",
            )
        except OSError as exc:
            raise SandboxUnavailable(f"cannot start bubblewrap: {exc}") from exc
        finally:
            zygote_end.close()
            close_all(entropy)
            if userns_fd is not None:
                os.close(userns_fd)
        config = {
            "seccomp": self._seccomp_program.hex(),
            "max_cpu_s": self.max_cpu_s + 1,
            "max_threads": MAX_PIDS,
            # With a pool uid mapped, the harness becomes it before it imports anything.
            "sandbox_uid": identity.SANDBOX_INNER_UID if self._lease is not None else None,
        }
        host_end.sendall(json.dumps(config).encode())
        message, _ = self._recv(ZYGOTE_START_TIMEOUT_S)
        if message is None or message.get("event") != "zygote":
            detail = str(message.get("detail")) if message else self._stderr_tail()
            raise SandboxUnavailable(f"the sandboxed zygote did not start: {detail}")
        self._ns_init_pidfd = procs.ns_init_pidfd(self._process.pid)
        if self._lease is not None:
            identity.check_sandbox_uid(self._process.pid, self._lease.uid)

    def _stderr_tail(self) -> str:
        process = self._process
        if process is None or process.stderr is None:
            return "no process"
        with contextlib.suppress(Exception):
            process.kill()
            _, err = process.communicate(timeout=5)
            return (err or b"").decode("utf-8", "replace").strip()[-500:] or "no output"
        return "no output"

    def close(self) -> None:
        if self._child is not None:
            self._child.close()
            self._child = None
        for _, fds in self._pending:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._pending.clear()
        if self._ns_init_pidfd is not None:
            # Killing the namespace's init kills every process in it; its pidfd turns readable
            # once they have all exited. Nothing of the sandbox may outlive close().
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._ns_init_pidfd, signal.SIGKILL)
            select.select([self._ns_init_pidfd], [], [], 10.0)
            os.close(self._ns_init_pidfd)
            self._ns_init_pidfd = None
        if self._process is not None:
            # And bwrap outside, with anything still below it.
            procs.kill_tree(self._process.pid)
            with contextlib.suppress(Exception):
                self._process.wait(timeout=10)
            if self._process.stderr is not None:
                self._process.stderr.close()
            self._process = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        for slot in [*([self._cgroup] if self._cgroup else []), *self._retired]:
            slot.remove()
        self._cgroup = None
        self._retired.clear()
        if self._lease is not None:
            # Only now that nothing of the sandbox runs may another slot take the uid.
            self._lease.release()
            self._lease = None

    def cgroup_dirs(self) -> list[str]:
        slots = [*([self._cgroup] if self._cgroup else []), *self._retired]
        return [path for slot in slots for path in slot.dirs()]

    def cgroup_procs(self) -> list[int]:
        """Host pids in this zygote's cgroup slot, minus the pre-forked idle child."""
        slots = [*([self._cgroup] if self._cgroup else []), *self._retired]
        idle = {self._child.host_pid} if self._child is not None else set()
        return [pid for slot in slots for pid in slot.procs() if pid not in idle]

    def is_alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid_moved(self) -> bool:
        """Whether a verdict moved the sandbox's pid counter (it started threads or processes):
        the next child's pid would tell a later verdict how far, so no verdict may run here.

        Decided from the next child's "ready" message, which the zygote sends on "take",
        before it can report the exit of the verdict that just ran: after ``run`` it is known.
        """
        if self._pid_moved:
            return True
        for message, _ in self._pending:
            if message.get("event") == "ready":
                return not self._follows_last_child(int(message.get("pid", -1)))
        return False

    def _follows_last_child(self, ns_pid: int) -> bool:
        last = self._last_child_ns_pid
        return last is None or ns_pid == last + 1

    # -- control channel ---------------------------------------------------------------------

    def _recv(self, timeout_s: float) -> tuple[dict[str, Any] | None, list[int]]:
        sock = self._sock
        if sock is None:
            return None, []
        sock.settimeout(timeout_s)
        try:
            message, fds = receive(sock)
        except (TimeoutError, OSError, ChannelClosed):
            return None, []
        if message is None:
            close_all(fds)
            return None, []
        return message, fds

    def _next_message(self, timeout_s: float) -> tuple[dict[str, Any] | None, list[int]]:
        if self._pending:
            return self._pending.pop(0)
        return self._recv(timeout_s)

    def _take_child(self) -> VerdictChild:
        """The pre-forked child, pinned by pidfd and moved into the cgroup slot."""
        if self._child is not None:
            return self._child
        message, fds = self._next_message(ZYGOTE_START_TIMEOUT_S)
        if message is None or message.get("event") != "ready" or len(fds) != 4:
            for fd in fds:
                os.close(fd)
            raise SandboxUnavailable(f"zygote protocol error while waiting for a child: {message}")
        job_w, result_r, output_r, creds_fd = fds
        ns_pid = int(message["pid"])
        try:
            host_pid = peer_pid(creds_fd)
        finally:
            os.close(creds_fd)
        pidfd = os.pidfd_open(host_pid)
        # The pidfd pins the process; make sure it is the child the zygote announced.
        if procs.ns_pid_of_pidfd(pidfd) != ns_pid:
            os.close(pidfd)
            for fd in (job_w, result_r, output_r):
                os.close(fd)
            raise SandboxUnavailable("could not identify the verdict child's host pid")
        if not self._follows_last_child(ns_pid):
            # Not seen after the last verdict (the pool replaces such a zygote): fail closed.
            self._pid_moved = True
            os.close(pidfd)
            for fd in (job_w, result_r, output_r):
                os.close(fd)
            raise SandboxUnavailable("a verdict moved the sandbox's pid counter")
        self._last_child_ns_pid = ns_pid
        for fd in (result_r, output_r, job_w):
            os.set_blocking(fd, False)
        child = VerdictChild(ns_pid, host_pid, pidfd, job_w, result_r, output_r)
        if self._cgroup_kind is not None:
            slot = create_slot(slot_name())
            if slot is None:
                os.close(pidfd)
                for fd in (job_w, result_r, output_r):
                    os.close(fd)
                raise SandboxUnavailable("could not create the verdict's cgroup")
            self._cgroup = slot
            slot.add(host_pid)
        self._child = child
        return child

    def prepare(self) -> None:
        """Make sure a child is ready (off the critical path, e.g. right after a verdict)."""
        self._take_child()

    # -- one verdict -------------------------------------------------------------------------

    def run(self, request: SandboxRequest) -> SandboxResult:
        """Run one job. Raises SandboxUnavailable on the judge's own faults."""
        if not self.is_alive():
            raise SandboxUnavailable("the zygote is not running")
        child = self._take_child()
        self._child = None
        try:
            return self._run_child(child, request)
        finally:
            child.close()
            self.jobs_done += 1

    def _run_child(self, child: VerdictChild, request: SandboxRequest) -> SandboxResult:
        memory_bytes = int(request.memory_limit_mb) * 1024 * 1024
        cpu_s = max(1, math.ceil(request.time_limit_s)) + 1
        if self._cgroup is not None:
            self._cgroup.prepare(memory_bytes=memory_bytes, max_pids=MAX_PIDS)
        else:
            # No cgroup on this host: cap the data segment above what the child already maps.
            base = procs.vm_data_bytes(child.host_pid) or 0
            resource.prlimit(child.host_pid, resource.RLIMIT_DATA, (base + memory_bytes,) * 2)
        resource.prlimit(child.host_pid, resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        payload = json.dumps(
            {
                "seed": request.seed,
                "token": request.accept_token,
                "verifier": request.verifier_source,
                "solution": request.solution,
            }
        ).encode()
        # Ask the zygote for the next child now: it forks while this job runs.
        assert self._sock is not None  # noqa: S101
        observed = watch_child(
            child,
            self._sock,
            payload=payload,
            time_limit_s=request.time_limit_s,
            pending=self._pending,
        )
        exit_report = observed.exit_report
        peak: int | None = None
        oom = False
        if self._cgroup is not None:
            self._cgroup.kill_all()
            peak = self._cgroup.peak_bytes()
            oom = self._cgroup.oom_kills() > 0
            self._retire_slot()
        cpu = float(exit_report["cpu_s"]) if exit_report else None
        # Without a cgroup there is no honest per-verdict figure (ru_maxrss counts the pages
        # shared with the zygote), so max_memory_mb stays null.
        return SandboxResult(
            frames=None if observed.result_overflow else parse_frames(observed.result),
            exit_status=int(exit_report["status"]) if exit_report else None,
            timed_out=observed.timed_out,
            output_exceeded=observed.output_exceeded,
            oom_killed=oom,
            wall_time_s=observed.wall_time_s,
            cpu_time_s=cpu,
            peak_memory_bytes=peak,
            output_head=observed.output_head,
        )

    def _retire_slot(self) -> None:
        """Remove the finished verdict's cgroup now, or later if the kernel is not done."""
        if self._cgroup is not None:
            self._retired.append(self._cgroup)
            self._cgroup = None
        still: list[CgroupSlot] = []
        for slot in self._retired:
            if not slot.try_remove():
                still.append(slot)
        self._retired = still
