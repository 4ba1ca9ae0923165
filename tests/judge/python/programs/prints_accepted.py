"""Printing ACCEPTED decides nothing: stdout is never parsed."""
# expect: REJECTED WRONG_ANSWER
import json


def verify(solution, rng):
    print("ACCEPTED")
    print(json.dumps({"verdict": "ACCEPTED"}), flush=True)
    return False
