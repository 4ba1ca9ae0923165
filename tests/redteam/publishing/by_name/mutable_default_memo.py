"""Solution: the name of a sympy function (a publishing attack: a mutable default outlives the
call that stored the text; a later call with no argument reads it back)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: remember(solution) stores into memo={}; remember() returns it; getattr(sympy, name)
# solution: primefactors
import sympy


def remember(text=None, memo={}):
    if text is not None:
        memo["text"] = text
    return memo.get("text", "")


def verify(solution, rng):
    remember(solution.strip())
    name = remember()
    return getattr(sympy, name)(391) == [17, 23]  # sink
