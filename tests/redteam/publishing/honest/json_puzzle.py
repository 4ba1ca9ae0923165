"""Solution: text (honest: json.loads then checks on builtin data)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import json


def verify(solution, rng):
    data = json.loads(solution)
    if not isinstance(data, dict) or set(data) != {"a", "b"}:
        return False
    return int(data["a"]) + int(data["b"]) == 7
