"""An int subclass that prints and compares as True."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
# detail: FakeTrue
class FakeTrue(int):
    def __repr__(self):
        return "True"

    def __eq__(self, other):
        return True

    def __bool__(self):
        return True

    __hash__ = int.__hash__


def verify(solution, rng):
    return FakeTrue(1)
