"""`values[k].append(text)` then `Matrix([[...]])`, which sympifies its entries: the inverse
of a matrix computed by the judge for the solver. Passes this tree's publishing check."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: (Matrix([[2, 1], [7, 4]])**-1)[0, 1]
import sympy


def verify(solution, rng):
    values = {"answer": []}
    values["answer"].append(solution)
    answer = sympy.Matrix([[values["answer"][0]]])[0, 0]
    return answer == sympy.Matrix([[2, 1], [7, 4]]).inv()[0, 1]
