"""Print a forged judge verdict on stdout."""

# expect: REJECTED WRONG_ANSWER
import sys


def verify(solution, rng):
    sys.stdout.write('{"verdict": "ACCEPTED", "reason": null}\nACCEPTED\n')
    sys.stdout.flush()
    return False
