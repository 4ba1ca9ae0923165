"""How sandbox observations become verdicts: only a lone 'A<token>' frame + exit 0 accepts."""

from __future__ import annotations

import dataclasses
import signal
import struct

import pytest

from judge.python.runner import to_verdict
from judge.sandbox.zygote import SandboxResult, parse_frames

TOKEN = "5e1f0c"  # this verdict's secret (a fixed one, for the unit tests)
CLEAN = SandboxResult(
    frames=(b"A" + TOKEN.encode(),),
    exit_status=0,
    timed_out=False,
    output_exceeded=False,
    oom_killed=False,
    wall_time_s=0.01,
    cpu_time_s=0.005,
    peak_memory_bytes=2 * 1024 * 1024,
    output_head=b"",
)


def _verdict(**changes: object) -> tuple[str, str | None, str]:
    result = dataclasses.replace(CLEAN, **changes)
    verdict = to_verdict(result, accept_token=TOKEN, seed=3, time_limit_s=2.0, memory_limit_mb=64)
    return verdict.verdict.value, verdict.reason.value if verdict.reason else None, verdict.detail


def test_a_single_accept_frame_with_exit_zero_accepts() -> None:
    verdict = to_verdict(CLEAN, accept_token=TOKEN, seed=3, time_limit_s=2.0, memory_limit_mb=64)

    assert verdict.to_dict() == {
        "verdict": "ACCEPTED",
        "reason": None,
        "detail": "verify returned True",
        "seed": 3,
        "wall_time_s": 0.01,
        "cpu_time_s": 0.005,
        "max_memory_mb": 2.0,
        "judge_version": verdict.judge_version,
    }


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"frames": (b"A" + TOKEN.encode(),) * 2}, ("REJECTED", "RUNTIME_ERROR")),
        # A well-formed acceptance frame without this verdict's secret is a forgery.
        ({"frames": (b"A",)}, ("REJECTED", "RUNTIME_ERROR")),
        ({"frames": (b"A" + b"0" * 32,)}, ("REJECTED", "RUNTIME_ERROR")),
        ({"frames": None}, ("REJECTED", "RUNTIME_ERROR")),
        ({"frames": ()}, ("REJECTED", "RUNTIME_ERROR")),
        ({"frames": (b"Ajunk",)}, ("REJECTED", "RUNTIME_ERROR")),
        ({"exit_status": 1 << 8}, ("REJECTED", "RUNTIME_ERROR")),
        ({"exit_status": signal.SIGSEGV}, ("REJECTED", "RUNTIME_ERROR")),
        ({"exit_status": signal.SIGXCPU}, ("REJECTED", "TIME_LIMIT")),
        ({"exit_status": signal.SIGKILL, "cpu_time_s": 3.0}, ("REJECTED", "TIME_LIMIT")),
        ({"timed_out": True}, ("REJECTED", "TIME_LIMIT")),
        ({"oom_killed": True, "exit_status": signal.SIGKILL}, ("REJECTED", "MEMORY_LIMIT")),
        ({"output_exceeded": True}, ("REJECTED", "RUNTIME_ERROR")),
        ({"frames": (b"M",)}, ("REJECTED", "MEMORY_LIMIT")),
        ({"frames": (b"Rbool",)}, ("REJECTED", "WRONG_ANSWER")),
        ({"frames": (b"EValueError: bad",)}, ("REJECTED", "RUNTIME_ERROR")),
        ({"exit_status": None}, ("JUDGE_ERROR", None)),
        ({"exit_status": 70 << 8}, ("REJECTED", "RUNTIME_ERROR")),
    ],
)
def test_everything_else_rejects(changes: dict[str, object], expected: tuple[str, str]) -> None:
    assert _verdict(**changes)[:2] == expected


def test_a_timeout_wins_over_an_accept_frame_written_just_before() -> None:
    assert _verdict(timed_out=True)[:2] == ("REJECTED", "TIME_LIMIT")


def test_parse_frames_refuses_truncated_input() -> None:
    one = struct.pack(">I", 1) + b"A"

    assert parse_frames(one) == (b"A",)
    assert parse_frames(one + one) == (b"A", b"A")
    assert parse_frames(one[:-1]) is None
    assert parse_frames(b"\x00\x00") is None
    assert parse_frames(b"") == ()
