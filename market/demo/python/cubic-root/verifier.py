"""Solution format: one expression in a and b, written like Python, that gives the real root of
x**3 + a*x - b = 0 for every a > 0 and b > 0. Allowed: integers, decimals, a, b,
+ - * / **, parentheses and the functions sqrt and cbrt (the real cube root).

Example of the format (not a solution): ``sqrt(a) + cbrt(b/2)``.
"""

import ast
import math

import numpy
from scipy.optimize import brentq

MAX_CHARS = 500
MAX_NODES = 200
CASES = 25
FUNCTIONS = {"sqrt": math.sqrt, "cbrt": lambda v: float(numpy.cbrt(v))}


class _Invalid(Exception):
    pass


def _check(node, budget):
    """Refuse anything outside the grammar above (the solution text is never evaluated)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _Invalid("expression too large")
    if isinstance(node, ast.Expression):
        _check(node.body, budget)
    elif isinstance(node, ast.Constant):
        if type(node.value) not in (int, float) or abs(node.value) > 1e6:
            raise _Invalid("bad constant")
    elif isinstance(node, ast.Name):
        if node.id not in ("a", "b"):
            raise _Invalid("unknown name")
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        _check(node.operand, budget)
    elif isinstance(node, ast.BinOp) and isinstance(
        node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
    ):
        _check(node.left, budget)
        _check(node.right, budget)
        if isinstance(node.op, ast.Pow) and not (
            isinstance(node.right, ast.Constant) and abs(node.right.value) <= 10
        ):
            raise _Invalid("exponents must be small constants")
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FUNCTIONS
        and len(node.args) == 1
        and not node.keywords
    ):
        _check(node.args[0], budget)
    else:
        raise _Invalid("not allowed: " + type(node).__name__)


def _value(node, a, b):
    if isinstance(node, ast.Expression):
        return _value(node.body, a, b)
    if isinstance(node, ast.Constant):
        return float(node.value)
    if isinstance(node, ast.Name):
        return a if node.id == "a" else b
    if isinstance(node, ast.UnaryOp):
        operand = _value(node.operand, a, b)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left, a, b), _value(node.right, a, b)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            return left / right
        return float(left**right)
    return FUNCTIONS[node.func.id](_value(node.args[0], a, b))


def _cubic(x, a, b):
    return x**3 + a * x - b


def verify(solution, rng):
    if not isinstance(solution, str) or not solution.strip() or len(solution) > MAX_CHARS:
        return False
    try:
        tree = ast.parse(solution.strip(), mode="eval")
        _check(tree, [MAX_NODES])
        for a, b in rng.uniform(0.1, 10.0, size=(CASES, 2)):
            a, b = float(a), float(b)
            root = brentq(_cubic, 0.0, max(1.0, b), args=(a, b), xtol=1e-14)
            claimed = _value(tree, a, b)
            if not (isinstance(claimed, float) and math.isfinite(claimed)):
                return False
            if abs(claimed - root) > 1e-7 * max(1.0, abs(root)):
                return False
        return True
    except Exception:
        return False
