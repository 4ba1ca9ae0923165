"""Details shown to solvers never reveal where the judge host keeps its interpreter."""

from __future__ import annotations

import os
import sys
import sysconfig

from judge.python import PythonJob, judge_python
from judge.verdict import Reason

LEAKY = '''"""Format: anything."""
import os
import numpy


def verify(solution, rng):
    raise ValueError(os.__file__ + " | " + numpy.__file__)
'''


def test_exception_detail_hides_host_paths() -> None:
    verdict = judge_python(PythonJob(LEAKY, "x", seed=1, time_limit_s=10, memory_limit_mb=256))

    assert verdict.reason is Reason.RUNTIME_ERROR
    assert verdict.detail == (
        # The four libraries are bound at a sandbox path already; the stdlib at its host path.
        "ValueError: <python>/lib/python{}.{}/os.py | /judge/site/numpy/__init__.py".format(
            *sys.version_info[:2]
        )
    )
    for host_path in (sys.base_prefix, sys.prefix, sysconfig.get_paths()["purelib"]):
        assert os.path.realpath(host_path) not in verdict.detail
