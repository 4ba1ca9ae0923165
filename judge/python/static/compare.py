"""What a comparison evaluates to, for the taint analysis: a bool, or what an own dunder returns.

``a == b`` calls ``a.__eq__(b)`` (the reflected dunder first for a subclass) and hands back
whatever it returns. A builtin type's comparison returns a bool, but a verifier's own
``__eq__`` may return ``self.text`` or ``Equation(self, other)`` holding it:
``(Term(solution) == 0).left.text`` once laundered the text, counted as a plain bool. Lists and
tuples compare their elements with those same dunders and return the deciding element's result
as it is (``[Term(solution)] < [0]``), so the operands' own types alone do not settle it.

The rule (allow, don't deny): a comparison is a plain bool when its operator cannot run an own
dunder's return value back out (``is``, ``is not``; ``in`` and ``not in`` convert
``__contains__``'s result to a bool), when no operand is derived from the solution (an own
dunder that hands out the solution's data with clean arguments taints its class: see
``Analysis._taint_classes_handing_out_state``), or when no rich comparison dunder the verifier
wrote returns the solution's data, each analysed as a call with every parameter tainted: in
any class (the analysis does not type every operand) but an own class that holds nothing of
the solution. One the analysis cannot follow (a
decorated def, a dunder bound by assignment, ``setattr``, a ``type()`` namespace) makes every
comparison of the solution's data count as the solution's data.
"""

from __future__ import annotations

import ast

from judge.python.static.facts import TaintFacts
from judge.python.static.resolve import Function
from judge.python.static.scope import all_params_of

# The rich comparison dunders. One group: functools.total_ordering and dataclass(order=True)
# build each from the others (``__le__`` returns ``__lt__``'s result when it is true).
COMPARISON_DUNDERS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"})
# Operators whose result is a bool whatever the operands' dunders return.
_ALWAYS_BOOL = (ast.Is, ast.IsNot, ast.In, ast.NotIn)


class Comparisons:
    def __init__(self, analysis: TaintFacts) -> None:
        self.a = analysis
        self._dunders: list[Function] | None = None
        self._dunders_known = False

    def tainted(self, node: ast.Compare, tainted: set[str]) -> bool:
        """Whether the comparison's value may be (or hold) the solution's data."""
        left = node.left
        operands: list[ast.expr] = []
        for op, right in zip(node.ops, node.comparators, strict=True):
            if not isinstance(op, _ALWAYS_BOOL):
                operands += [left, right]
            left = right
        if not operands:
            return False
        dunders = self.dunders()
        if dunders == []:
            return False  # every comparison the verifier can reach is a builtin one: a bool
        if not any(self.a.is_tainted(operand, tainted) for operand in operands):
            return False
        if dunders is None:
            return True
        return any(
            self.a.analyse(function, frozenset(all_params_of(function)))
            for function in dunders
            if self._reachable(function)
        )

    def _reachable(self, function: Function) -> bool:
        """Whether the solution's data may be an operand of ``function``: not when it is a
        method of an own class that holds nothing of the solution. An instance of it is not
        the solution's data, and the solution's data meeting it is refused by the checks (a
        value that is neither the solution's data nor plain), so its dunder only ever sees
        clean operands (and one that hands out module state taints its class). A metaclass
        or a class built on a library class is not an own class: its dunders are followed."""
        cls = self.a.index.method_class.get(id(function))
        if cls is None:
            parent = self.a.index.parents.get(id(function))  # __eq__ = lambda ... in the body
            grandparent = self.a.index.parents.get(id(parent)) if parent is not None else None
            cls = grandparent if isinstance(grandparent, ast.ClassDef) else None
        if cls is None or self.a.resolver.own_class(cls.name) is not cls:
            return True
        return cls.name in self.a.tainted_classes

    def dunders(self) -> list[Function] | None:
        """The rich comparison dunders the verifier wrote, or None if one cannot be followed."""
        if not self._dunders_known:
            self._dunders = _comparison_dunders(self.a)
            self._dunders_known = True
        return self._dunders


def _comparison_dunders(a: TaintFacts) -> list[Function] | None:  # noqa: C901 -- per node kind
    found: list[Function] = []
    assigned: set[int] = set()
    for node in ast.walk(a.index.tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in COMPARISON_DUNDERS:
                    # __eq__ = lambda self, other: ... or __eq__ = _compare: followed.
                    own = (
                        [node.value]
                        if isinstance(node.value, ast.Lambda)
                        else a.resolver.functions(node.value)
                    )
                    if not own:
                        return None
                    found.extend(own)
                    assigned.add(id(target))
    for node in ast.walk(a.index.tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name in COMPARISON_DUNDERS:
                if not a.resolver.transparent(node):
                    return None
                found.append(node)
        elif isinstance(node, ast.Name) and node.id in COMPARISON_DUNDERS:
            if isinstance(node.ctx, ast.Store) and id(node) not in assigned:
                return None
        elif isinstance(node, ast.Attribute) and node.attr in COMPARISON_DUNDERS:
            if isinstance(node.ctx, ast.Store | ast.Del):
                return None  # Box.__eq__ = ...
        elif isinstance(node, ast.Constant) and node.value in COMPARISON_DUNDERS:
            return None  # setattr(Box, "__eq__", ...), type("Box", (), {"__eq__": ...})
        elif isinstance(node, ast.alias) and (node.asname or node.name) in COMPARISON_DUNDERS:
            return None
    return found
