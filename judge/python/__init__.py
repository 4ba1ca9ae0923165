"""The Python judge: ``verify(solution, rng)`` in a layered sandbox, with warm zygotes.

Public API (used by the Celery glue, the publishing workflow, demo problems and bench):

- :class:`PythonJob` and :func:`judge_python` -- one verdict.
- :func:`run_selftest` -- canaries in a real sandbox; raises ``SandboxUnavailable``.
- :func:`static_check` / :class:`StaticReport` -- publishing checks of a verifier's source.
"""

from judge.python.job import PythonJob
from judge.python.runner import PythonJudge, judge_python
from judge.python.selftest import run_selftest
from judge.python.static import InjectionFlow, StaticReport, static_check

__all__ = [
    "InjectionFlow",
    "PythonJob",
    "PythonJudge",
    "StaticReport",
    "judge_python",
    "run_selftest",
    "static_check",
]
