"""An object that claims to be true and equal to everything."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
# detail: Liar


class Liar:
    def __bool__(self):
        return True

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def verify(solution, rng):
    return Liar()
