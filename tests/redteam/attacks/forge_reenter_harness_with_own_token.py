"""Re-enter the harness's judge with a job of our own, carrying a token we chose.

The re-entered judge arms the guard a second time, which is refused (arming is one way, once
per verdict); behind that, the host refuses the forged result channel (see forge_*).
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: armed once per verdict
import sys


def verify(solution, rng):
    judge = getattr(sys.modules["__main__"], "_judge")
    judge(
        {
            "token": "0" * 32,
            "seed": 1,
            "verifier": "def verify(s, r):\n    return True\n",
            "solution": "",
        }
    )
    return False
