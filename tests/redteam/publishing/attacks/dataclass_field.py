"""Solution: text (a publishing attack: a dataclass field holds the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a dataclass field holds the text
import dataclasses
import sympy


@dataclasses.dataclass
class Answer:
    text: str


def verify(solution, rng):
    answer = Answer(solution)
    return sympy.Matrix([[answer.text]])[0, 0] == 4
