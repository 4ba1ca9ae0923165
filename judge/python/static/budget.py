"""The CPU budget of one publishing check.

The check runs in the web process while an author waits (a publish, a dry run). The corpus's
verifiers take a few milliseconds each, but the analysis follows calls context by context and
asks whole-module questions per call site: red team 3 wrote a 79 kB verifier (20 helpers, each
passing 12 parameters on in two taint patterns) that cost 40 s of CPU within every cap the
analysis had, and a source may be 200 kB. Past its budget the check stops and refuses, with
advice, as it does for any verifier it cannot decide.
"""

from __future__ import annotations

import time

MAX_CPU_S = 5.0  # of this thread's CPU (a threaded web server runs other requests beside it)


class OverBudget(Exception):  # noqa: N818 -- a condition, not an error of the verifier's
    """The check spent its CPU budget; the verifier is refused."""


class Budget:
    def __init__(self, seconds: float | None = None) -> None:
        self._deadline = time.thread_time() + (MAX_CPU_S if seconds is None else seconds)

    def check(self) -> None:
        if time.thread_time() > self._deadline:
            raise OverBudget
