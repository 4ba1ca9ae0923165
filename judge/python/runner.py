"""Turn a PythonJob into a Verdict with a pool of warm, sandboxed zygotes."""

from __future__ import annotations

import atexit
import concurrent.futures
import dataclasses
import math
import os
import queue
import secrets
import threading
import time

from judge.budgets import Budgets
from judge.python import limits

__all__ = ["PythonJudge", "default_judge", "judge_python", "redact_host_paths", "to_verdict"]
from judge.python.job import PythonJob
from judge.python.outcome import redact_host_paths, to_verdict
from judge.sandbox import procs
from judge.sandbox.errors import SandboxUnavailable
from judge.sandbox.zygote import RECYCLE_AFTER_JOBS, SandboxRequest, Zygote
from judge.verdict import (
    MAX_SOLUTION_BYTES,
    Reason,
    Verdict,
    check_solution_bytes,
    judge_error,
    rejected,
)

MAX_SEED = 2**63 - 1
MAX_VERIFIER_BYTES = 1 << 20
_MB = 1024 * 1024


def _decode_solution(solution: bytes | str) -> str | Verdict:
    if isinstance(solution, str):
        try:
            data = solution.encode("utf-8")
        except UnicodeEncodeError:
            return rejected(Reason.INVALID_SOLUTION, "solution is not valid UTF-8 (lone surrogate)")
        if len(data) > MAX_SOLUTION_BYTES:
            return rejected(
                Reason.INVALID_SOLUTION,
                f"solution is {len(data)} bytes; the limit is {MAX_SOLUTION_BYTES} bytes",
            )
        return solution
    if isinstance(solution, bytes | bytearray | memoryview):
        return check_solution_bytes(bytes(solution))
    return rejected(Reason.INVALID_SOLUTION, "solution must be text or bytes")


class PythonJudge:
    """A thread-safe pool of warm zygotes. Each verdict borrows one zygote."""

    def __init__(
        self,
        size: int | None = None,
        *,
        use_cgroup: bool = True,
        seccomp_program: bytes | None = None,
        recycle_after: int = RECYCLE_AFTER_JOBS,
    ) -> None:
        """``use_cgroup``/``seccomp_program`` exist for tests that weaken a layer on purpose."""
        self.size = size or limits.pool_size()
        self.recycle_after = recycle_after
        # Replacements for recycled zygotes, started in the background.
        self._warming: list[concurrent.futures.Future[Zygote]] = []
        self._use_cgroup = use_cgroup
        self._seccomp_program = seccomp_program
        self._idle: queue.LifoQueue[Zygote] = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(self.size)
        self._lock = threading.Lock()
        self._all: list[Zygote] = []
        self._pid = os.getpid()
        # bwrap --die-with-parent is tied to the *thread* that started it: start zygotes from
        # one long-lived thread so that a caller's short-lived thread cannot take them down.
        self._spawner = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="judge-zygote-spawner"
        )

    def _spawn(self) -> Zygote:
        """Runs on the spawner thread."""
        zygote = Zygote(
            max_cpu_s=math.ceil(limits.max_time_s()) + 1,
            use_cgroup=self._use_cgroup,
            seccomp_program=self._seccomp_program,
        )
        with self._lock:
            self._all.append(zygote)
        return zygote

    def _new_zygote(self) -> Zygote:
        return self._spawner.submit(self._spawn).result()

    def _checkout(self) -> Zygote:
        """An idle zygote, a replacement being warmed up, or a new one (caller holds a slot)."""
        while True:
            try:
                zygote = self._idle.get_nowait()
            except queue.Empty:
                break
            if zygote.is_alive():
                return zygote
            self._discard(zygote)  # died while idle: do not fail a verdict for it
        with self._lock:
            future = self._warming.pop(0) if self._warming else None
        if future is not None:
            return future.result()
        return self._new_zygote()

    def _checkin(self, zygote: Zygote) -> None:
        # pid_moved: a verdict started threads, and the next child's pid would say how many.
        if zygote.jobs_done >= self.recycle_after or zygote.pid_moved or not zygote.is_alive():
            self._discard(zygote)
            # Warm the replacement in the background: the next verdict should not pay a cold
            # start (seconds) on its critical path.
            with self._lock:
                self._warming.append(self._spawner.submit(self._spawn))
        else:
            self._idle.put(zygote)

    def _discard(self, zygote: Zygote) -> None:
        with self._lock:
            if zygote in self._all:
                self._all.remove(zygote)
        zygote.close()

    def warm_up(self) -> None:
        """Start every zygote now (a worker calls this at startup)."""
        zygotes = []
        for _ in range(self.size):
            self._slots.acquire()
            zygotes.append(self._checkout())
        for zygote in zygotes:
            zygote.prepare()
            self._idle.put(zygote)
            self._slots.release()

    def judge(self, job: PythonJob) -> Verdict:
        """Never raises for bad input; JUDGE_ERROR when the sandbox is unavailable.

        No detail of any verdict names a host path (the sandbox shows the interpreter and the
        stdlib at their host paths; a set-up error names the checkout).
        """
        verdict = self._judge(job)
        solver = verdict.solver_detail
        return dataclasses.replace(
            verdict,
            detail=redact_host_paths(verdict.detail),
            solver_detail=redact_host_paths(solver) if solver is not None else None,
        )

    def _judge(self, job: PythonJob) -> Verdict:
        started = time.monotonic()
        try:
            request_or_verdict = self._request(job)
        except Exception as exc:  # noqa: BLE001 -- the contract: never raise for bad input
            return judge_error(f"bad job: {type(exc).__name__}")
        if isinstance(request_or_verdict, Verdict):
            return request_or_verdict
        request = request_or_verdict
        if os.getpid() != self._pid:
            return judge_error("the judge pool was inherited across fork(); create a new one")
        self._slots.acquire()
        zygote: Zygote | None = None
        try:
            zygote = self._checkout()
            result = zygote.run(request)
        except SandboxUnavailable as exc:
            if zygote is not None:
                self._discard(zygote)
                zygote = None
            return judge_error(
                f"sandbox unavailable: {exc}",
                seed=request.seed,
                wall_time_s=round(time.monotonic() - started, 6),
            )
        except Exception as exc:  # noqa: BLE001 -- a bug of ours: JUDGE_ERROR, fresh zygote
            if zygote is not None:
                self._discard(zygote)
                zygote = None
            # Redacted before it is cut: a cut path cannot be recognised any more.
            detail = redact_host_paths(f"judge failure: {type(exc).__name__}: {exc}")
            return judge_error(detail[:300], seed=request.seed)
        finally:
            if zygote is not None:
                self._checkin(zygote)
            self._slots.release()
        return to_verdict(
            result,
            accept_token=request.accept_token,
            seed=request.seed,
            time_limit_s=request.time_limit_s,
            memory_limit_mb=request.memory_limit_mb,
        )

    @staticmethod
    def _request(job: PythonJob) -> SandboxRequest | Verdict:
        seed = job.seed
        if seed is None:
            seed = secrets.randbits(63)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            return judge_error(f"seed must be an integer in [0, {MAX_SEED}]")
        solution = _decode_solution(job.solution)
        if isinstance(solution, Verdict):
            return Verdict(
                solution.verdict, solution.reason, solution.detail, seed=seed, wall_time_s=0.0
            )
        source = job.verifier_source
        if not isinstance(source, str):
            return rejected(Reason.RUNTIME_ERROR, "the verifier source is not text", seed=seed)
        if len(source.encode("utf-8", "surrogatepass")) > MAX_VERIFIER_BYTES:
            return rejected(Reason.RUNTIME_ERROR, "the verifier source is over 1 MiB", seed=seed)
        try:
            budget = job.budget if job.budget is not None else Budgets.from_env().python
        except ValueError as exc:
            return judge_error(f"the server's Python caps are invalid: {exc}")
        refusal = budget.refusal(time_limit_s=job.time_limit_s, memory_limit_mb=job.memory_limit_mb)
        if refusal is not None:
            # Publishing refuses such a budget too: judging under another one would be a
            # verdict on a budget the author never declared.
            return judge_error(refusal)
        time_s, memory_mb = float(job.time_limit_s), int(job.memory_limit_mb)
        return SandboxRequest(
            verifier_source=source,
            solution=solution,
            seed=seed,
            time_limit_s=time_s,
            memory_limit_mb=memory_mb,
        )

    def leftover_processes(self) -> list[int]:
        """Host pids still inside any verdict cgroup while no verdict runs (should be [])."""
        with self._lock:
            zygotes = list(self._all)
        return [pid for zygote in zygotes for pid in zygote.cgroup_procs()]

    def sandbox_processes(self) -> list[procs.ProcessId]:
        """Every process of this pool's sandboxes (bwrap trees), as (pid, start time)."""
        with self._lock:
            zygotes = list(self._all)
        found: list[int] = []
        for zygote in zygotes:
            for root in zygote.host_pids:
                found += [root, *procs.descendants(root)]
        return procs.identify(found)

    def cgroup_dirs(self) -> list[str]:
        """The cgroup folders of this pool's slots."""
        with self._lock:
            return [path for zygote in self._all for path in zygote.cgroup_dirs()]

    def sandbox_uids(self) -> list[int | None]:
        """The host uid of each running zygote's sandbox (None: the worker's own uid)."""
        with self._lock:
            return [zygote.sandbox_uid for zygote in self._all]

    def has_cgroups(self) -> bool:
        """Whether the zygotes measure memory with a cgroup (v1 or v2)."""
        with self._lock:
            return bool(self._all) and all(z.cgroup_kind is not None for z in self._all)

    def close(self) -> None:
        if os.getpid() != self._pid:
            return  # a forked copy: the zygotes belong to the parent process
        # Let a replacement being started finish, so that it is closed too.
        with self._lock:
            warming = list(self._warming)
            self._warming.clear()
        concurrent.futures.wait(warming)
        with self._lock:
            zygotes = list(self._all)
            self._all.clear()
        for zygote in zygotes:
            zygote.close()
        # Last: the spawner thread's exit is what bwrap --die-with-parent watches.
        self._spawner.shutdown(wait=True)


_default: PythonJudge | None = None
_default_lock = threading.Lock()


def default_judge() -> PythonJudge:
    """The process-wide pool, created lazily (and again in a forked child)."""
    global _default
    with _default_lock:
        if _default is None or _default._pid != os.getpid():
            _default = PythonJudge()
        return _default


def judge_python(job: PythonJob) -> Verdict:
    """Judge one Python solution in the sandbox; never raises for bad input."""
    try:
        judge = default_judge()
    except Exception as exc:  # noqa: BLE001
        return judge_error(f"judge failure: {type(exc).__name__}")
    return judge.judge(job)


def _close_default() -> None:
    if _default is not None:
        _default.close()


atexit.register(_close_default)
