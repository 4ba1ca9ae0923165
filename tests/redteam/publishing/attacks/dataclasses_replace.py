"""Solution: text (a publishing attack: dataclasses.replace(obj, text=solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: dataclasses.replace(obj, text=solution)
import sympy
import dataclasses


@dataclasses.dataclass
class Answer:
    text: str


def verify(solution, rng):
    answer = dataclasses.replace(Answer("0"), text=solution)
    return sympy.Matrix([[answer.text]])[0, 0] == 4
