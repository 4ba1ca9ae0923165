"""Publishing checks of a Python verifier's source (no execution).

``static_check`` parses the module and reports: a top-level ``verify`` taking two positional
parameters; the imports (the allowlist in ``judge/python/imports.py``); the module docstring
(the solution format shown to solvers); and every place where a value derived from the
solution meets an operation that is not on the reviewed lists of ``rules.py`` (an allowlist:
sanitisers, pure propagators, the verifier's own code followed call by call). Dynamic features
the analysis cannot follow (``eval``, ``pickle``, ``numpy.load``, ``lambdify``, frames,
``getattr`` with a computed name...) are refused wherever they appear. Sound beats complete:
what the analysis cannot decide is refused, with the line and what to use instead. The taint
analysis computes facts only (``taint.py``); the checks read the settled facts afterwards
(``checks.py``), wired here by ``_taint_findings``.

Since issue 25 the wall is at run time (the harness refuses any text becoming code that no
programmer wrote); this check is the advice at publishing (it tells the author, with the
line, that the verifier would fail there) and the guard of sinks that are not code (a
computed ``getattr``, assumptions read from the text). See docs/python-static-check.md.
"""

from __future__ import annotations

import ast
import dataclasses
import logging

from judge.python.static import budget
from judge.python.static.checks import Checker
from judge.python.static.findings import Findings, InjectionFlow
from judge.python.static.refused import scan_refused
from judge.python.static.rules import ADVICE, SEE_BELOW
from judge.python.static.scope import ModuleIndex
from judge.python.static.shape import dynamic_import_errors, import_errors, verify_errors
from judge.python.static.taint import Analysis

logger = logging.getLogger(__name__)

__all__ = ["InjectionFlow", "StaticReport", "static_check"]

MAX_SOURCE_CHARS = 200_000


@dataclasses.dataclass(frozen=True, slots=True)
class StaticReport:
    ok: bool
    errors: tuple[str, ...]
    imports: tuple[str, ...]
    docstring: str | None
    injection_flows: tuple[InjectionFlow, ...]


def _refusal(message: str) -> StaticReport:
    return StaticReport(False, (message,), (), None, ())


INTERNAL_ERROR = (
    "internal error of the publishing check: the verifier is refused until it is fixed "
    "(the error is logged for the operators); instead, simplify the verifier or report it"
)


def static_check(source: str) -> StaticReport:
    """Check a verifier's source for publishing; never raises (fails closed: any unexpected
    exception is one "internal error, refused" finding and a log line)."""
    try:
        return _static_check(source)
    except (Exception, SystemExit):  # SystemExit: a library's code run on the host may raise it
        logger.exception("the Python static check failed on a verifier (refused)")
        return _refusal(INTERNAL_ERROR)


def _static_check(source: str) -> StaticReport:
    if not isinstance(source, str):
        return _refusal("the verifier source is not text")
    if len(source) > MAX_SOURCE_CHARS:
        return _refusal(f"the verifier source is longer than {MAX_SOURCE_CHARS} characters")
    try:
        tree = ast.parse(source, filename="verifier.py")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None)
        where = f" (line {line})" if line else ""
        return _refusal(f"syntax error{where}: {exc.__class__.__name__}")
    try:
        return _check_tree(tree)
    except (RecursionError, MemoryError):
        return _refusal("the verifier is too deeply nested for the checks to analyse")
    except budget.OverBudget:
        return _refusal(
            "the verifier is too large or too tangled for the publishing check to analyse "
            f"within its budget ({budget.MAX_CPU_S:g} s of CPU); instead, split the work into "
            "fewer, simpler functions that pass on fewer values"
        )


def _check_tree(tree: ast.Module) -> StaticReport:
    modules, errors = import_errors(tree)
    errors.extend(dynamic_import_errors(tree))
    verify, shape_errors = verify_errors(tree)
    errors.extend(shape_errors)
    docstring = ast.get_docstring(tree)
    if not docstring:
        errors.append("the module docstring (the solution format shown to solvers) is missing")
    index = ModuleIndex(tree)
    findings = Findings()
    scan_refused(index, findings.flag)
    if verify is not None:
        findings.update(_taint_findings(index, verify))
    flows = findings.sorted()
    errors.extend(f"line {flow.line}: {flow.message}" for flow in flows)
    if any(flow.message.endswith(SEE_BELOW) for flow in flows):
        errors.append(f"how to fix the lines above: {ADVICE}")  # once, not per finding
    return StaticReport(
        ok=not errors,
        errors=tuple(errors),
        imports=tuple(dict.fromkeys(modules)),
        docstring=docstring,
        injection_flows=tuple(flows),
    )


def _taint_findings(index: ModuleIndex, verify: ast.FunctionDef) -> Findings:
    """Facts, then checks: settle the taint facts to a fixed point, then check every analysed
    context against them. A check may ask for a context the facts did not reach (a callback
    the library calls with the solution, an own ``__contains__`` reached by ``in``); when that
    adds facts, the findings of that pass may rest on unsettled facts, so the facts are settled
    again and every context checked again, until a pass of the checks adds nothing (the facts'
    rounds are counted over all passes: ``taint.MAX_ROUNDS`` in all)."""
    analysis = Analysis(index)
    while True:
        settled = analysis.run(verify)  # False once its rounds are spent (a limit, refused)
        before = analysis.state()
        findings = Findings()
        checker = Checker(analysis, findings)
        checked: set[tuple[int, frozenset[str]]] = set()
        while pending := [key for key in analysis.contexts if key not in checked]:
            for key in pending:  # a check may add contexts: check those too
                checked.add(key)
                checker.check_context(analysis.contexts[key])
        if not settled or analysis.state() == before:
            break
    findings.update(analysis.limits)
    return findings
