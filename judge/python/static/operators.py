"""Where the solution's data meets another value in an operator, a comparison or a subscript.

The other value must be data too: derived from the solution, or plain builtin data. A sympy or
numpy object there would receive the solution's text (``Point(3, 4) * solution`` sympifies it),
and an unknown container's ``__contains__`` or ``__getitem__`` would run with it. What the
comparison itself evaluates to is the analysis's (``compare.py``); these are the checks.
"""

from __future__ import annotations

import ast

from judge.python.static.facts import TaintFacts
from judge.python.static.findings import Findings
from judge.python.static.mixed import MixedContainers
from judge.python.static.rules import OTHER_ADVICE, SEE_BELOW
from judge.python.static.scope import all_params_of, describe

OPERATORS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.MatMult: "@", ast.Div: "/",
    ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
    ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&", ast.Eq: "==", ast.NotEq: "!=",
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.In: "in", ast.NotIn: "not in",
}  # fmt: skip


class OperatorChecks:
    def __init__(self, analysis: TaintFacts, mixed: MixedContainers, findings: Findings) -> None:
        self.a = analysis
        self.index = analysis.index
        self.mixed = mixed
        self.findings = findings

    def check_operands(
        self,
        node: ast.AST,
        left: ast.AST,
        right: ast.AST,
        symbol: str,
        tainted: set[str],
        *,
        comparison: bool = False,
    ) -> None:
        left_tainted = self.a.is_tainted(left, tainted)
        right_tainted = self.a.is_tainted(right, tainted)
        if not (left_tainted or right_tainted):
            return
        for other in (right, left):  # each must be data: derived from the solution, or plain
            if comparison and self.a.plain.is_class_literal(other):
                continue  # type(x) == int: the classes compare by identity
            if self.mixed.foreign(other, tainted):
                self.findings.flag(
                    node,
                    f"operator {symbol}",
                    f"the solution meets {describe(other)} in `{symbol}`, an object the "
                    f"checks cannot type (sympy objects sympify the other operand); {OTHER_ADVICE}",
                )
                return

    def check_compare(self, node: ast.Compare, tainted: set[str]) -> None:
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, ast.Is | ast.IsNot):
                left = right
                continue
            if isinstance(op, ast.In | ast.NotIn) and self.a.is_tainted(left, tainted):
                scope = self.index.scope(right)
                cls = self.a.resolver.receiver_class(right, scope)
                contains = self.a.resolver.method(cls, "__contains__") if cls else []
                if contains:
                    # `solution in answers` runs the verifier's own __contains__: analyse it
                    # with the solution as its argument.
                    for method in contains:
                        self.a.analyse(method, frozenset(all_params_of(method)))
                    left = right
                    continue
                # A dict's keys are compared, a list's elements all are: those must be plain.
                container_ok = self.a.is_tainted(right, tainted) or (
                    self.a.plain.is_plain(right, scope)
                    or self.a.resolver.own_enum(right)
                    or self.a.plain.is_class_literal(right)
                    or (
                        self.a.plain.is_dict(right, scope)
                        and self.a.plain.has_plain_keys(right, scope)
                    )
                )
                if not container_ok:
                    self.findings.flag(
                        node,
                        f"operator {OPERATORS[type(op)]}",
                        f"the solution is looked up in {describe(right)}, an object the "
                        f"checks cannot type; {OTHER_ADVICE}",
                    )
            else:
                symbol = OPERATORS[type(op)]
                self.check_operands(node, left, right, symbol, tainted, comparison=True)
            left = right

    def check_subscript(self, node: ast.Subscript, tainted: set[str]) -> None:
        value_tainted = self.a.is_tainted(node.value, tainted)
        key_tainted = self.a.is_tainted(node.slice, tainted)
        scope = self.index.scope(node)
        if key_tainted and not value_tainted:
            if not (
                self.a.plain.has_plain_keys(node.value, scope)
                or self.a.resolver.own_enum(node.value)
            ):
                self.findings.flag(
                    node,
                    "subscript",
                    f"the solution indexes {describe(node.value)}, an object the checks "
                    "cannot type; instead, index a dict, list or str the verifier built (a "
                    f"display of literals), or convert the text first (int(); {SEE_BELOW}",
                )
        elif value_tainted and not key_tainted and not self.a.plain.is_plain(node.slice, scope):
            self.findings.flag(
                node,
                "subscript",
                f"a value derived from the solution is indexed with {describe(node.slice)}, "
                "which is not a plain number or string; instead, index with an int() or a "
                "literal",
            )
