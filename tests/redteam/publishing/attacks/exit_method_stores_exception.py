"""Solution: text (a publishing attack: __exit__ stores the exception's args)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: __exit__ stores the exception's args
import sympy


class Catch:
    text = 0

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        self.text = error.args[0]
        return True


def verify(solution, rng):
    box = Catch()
    with box:
        raise ValueError(solution)
    return sympy.Matrix([[box.text]])[0, 0] == 4
