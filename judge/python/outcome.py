"""Decide a Verdict from what the sandbox observed, and keep host paths out of its detail."""

from __future__ import annotations

import functools
import math
import os
import pathlib
import signal
import sys
import sysconfig

from judge.sandbox.zygote import OUTPUT_CAP_BYTES, SandboxResult
from judge.verdict import Reason, Verdict, accepted, judge_error, rejected

_MB = 1024 * 1024


def _returned(type_name: str) -> str:
    if type_name == "bool":
        return "verify returned False"
    if type_name == "NoneType":
        return "verify returned None"
    article = "an" if type_name[:1].lower() in "aeiou" else "a"
    return f"verify returned {article} {type_name}, not True"


@functools.cache
def _host_prefixes() -> tuple[tuple[str, str], ...]:
    """Host locations the sandbox shows at their real paths, longest first, with stand-ins.
    Fixed for the process (two realpath() calls were ~0.2 ms of every verdict)."""
    pairs = {
        # The checkout the judge runs from (the harness is bound from it).
        str(pathlib.Path(__file__).resolve().parents[2]): "<judge>",
        os.path.realpath(sysconfig.get_paths()["purelib"]): "<site-packages>",
        os.path.realpath(sys.prefix): "<python>",
        os.path.realpath(sys.base_prefix): "<python>",
        sys.prefix: "<python>",
        sys.base_prefix: "<python>",
    }
    return tuple(sorted(pairs.items(), key=lambda pair: -len(pair[0])))


def redact_host_paths(text: str) -> str:
    """Hide where the host keeps its interpreter and libraries in text shown to a solver.

    The sandbox binds the interpreter and its stdlib at their host paths, so a traceback or
    ``os.__file__`` would tell a solver how the judge host is laid out.
    """
    for prefix, stand_in in _host_prefixes():
        if prefix and prefix != "/":
            text = text.replace(prefix, stand_in)
    return text


def to_verdict(
    result: SandboxResult,
    *,
    accept_token: str,
    seed: int,
    time_limit_s: float,
    memory_limit_mb: int,
) -> Verdict:
    """Decide a verdict from what the sandbox observed.

    Only a lone ``A<this verdict's token>`` frame followed by exit status 0 accepts.
    """
    common: dict[str, object] = {
        "seed": seed,
        "wall_time_s": round(result.wall_time_s, 6),
        "cpu_time_s": round(result.cpu_time_s, 6) if result.cpu_time_s is not None else None,
        "max_memory_mb": (
            round(result.peak_memory_bytes / _MB, 3)
            if result.peak_memory_bytes is not None
            else None
        ),
    }
    if result.timed_out:
        return rejected(
            Reason.TIME_LIMIT, f"time limit of {time_limit_s:g} s exceeded (wall clock)", **common
        )
    if result.oom_killed:
        return rejected(
            Reason.MEMORY_LIMIT, f"memory limit of {memory_limit_mb} MB exceeded", **common
        )
    if result.output_exceeded:
        return rejected(
            Reason.RUNTIME_ERROR,
            f"the verifier printed more than {OUTPUT_CAP_BYTES // _MB} MiB and was stopped",
            **common,
        )
    status = result.exit_status
    if status is None:
        return judge_error("the sandbox did not report how the verifier ended", **common)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        cpu = result.cpu_time_s or 0.0
        if number == signal.SIGXCPU or (
            number == signal.SIGKILL and cpu >= max(1, math.ceil(time_limit_s)) + 1 - 0.05
        ):
            return rejected(Reason.TIME_LIMIT, "CPU time limit exceeded", **common)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return rejected(Reason.RUNTIME_ERROR, f"the verifier process died ({name})", **common)
    code = os.WEXITSTATUS(status)
    # Setup failures of the child surface earlier, in Zygote.run (no credentials message):
    # by the time an exit status is reported, any status is the verifier's own doing.
    frames = result.frames
    if code != 0:
        return rejected(
            Reason.RUNTIME_ERROR, f"the verifier process exited with status {code}", **common
        )
    if frames is None or len(frames) > 1:
        return rejected(
            Reason.RUNTIME_ERROR, "the verifier wrote to the judge's result channel", **common
        )
    if not frames:
        return rejected(
            Reason.RUNTIME_ERROR, "the verifier process exited before verify returned", **common
        )
    frame = frames[0]
    if frame == b"A" + accept_token.encode():
        return accepted("verify returned True", **common)
    if frame[:1] == b"A":
        return rejected(
            Reason.RUNTIME_ERROR, "the verifier forged the judge's result channel", **common
        )
    kind, body = frame[:1], frame[1:].decode("utf-8", "replace")
    if kind == b"R":
        return rejected(Reason.WRONG_ANSWER, _returned(body), **common)
    if kind == b"M":
        return rejected(Reason.MEMORY_LIMIT, f"MemoryError (limit {memory_limit_mb} MB)", **common)
    if kind == b"E":
        type_name, _, message = body.partition("\n")
        type_name = redact_host_paths(type_name)[:100]
        generic = f"the verifier raised {type_name}" if type_name else "the verifier could not run"
        return rejected(
            Reason.RUNTIME_ERROR,
            redact_host_paths(message)[:400] or "exception",
            solver_detail=f"{generic} (the message is shown to the verifier's author only)",
            **common,
        )
    return rejected(
        Reason.RUNTIME_ERROR, "the verifier wrote to the judge's result channel", **common
    )
