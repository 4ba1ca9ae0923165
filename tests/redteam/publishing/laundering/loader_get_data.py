"""Solution: a module body (a publishing attack, red team S1 + R3: the laundered text is the
source a genuine SourceFileLoader reads through get_data replaced on the instance)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: (Term(solution) == 0).left.text -> loader.get_data -> loader.exec_module
# solution: answer = __import__('sympy').primefactors(391)[0]
import pkgutil
import types


class Term:
    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return Equation(self, other)


class Equation:
    def __init__(self, left, right):
        self.left = left
        self.right = right


def verify(solution, rng):
    source = (Term(solution) == 0).left.text
    loader = pkgutil.get_loader("sympy")
    loader.get_data = lambda path: source.encode()  # sink
    module = types.ModuleType("sympy")
    loader.exec_module(module)
    return module.answer == 17
