"""The safe expression parser: solution text -> sympy objects, without ``eval``.

``sympy.sympify`` and ``parse_expr`` evaluate their input with ``eval``; this parser never does.
It parses the text with :func:`ast.parse`, checks the tree against a fixed grammar and a
budget, and builds the sympy object itself, node by node: no string reaches ``sympify``.

Grammar: integer and decimal literals, the given symbols, ``pi``, ``E``, ``I``, ``oo``,
``+ - * / **``, unary ``+ -``, parentheses, calls of the listed functions with positional
arguments, and tuples (returned as Python tuples of sympy objects).

Budget (:class:`Budget`): the text's length, the number of syntax nodes, the nesting depth,
numeric exponents, and the size of every number the expression denotes. Each numeric
sub-expression carries an upper bound on ``log2 |value|`` and on ``log2 (1/|value|)``,
computed from the tree *before* sympy evaluates anything, so ``((10**1000)**1000)**1000``,
``factorial(10**6)`` or ``exp(exp(10**9))`` are refused at once instead of burning the
verdict's time budget.
"""

from __future__ import annotations

import ast
import dataclasses
import fractions
import math
import re
import types
from collections.abc import Callable, Mapping
from typing import Any

import sympy

__all__ = ["DEFAULT_FUNCTIONS", "Budget", "ParseError", "parse_math"]


class ParseError(ValueError):
    """The text is not an expression of the grammar, or it exceeds the budget."""


@dataclasses.dataclass(frozen=True, slots=True)
class Budget:
    max_length: int = 10_000  # characters
    max_nodes: int = 2_000  # syntax-tree nodes
    max_depth: int = 60  # nesting of the tree
    max_exponent: int = 1_000  # |e| of a numeric exponent
    max_literal_digits: int = 1_000  # decimal digits of one integer literal
    max_bits: int = 20_000  # log2 of the largest (or 1/smallest) number, ~6 000 digits


# Read-only: a verifier cannot widen the grammar for another verifier in the same process.
DEFAULT_FUNCTIONS: Mapping[str, Callable[..., Any]] = types.MappingProxyType({
    "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "asin": sympy.asin,
    "acos": sympy.acos, "atan": sympy.atan, "sinh": sympy.sinh, "cosh": sympy.cosh,
    "tanh": sympy.tanh, "exp": sympy.exp, "log": sympy.log, "sqrt": sympy.sqrt,
    "Abs": sympy.Abs, "abs": sympy.Abs, "floor": sympy.floor, "ceiling": sympy.ceiling,
    "factorial": sympy.factorial, "binomial": sympy.binomial, "gcd": sympy.gcd,
    "Rational": sympy.Rational,
})  # fmt: skip
# How many positional arguments each default function takes. Extra arguments are not more of
# the same: ``Rational(2, 2, 1)`` passes a gcd and builds an unreduced 2/2 that is != 1 and
# claims ``is_integer`` False; ``sqrt(4, 0)`` passes evaluate=False.
_ARITY: Mapping[str, tuple[int, ...]] = types.MappingProxyType(
    {name: (1,) for name in DEFAULT_FUNCTIONS}
    | {"log": (1, 2), "binomial": (2,), "gcd": (2,), "Rational": (1, 2)}
)
_CONSTANTS: Mapping[str, sympy.Basic] = types.MappingProxyType(
    {"pi": sympy.pi, "E": sympy.E, "I": sympy.I, "oo": sympy.oo}
)
_INFINITE = math.inf

# How each default function can grow its argument's bounds (m = log2 |x| bound, r = log2 1/|x|).
_EXPONENTIAL = frozenset({"exp", "sin", "cos", "tan", "sinh", "cosh", "tanh"})
_INVERSE_TRIG = frozenset({"asin", "acos", "atan"})


@dataclasses.dataclass(frozen=True, slots=True)
class _Bound:
    """Upper bounds on log2 |v| (big) and log2 1/|v| (small) of a numeric sub-expression."""

    big: float
    small: float


def _exp2(bits: float) -> float:
    return _INFINITE if bits > 1000 else 2.0**bits


def _bound_of_value(value: Any) -> _Bound | None:
    """Exact bounds of a sympy Rational or Float; None for anything else."""
    if isinstance(value, sympy.Rational):
        p, q = int(value.p), int(value.q)
        return _Bound(float(abs(p).bit_length()), float(q.bit_length()))
    if isinstance(value, sympy.Float):
        if not value.is_finite:
            return None
        exponent = math.frexp(float(value))[1] if abs(float(value)) != math.inf else _INFINITE
        return _Bound(float(max(0, exponent)), float(max(0, -exponent)))
    return None


_DECIMAL = re.compile(r"([0-9_]*)\.?([0-9_]*)(?:[eE]([+-]?[0-9_]+))?")


class _Builder:
    def __init__(
        self,
        names: Mapping[str, Any],
        functions: Mapping[str, Callable[..., Any]],
        budget: Budget,
        source: str = "",
    ) -> None:
        self.source = source
        self.names = names
        self.functions = functions
        self.budget = budget

    def check(self, bound: _Bound | None) -> _Bound | None:
        if bound is not None and max(bound.big, bound.small) > self.budget.max_bits:
            raise ParseError("a number in the expression is too large for the budget")
        return bound

    def build(self, node: ast.AST, depth: int) -> tuple[Any, _Bound | None]:
        """The sympy value of ``node`` and its bounds (None: not a number, e.g. it has x)."""
        value, bound = self.value_of(node, depth)
        self.check_merged_exponents(value)
        return value, bound

    def value_of(self, node: ast.AST, depth: int) -> tuple[Any, _Bound | None]:
        if depth > self.budget.max_depth:
            raise ParseError("expression nested too deeply")
        if isinstance(node, ast.Constant):
            if type(node.value) is float:
                return self.decimal(ast.get_source_segment(self.source, node) or "")
            return self.literal(node.value)
        if isinstance(node, ast.Name):
            if node.id not in self.names:
                raise ParseError(f"unknown name {node.id[:20]!r}")
            value = self.names[node.id]
            return value, self.bound_of(value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand, bound = self.build(node.operand, depth + 1)
            return (-operand if isinstance(node.op, ast.USub) else operand), bound
        if isinstance(node, ast.BinOp):
            return self.binary(node, depth)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        if isinstance(node, ast.Tuple) and depth == 1:
            return tuple(self.build(element, depth + 1)[0] for element in node.elts), None
        raise ParseError(f"syntax not allowed: {type(node).__name__}")

    def bound_of(self, value: Any) -> _Bound | None:
        exact = _bound_of_value(value)
        if exact is not None:
            return exact
        if value in (sympy.pi, sympy.E, sympy.I, sympy.oo, -sympy.oo, sympy.zoo):
            return _Bound(2.0, 1.0)
        return None  # a symbol or an expression of symbols

    def literal(self, value: object) -> tuple[Any, _Bound | None]:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ParseError("only numeric literals are allowed")
        if isinstance(value, int):
            if value.bit_length() > 3.33 * self.budget.max_literal_digits:
                raise ParseError("integer literal too long")
            number: Any = sympy.Integer(value)
        elif not math.isfinite(value):
            raise ParseError("the literal is not a finite number")
        else:
            raise ParseError("a decimal literal without its text")  # build() takes decimals
        return number, self.check(self.bound_of(number))

    def decimal(self, text: str) -> tuple[Any, _Bound | None]:
        """The exact number a decimal literal's TEXT says: ``0.32500000000000000001`` is not
        13/40 and ``9007199254740993.0`` is not 2**53 (a float would make both), ``1e300`` is
        10**300. Sized from the text before anything is built."""
        found = _DECIMAL.fullmatch(text)
        if found is None:
            raise ParseError("not a decimal literal")
        whole, fraction, exponent = (part.replace("_", "") for part in found.groups(""))
        digits = len(whole + fraction)
        scale = int(exponent or "0")
        if digits > self.budget.max_literal_digits:
            raise ParseError("decimal literal too long")
        # log2 of the value (or of 1/value) is below (digits + |scale|) * log2(10).
        if (digits + abs(scale)) * 3.33 > self.budget.max_bits:
            raise ParseError("a number in the expression is too large for the budget")
        number = sympy.Rational(fractions.Fraction(text))
        return number, self.check(self.bound_of(number))

    def binary(self, node: ast.BinOp, depth: int) -> tuple[Any, _Bound | None]:
        left, lb = self.build(node.left, depth + 1)
        right, rb = self.build(node.right, depth + 1)
        both = lb is not None and rb is not None
        bound: _Bound | None = None
        if isinstance(node.op, ast.Pow):
            bound = self.power_bound(right, lb, rb)
            self.check(bound)
            value = sympy.Pow(left, right)
        elif isinstance(node.op, ast.Add | ast.Sub):
            if both:
                assert lb is not None and rb is not None  # noqa: S101 -- narrowed above
                bound = _Bound(max(lb.big, rb.big) + 1, max(lb.small, rb.small) + 1)
            self.check(bound)
            value = left + right if isinstance(node.op, ast.Add) else left - right
        elif isinstance(node.op, ast.Mult | ast.Div):
            if both:
                assert lb is not None and rb is not None  # noqa: S101 -- narrowed above
                if isinstance(node.op, ast.Mult):
                    bound = _Bound(lb.big + rb.big, lb.small + rb.small)
                else:
                    bound = _Bound(lb.big + rb.small, lb.small + rb.big)
            self.check(bound)
            value = left * right if isinstance(node.op, ast.Mult) else left / right
        else:
            raise ParseError("operator not allowed")
        return value, self.check(self.bound_of(value) or bound)

    def check_merged_exponents(self, value: Any) -> None:
        """sympy merges powers: ``(x**1000)**1000`` is ``x**1000000`` and ``x**600 * x**600``
        is ``x**1200``, each exponent within the budget. The merged one must be too (a verifier
        that expands it would run out of time or memory)."""
        if isinstance(value, sympy.Pow):
            powers = [value]
        elif isinstance(value, sympy.Mul):
            powers = [arg for arg in value.args if isinstance(arg, sympy.Pow)]
        else:
            return
        for power in powers:
            exponent = power.exp
            if (
                isinstance(exponent, sympy.Rational | sympy.Float)
                and abs(exponent) > self.budget.max_exponent
            ):
                raise ParseError("exponent too large")

    def power_bound(self, exponent: Any, lb: _Bound | None, rb: _Bound | None) -> _Bound | None:
        if rb is None:
            if getattr(exponent, "is_number", False):
                raise ParseError("the exponent is a number too complicated for the budget")
            return None  # a symbolic exponent: x**y, 2**x
        if isinstance(exponent, sympy.Rational | sympy.Float):
            size = abs(float(exponent))
        else:
            size = _exp2(rb.big) + 2
        if size > self.budget.max_exponent:
            raise ParseError("exponent too large")
        if lb is None:
            return None
        growth = size + 4  # complex exponents can scale by e^(pi |Im e|)
        return _Bound(
            max(lb.big, lb.small) * growth + growth, max(lb.big, lb.small) * growth + growth
        )

    def call(self, node: ast.Call, depth: int) -> tuple[Any, _Bound | None]:
        if not isinstance(node.func, ast.Name) or node.func.id not in self.functions:
            raise ParseError("function not allowed")
        name = node.func.id
        if (
            node.keywords
            or len(node.args) > 3
            or any(isinstance(a, ast.Starred) for a in node.args)
        ):
            raise ParseError("bad function arguments")
        arity = _ARITY.get(name) if self.functions[name] is DEFAULT_FUNCTIONS.get(name) else None
        if arity is not None and len(node.args) not in arity:
            raise ParseError(f"{name}() takes {' or '.join(map(str, arity))} argument(s)")
        built = [self.build(argument, depth + 1) for argument in node.args]
        values = [value for value, _ in built]
        bounds = [bound for _, bound in built]
        bound = self.integer_bound(name, values) or self.function_bound(name, bounds)
        self.check(bound)
        function = self.functions[name]
        if (
            name in ("floor", "ceiling")
            and bound is not None
            and not all(isinstance(v, sympy.Rational | sympy.Float) for v in values)
        ):
            # Rounding an irrational number evaluates it numerically: leave that to the verifier.
            value = function(*values, evaluate=False)
        else:
            value = function(*values)
        return value, self.check(self.bound_of(value) or bound)

    def integer_bound(self, name: str, values: list[Any]) -> _Bound | None:
        """Tighter bounds of factorial(n) and binomial(n, k) for integers 0 <= k <= n < 2**40."""
        if not all(isinstance(v, sympy.Integer) and 0 <= int(v) < 2**40 for v in values):
            return None
        numbers = [int(v) for v in values]
        if name == "factorial" and len(numbers) == 1:
            return _Bound(math.lgamma(numbers[0] + 1) / math.log(2) + 1, 0.0)
        if name == "binomial" and len(numbers) == 2 and numbers[1] <= numbers[0]:
            n, k = numbers
            return _Bound(min(k, n - k) * math.log2(n + 1) + 1, 0.0)
        return None

    def function_bound(self, name: str, bounds: list[_Bound | None]) -> _Bound | None:
        if not bounds or any(b is None for b in bounds) or name not in DEFAULT_FUNCTIONS:
            return None  # symbolic, or an author's function: its result is measured if numeric
        big = max(b.big for b in bounds if b is not None)
        small = max(b.small for b in bounds if b is not None)
        if name in _EXPONENTIAL:
            grown = 1.45 * _exp2(big) + 1
            return _Bound(grown + small, grown + small)
        if name in _INVERSE_TRIG:
            return _Bound(big + 2, big + small + 2)
        if name == "log":
            return _Bound(math.log2(max(big, small) + 2) + 2, big + small + 2)
        if name == "sqrt":
            return _Bound(big / 2 + 1, small / 2 + 1)
        if name == "factorial":
            grown = _exp2(big) * (big + 1) + 1
            return _Bound(grown + small, grown + small)
        if name == "binomial":
            grown = _exp2(big) * (big + 1) + 1
            return _Bound(grown + small, grown + small)
        return _Bound(big + 1, big + small + 1)  # Abs, floor, ceiling, gcd, Rational


def parse_math(
    text: str,
    symbols: Mapping[str, sympy.Basic] | None = None,
    *,
    functions: Mapping[str, Callable[..., Any]] | None = None,
    budget: Budget | None = None,
    max_length: int | None = None,
    max_nodes: int | None = None,
    max_depth: int | None = None,
) -> Any:
    """Parse ``text`` into a sympy expression (a tuple of them for ``a, b``).

    ``symbols`` maps the names a solution may use to sympy objects; ``functions`` adds
    callables to the default functions (they receive sympy objects). Raises
    :class:`ParseError` (a ValueError) for anything outside the grammar or the budget, and
    TypeError for bad ``symbols``/``functions`` (the verifier's mistake, not the solution's).
    """
    limits = budget or Budget()
    overrides = {
        "max_length": max_length,
        "max_nodes": max_nodes,
        "max_depth": max_depth,
    }
    limits = dataclasses.replace(limits, **{k: v for k, v in overrides.items() if v is not None})
    names: dict[str, Any] = dict(_CONSTANTS)
    for name, value in (symbols or {}).items():
        if not (isinstance(name, str) and name.isidentifier() and isinstance(value, sympy.Basic)):
            raise TypeError("symbols must map identifiers to sympy objects")
        names[name] = value
    table: dict[str, Callable[..., Any]] = dict(DEFAULT_FUNCTIONS)
    for name, function in (functions or {}).items():
        if not (isinstance(name, str) and name.isidentifier() and callable(function)):
            raise TypeError("functions must map identifiers to callables")
        table[name] = function
    if not isinstance(text, str):
        raise ParseError("the input is not text")
    if len(text) > limits.max_length:
        raise ParseError("the input is too long")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ParseError("not a valid expression") from exc
    count = 0
    for _ in ast.walk(tree):
        count += 1
        if count > limits.max_nodes:
            raise ParseError("expression too large")
    builder = _Builder(names, table, limits, text.strip())
    try:
        value, _ = builder.build(tree.body, 1)
    except ParseError:
        raise
    except RecursionError as exc:
        raise ParseError("expression nested too deeply") from exc
    except Exception as exc:  # noqa: BLE001 -- sympy refusing a value (TypeError, ...) is a refusal
        raise ParseError(f"the expression cannot be built: {type(exc).__name__}") from exc
    _check_canonical(value)
    return value


def _check_canonical(value: Any) -> None:
    """Every rational number in the result is in lowest terms, as sympy's arithmetic assumes:
    an unreduced one compares unequal to its own value and lies about ``is_integer``."""
    for part in value if isinstance(value, tuple) else (value,):
        for node in sympy.preorder_traversal(part):
            if isinstance(node, sympy.Rational):
                p, q = int(node.p), int(node.q)
                reduced = q > 0 and math.gcd(p, q) == 1
                if not reduced or (q == 1 and not isinstance(node, sympy.Integer)):
                    raise ParseError("the expression builds a number sympy cannot compare")
