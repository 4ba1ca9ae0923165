"""Real attacks against the Python judge. Each asserts the verdict AND that the host saw nothing.

Every program in attacks/ states its expected verdict in its header (see
tests/judge/python/program_cases.py). An attack that "succeeds" makes verify return True, so
a broken layer shows up as ACCEPTED; an attack that is blocked surfaces as the errno of the
layer that blocked it, which the `detail:` line pins.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import pathlib
import socket
import sysconfig

import numpy
import pytest

from judge.python import PythonJob, PythonJudge, static_check
from tests.judge.python.program_cases import ProgramCase, load_cases

ATTACKS = pathlib.Path(__file__).parent / "attacks"
# The checkout under test, wherever it was cloned: attacks aim at its real source and venv.
PROJECT_ROOT = str(pathlib.Path(__file__).resolve().parents[2])
HOST_SITE_PACKAGES = sysconfig.get_paths()["purelib"]  # the venv's, with django & co.
CASES = load_cases(ATTACKS)
PWNED_PATHS = [
    pathlib.Path("/tmp/redteam_pwned"),
    pathlib.Path("/dev/shm/redteam_pwned"),
    pathlib.Path("/redteam_pwned"),
    pathlib.Path("/redteam_pwned.txt"),
    pathlib.Path("/judge"),
    pathlib.Path(numpy.__file__).parent / "redteam_pwned.py",
]


def _stat(path: str) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_size, info.st_mtime_ns


DEVICES = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")
_libc = ctypes.CDLL(None, use_errno=True)


def _devices() -> dict[str, tuple[int, int, int, int, int, int]]:
    """Mode, inode, owner, group, device number and change time of the host's device nodes."""
    found = {}
    for device in DEVICES:
        info = os.stat(device)
        found[device] = (
            info.st_mode,
            info.st_ino,
            info.st_uid,
            info.st_gid,
            info.st_rdev,
            info.st_ctime_ns,
        )
    return found


def _root_can_watch_files() -> bool:
    """The host's root (this test process) can still create an inotify instance and a watch."""
    fd = _libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0:
        return False
    try:
        return _libc.inotify_add_watch(fd, b"/", 0x100) >= 0  # IN_CREATE
    finally:
        os.close(fd)


def _root_can_create_a_timer() -> bool:
    """The host's root can still create a POSIX timer (timer_create failed with EAGAIN)."""
    timer = ctypes.c_void_p()
    if _libc.syscall(222, 1, None, ctypes.byref(timer)) != 0:  # timer_create(MONOTONIC)
        return False
    _libc.syscall(226, timer)  # timer_delete
    return True


def test_there_are_at_least_45_attacks() -> None:
    assert len(CASES) >= 45


@pytest.mark.parametrize("case", CASES, ids=[case.path.stem for case in CASES])
def test_attack_is_contained(
    redteam_judge: PythonJudge,
    host_listeners: tuple[socket.socket, socket.socket],
    case: ProgramCase,
) -> None:
    tcp, udp = host_listeners
    source = case.job.verifier_source.replace("{{TCP_PORT}}", str(tcp.getsockname()[1]))
    source = source.replace("{{UDP_PORT}}", str(udp.getsockname()[1]))
    source = source.replace("{{PROJECT_ROOT}}", PROJECT_ROOT)
    source = source.replace("{{HOST_SITE_PACKAGES}}", HOST_SITE_PACKAGES)
    job = dataclasses.replace(case.job, verifier_source=source)
    stdlib_os = os.__file__
    before = _stat(stdlib_os)
    existed = {path: path.exists() for path in PWNED_PATHS}
    devices = _devices()

    verdict = redteam_judge.judge(job)

    assert (verdict.verdict.value, verdict.reason.value if verdict.reason else None) == (
        case.verdict,
        case.reason,
    ), verdict.detail
    if case.detail is not None:
        assert case.detail in verdict.detail
    # Containment, seen from the host.
    with pytest.raises(BlockingIOError):
        tcp.accept()
    with pytest.raises(BlockingIOError):
        udp.recvfrom(100)
    assert {path: path.exists() for path in PWNED_PATHS} == existed
    assert _stat(stdlib_os) == before
    assert redteam_judge.leftover_processes() == []
    # The host's device nodes, and root's own inotify and timers, are as they were.
    assert _devices() == devices
    assert _root_can_watch_files()
    assert _root_can_create_a_timer()
    # Nothing of the host leaks into the detail shown to the solver (beyond what the program
    # itself named).
    for marker in (PROJECT_ROOT, ".venv", "DATABASE_URL", "REDIS_URL"):
        if marker not in source:
            assert marker not in verdict.detail


def test_nothing_of_one_verdict_is_visible_to_the_next(redteam_judge: PythonJudge) -> None:
    plant = (
        "import json\nimport numpy\n"
        "def verify(solution, rng):\n"
        "    json.PLANTED = solution\n"
        "    numpy.PLANTED = solution\n"
        "    return True\n"
    )
    look = (
        "import json\nimport numpy\n"
        "def verify(solution, rng):\n"
        "    return hasattr(json, 'PLANTED') or hasattr(numpy, 'PLANTED')\n"
    )
    first = redteam_judge.judge(PythonJob(plant, "secret", seed=1, time_limit_s=5))
    second = redteam_judge.judge(PythonJob(look, "", seed=1, time_limit_s=5))

    assert first.verdict.value == "ACCEPTED"
    assert (second.verdict.value, second.reason.value if second.reason else None) == (
        "REJECTED",
        "WRONG_ANSWER",
    )


def test_the_same_seed_reproduces_the_verdict(redteam_judge: PythonJudge) -> None:
    source = "def verify(solution, rng):\n    return int(rng.integers(0, 2)) == int(solution)\n"
    verdicts = {
        redteam_judge.judge(PythonJob(source, "1", seed=seed, time_limit_s=5)).verdict.value
        for seed in (5, 5, 5)
    }

    assert len(verdicts) == 1


@pytest.mark.parametrize(
    ("name", "sink"),
    [
        ("inject_sympify_frame_forgery", "sympy.sympify"),
        ("inject_sympify_exec_payload", "sympy.sympify"),
        ("inject_eval_payload", "eval"),
        ("inject_pickle_payload", "pickle.loads"),
        ("inject_aliased_sympify_payload", "sympy.sympify"),
        ("inject_getattr_parse_expr_payload", "getattr parse_expr"),
        ("inject_sympify_fullwidth_frame_forgery", "sympy.sympify"),
        ("inject_eval_inspect_stack_forgery", "eval"),
    ],
)
def test_publishing_refuses_verifiers_with_injection_flows(name: str, sink: str) -> None:
    report = static_check((ATTACKS / f"{name}.py").read_text())

    assert report.ok is False
    assert sink in {flow.sink for flow in report.injection_flows}
    assert all(f"line {flow.line}:" in " ".join(report.errors) for flow in report.injection_flows)


def test_publishing_accepts_the_safe_recipe() -> None:
    report = static_check((ATTACKS / "inject_safe_recipe_payloads.py").read_text())

    assert report.injection_flows == ()
    assert report.errors == ()
    assert report.ok is True
