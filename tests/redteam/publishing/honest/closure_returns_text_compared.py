"""Solution: text (honest: a nested helper returns the text, compared with a literal)."""


# ruff: noqa -- an example verifier, linted only for what it is meant to show
def verify(solution, rng):
    def cleaned():
        return solution.strip().lower()

    return cleaned() in {"yes", "true"}
