"""Solution format: one expression F in the variable x, written like Python, whose derivative
is x**2 * exp(x). Allowed: integers, x, + - * / **, parentheses and the functions
exp, log, sin, cos, sqrt. A constant of integration may be added or left out.

Example of the format (not a solution): ``x**3/3 + sin(x)``.
"""

import ast

import sympy

X = sympy.Symbol("x", real=True)
INTEGRAND = X**2 * sympy.exp(X)
FUNCTIONS = {
    "exp": sympy.exp,
    "log": sympy.log,
    "sin": sympy.sin,
    "cos": sympy.cos,
    "sqrt": sympy.sqrt,
}
MAX_CHARS = 500
MAX_NODES = 200
MAX_INT = 10**6
MAX_EXPONENT = 20


class _Invalid(Exception):
    pass


def _build(node, budget):
    """A sympy expression from a whitelisted AST node (the solution text is never evaluated)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _Invalid("expression too large")
    if isinstance(node, ast.Expression):
        return _build(node.body, budget)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        if abs(node.value) > MAX_INT:
            raise _Invalid("integer too large")
        return sympy.Integer(node.value)
    if isinstance(node, ast.Name) and node.id == "x":
        return X
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        operand = _build(node.operand, budget)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left = _build(node.left, budget)
        right = _build(node.right, budget)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            if right == 0:
                raise _Invalid("division by zero")
            return left / right
        if isinstance(node.op, ast.Pow):
            if not (right.is_Integer and abs(int(right)) <= MAX_EXPONENT):
                raise _Invalid("exponents must be small integers")
            return left**right
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FUNCTIONS
        and len(node.args) == 1
        and not node.keywords
    ):
        return FUNCTIONS[node.func.id](_build(node.args[0], budget))
    raise _Invalid("not allowed: " + type(node).__name__)


def parse(text):
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_CHARS:
        raise _Invalid("empty or too long")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError) as exc:
        raise _Invalid("syntax") from exc
    return _build(tree, [MAX_NODES])


def verify(solution, rng):
    try:
        candidate = parse(solution)
        difference = sympy.diff(candidate, X) - INTEGRAND
        # A numeric check at random points first (cheap, and reproducible from the seed) ...
        for point in rng.uniform(-3.0, 3.0, size=8):
            value = complex(difference.evalf(subs={X: float(point)}))
            if not abs(value) <= 1e-8 * (1 + abs(complex(INTEGRAND.evalf(subs={X: float(point)})))):
                return False
        # ... then the exact one.
        return sympy.simplify(difference) == 0
    except Exception:
        return False
