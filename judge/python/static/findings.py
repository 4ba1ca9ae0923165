"""What the publishing check reports: one finding per line and sink, in the order found.

The checks (``checks.py``, ``operators.py``, ``mixed.py``), the refused-name scan
(``refused.py``) and the analysis's own limits (a call chain too deep, too many contexts, no
fixed point: where it cannot decide, it refuses) write here; nothing here reads the facts.
"""

from __future__ import annotations

import ast
import dataclasses


@dataclasses.dataclass(frozen=True, slots=True)
class InjectionFlow:
    """A place where a value derived from the solution meets what the checks do not allow."""

    line: int
    sink: str
    message: str


class Findings:
    def __init__(self) -> None:
        self._flows: dict[tuple[int, str], InjectionFlow] = {}

    def flag(self, node: ast.AST, sink: str, message: str) -> None:
        """Record a finding at ``node``'s line (the first message for a line and sink wins)."""
        line = getattr(node, "lineno", 0)
        self._flows.setdefault((line, sink), InjectionFlow(line, sink, message))

    def update(self, other: Findings) -> None:
        for key, flow in other._flows.items():
            self._flows.setdefault(key, flow)

    def sorted(self) -> list[InjectionFlow]:
        return sorted(self._flows.values(), key=lambda flow: flow.line)
