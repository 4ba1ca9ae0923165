"""What goes into a sandboxed verdict, what comes out, and the host's handles on its child."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets


@dataclasses.dataclass(frozen=True, slots=True)
class SandboxRequest:
    verifier_source: str
    solution: str
    seed: int
    time_limit_s: float
    memory_limit_mb: int
    # A secret of this verdict alone: the harness's acceptance frame must carry it, so code
    # that writes a well-formed frame to the result fd and exits cannot forge an acceptance.
    accept_token: str = dataclasses.field(default_factory=lambda: secrets.token_hex(16))


@dataclasses.dataclass(frozen=True, slots=True)
class SandboxResult:
    """What happened to one verdict child; the Python judge turns it into a Verdict."""

    frames: tuple[bytes, ...] | None  # None: the result channel was malformed
    exit_status: int | None  # os.wait status; None if the zygote never reported
    timed_out: bool
    output_exceeded: bool
    oom_killed: bool
    wall_time_s: float
    cpu_time_s: float | None
    peak_memory_bytes: int | None
    output_head: bytes


@dataclasses.dataclass(slots=True)
class VerdictChild:
    """The host's ends of one pre-forked verdict child: its pidfd and its three pipes."""

    ns_pid: int
    host_pid: int
    pidfd: int
    job_w: int
    result_r: int
    output_r: int

    def close(self) -> None:
        for fd in (self.pidfd, self.job_w, self.result_r, self.output_r):
            with contextlib.suppress(OSError):
                os.close(fd)
