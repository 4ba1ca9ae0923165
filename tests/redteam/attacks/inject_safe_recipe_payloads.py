"""The safe parser recipe turns every injection payload into a plain rejection."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
# solution: __import__('sys')._getframe(1)
import ast
from typing import Any

import sympy


def parse_math(
    text: str,
    symbols: dict[str, sympy.Basic] | None = None,
    *,
    max_length: int = 10_000,
    max_nodes: int = 2_000,
    max_depth: int = 60,
) -> sympy.Basic | tuple[sympy.Basic, ...]:
    """Parse ``text`` into a sympy expression (or a tuple of them); ValueError if not allowed."""
    names: dict[str, sympy.Basic] = {"pi": sympy.pi, "E": sympy.E, "I": sympy.I, "oo": sympy.oo}
    names.update(symbols or {})
    functions: dict[str, Any] = {
        "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "asin": sympy.asin,
        "acos": sympy.acos, "atan": sympy.atan, "sinh": sympy.sinh, "cosh": sympy.cosh,
        "tanh": sympy.tanh, "exp": sympy.exp, "log": sympy.log, "sqrt": sympy.sqrt,
        "Abs": sympy.Abs, "abs": sympy.Abs, "floor": sympy.floor, "ceiling": sympy.ceiling,
        "factorial": sympy.factorial, "binomial": sympy.binomial, "gcd": sympy.gcd,
        "Rational": sympy.Rational,
    }  # fmt: skip
    if not isinstance(text, str) or len(text) > max_length:
        raise ValueError("input is not text or is too long")
    if "__" in text or "\x00" in text:
        raise ValueError("input contains a forbidden sequence")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ValueError("not a valid expression") from exc
    if sum(1 for _ in ast.walk(tree)) > max_nodes:
        raise ValueError("expression too large")
    binary: dict[type, Any] = {
        ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
        ast.Div: lambda a, b: a / b,
    }  # fmt: skip

    def build(node: ast.AST, depth: int) -> Any:
        if depth > max_depth:
            raise ValueError("expression nested too deeply")
        if isinstance(node, ast.Expression):
            return build(node.body, depth + 1)
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError("only numeric literals are allowed")
            if isinstance(value, int):
                if value.bit_length() > 3322:  # about 1 000 decimal digits
                    raise ValueError("integer literal too long")
                return sympy.Integer(value)
            literal = repr(value)
            if any(mark in literal for mark in ("e", "n")):  # 1e+300, inf, nan
                return sympy.Float(value)
            return sympy.Rational(literal)
        if isinstance(node, ast.Name):
            if node.id in names:
                return names[node.id]
            raise ValueError(f"unknown name {node.id[:20]!r}")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = build(node.operand, depth + 1)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            left = build(node.left, depth + 1)
            right = build(node.right, depth + 1)
            if isinstance(node.op, ast.Pow):
                if right.is_number and (not right.is_finite or abs(right) > 1000):
                    raise ValueError("exponent too large")
                return sympy.Pow(left, right)
            operation = binary.get(type(node.op))
            if operation is None:
                raise ValueError("operator not allowed")
            return operation(left, right)
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in functions:
                raise ValueError("function not allowed")
            if node.keywords or len(node.args) > 3:
                raise ValueError("bad function arguments")
            return functions[node.func.id](*(build(arg, depth + 1) for arg in node.args))
        if isinstance(node, ast.Tuple):
            return tuple(build(element, depth + 1) for element in node.elts)
        raise ValueError(f"syntax not allowed: {type(node).__name__}")

    return build(tree, 0)


PAYLOADS = [
    "__import__('os')._exit(0)",
    "().__class__.__base__.__subclasses__()",
    "exec('import os')",
    "x.func.__globals__",
    "(lambda: 1)()",
    "2**10**10**10",
    "open('/etc/passwd')",
    "[c for c in ().__class__.__bases__]",
    "x if 1 else x",
    "sin(" * 200 + "x" + ")" * 200,
]


def verify(solution, rng):
    x = sympy.Symbol("x")
    for payload in PAYLOADS + [solution]:
        try:
            parse_math(payload, {"x": x})
        except ValueError:
            continue
        return True  # a payload got through the parser
    return False
