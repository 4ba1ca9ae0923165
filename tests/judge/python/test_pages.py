"""The zygote's heap is in huge pages, and the child's rehearsal leaves no trace in a verdict."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from judge.python import PythonJob, PythonJudge
from judge.sandbox import procs

ROOT = pathlib.Path(__file__).resolve().parents[3]
THP_MODE = pathlib.Path("/sys/kernel/mm/transparent_hugepage/enabled")

# Run in a fresh interpreter: reseeding touches the process's global generators.
STATES = """
import random, numpy, sympy.core.random as sympy_random
from sympy.core.symbol import Dummy
from judge.python import harness_pages, harness_user

def states():
    return (
        random.getstate(), repr(numpy.random.get_state()), sympy_random.rng.getstate(),
        sympy_random._assumptions_rng.getstate(), Dummy._prng.getstate(),
        Dummy._base_dummy_index, Dummy._count, dict(harness_user._seed_state),
    )

harness_user.reseed(1234)
alone = states()
harness_user.reseed(99)
harness_pages.rehearse(harness_user.reseed)
harness_user.reseed(1234)
print("same" if states() == alone else f"differ: {alone} != {states()}")
"""

DRAW = """
import random
import numpy
from sympy.core.random import rng

def verify(solution, rng_):
    raise ValueError(repr((random.random(), float(numpy.random.random()), rng.random())))
"""

EXPECTED = """
import random, numpy
from sympy.core.random import rng
from judge.python import harness_user

harness_user.reseed(4321)
print(repr((random.random(), float(numpy.random.random()), rng.random())))
"""


def _fresh_interpreter(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return done.stdout.strip()


def test_the_rehearsal_then_the_jobs_reseed_leave_every_generator_as_the_reseed_alone() -> None:
    assert _fresh_interpreter(STATES) == "same"


def test_a_verdict_draws_what_a_child_that_never_rehearsed_would(python_judge: PythonJudge) -> None:
    verdict = python_judge.judge(PythonJob(DRAW, "", seed=4321, time_limit_s=10))

    assert verdict.detail == f"ValueError: {_fresh_interpreter(EXPECTED)}"


def _zygote_pid(judge: PythonJudge) -> int:
    (zygote,) = judge._all  # noqa: SLF001 -- the test looks inside its own pool
    interpreter = os.path.realpath(sys.executable)
    (bwrap,) = zygote.host_pids
    pythons = []
    for pid in procs.descendants(bwrap):
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            if handle.read().split(b"\0")[0].decode() == interpreter:
                pythons.append(pid)
    parents = {pid: int(procs._stat_fields(pid)[1]) for pid in pythons}  # type: ignore[index]  # noqa: SLF001
    (root,) = [pid for pid, parent in parents.items() if parent not in parents]
    return root


def _anon_huge_kb(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1])
    raise AssertionError("no AnonHugePages line")


@pytest.mark.skipif(
    not THP_MODE.exists() or "[never]" in THP_MODE.read_text(),
    reason="transparent huge pages are off on this host",
)
def test_the_zygotes_heap_is_gathered_into_huge_pages() -> None:
    judge = PythonJudge(size=1)
    try:
        judge.warm_up()
        huge_kb = _anon_huge_kb(_zygote_pid(judge))
    finally:
        judge.close()

    assert huge_kb >= 16 * 1024  # ~50 MB here; 0 without the gathering


GC_STATE = """
import gc

def verify(solution, rng):
    raise ValueError(repr((gc.isenabled(), gc.get_threshold(), gc.get_freeze_count() > 50_000)))
"""


def test_a_verdict_collects_as_any_interpreter_with_the_zygotes_objects_frozen(
    python_judge: PythonJudge,
) -> None:
    """The zygote starts with the cyclic gc off (docs/performance.md); its children must not."""
    verdict = python_judge.judge(PythonJob(GC_STATE, "", seed=1, time_limit_s=10))

    assert verdict.detail == "ValueError: (True, (700, 10, 10), True)"
