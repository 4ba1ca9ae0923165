"""Printing ACCEPTED decides nothing: stdout is never parsed."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import json


def verify(solution, rng):
    print("ACCEPTED")
    print(json.dumps({"verdict": "ACCEPTED"}), flush=True)
    return False
