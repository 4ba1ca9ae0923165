"""What the checks read from the taint analysis: the facts, as an interface.

``taint.py`` computes which names hold values derived from the solution (sources: ``verify``'s
first parameter, exceptions; propagation through assignments, containers and the verifier's
own calls; sanitisers end it), to a fixed point, and records every analysed context: a
function (or the module) with the names settled tainted in it. It reports nothing. The checks
(``checks.py``, ``mixed.py``, ``operators.py``) then read those facts context by context to
decide where a derived value meets a sink that is not on the reviewed lists, the source/sink
"models" split of Pysa or CodeQL. They depend on this interface, not on the analysis module,
so the modules import in one direction: ``taint``/``propagate`` -> ``facts`` <-
``checks``/``mixed``, wired together in ``__init__`` (facts, then checks, until neither adds
anything).
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Protocol

from judge.python.static.plain import Plainness
from judge.python.static.resolve import Function, Resolver
from judge.python.static.scope import ModuleIndex, Scope


@dataclasses.dataclass(frozen=True, slots=True)
class Context:
    """One analysed context: ``scope`` (a function, or the module) with the names settled
    tainted in it for one set of tainted parameters; ``nodes`` are the nodes it runs."""

    scope: Scope
    nodes: tuple[ast.AST, ...]
    tainted: frozenset[str]


class TaintFacts(Protocol):
    """The analysis as the checks see it."""

    index: ModuleIndex
    plain: Plainness
    resolver: Resolver
    global_tainted: set[str]
    tainted_classes: set[str]
    scope_tainted: dict[int, set[str]]
    # Names tainted in a function whatever its call passes (a closure's free names stored into
    # by a nested function, a mutable default stored into), by id of the function.
    closure_tainted: dict[int, set[str]]

    def is_tainted(self, node: ast.AST, tainted: set[str]) -> bool:
        """Whether ``node``'s value may be derived from the solution, ``tainted`` the names
        holding such values in its function."""

    def tainted_names_of(self, scope: Scope) -> set[str]:
        """The names of ``scope`` known tainted so far, its analysis in progress included (a
        dunder analysed from a comparison in it sees what its caller has found)."""

    def analyse(self, function: Function, tainted_names: frozenset[str]) -> bool:
        """Analyse one of the verifier's own functions with these parameters tainted (a
        callback, a dunder reached by an operator); whether its result is tainted. A new
        context is recorded for the checks; new facts make the driver settle them again."""
