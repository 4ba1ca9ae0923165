"""Solution: the name of a sympy function (a publishing attack: the memo default is read
through __defaults__, with no call to follow)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: keep(solution) stores into memo={}; keep.__defaults__[0]["t"] reads it
# solution: primefactors
import sympy


def keep(text, memo={}):
    memo["t"] = text
    return len(text)


def verify(solution, rng):
    keep(solution.strip())
    name = keep.__defaults__[0]["t"]  # sink
    return getattr(sympy, name)(391) == [17, 23]
