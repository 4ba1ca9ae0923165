"""What a verifier's author reads when preparing it fails: limits, positions, the audit's report."""

from __future__ import annotations

import json
from pathlib import Path

from judge.lean import project as gen
from judge.lean.limits import RunResult
from judge.lean.steps import first_error_position, read_report

# A failed audit build whose report names nothing is not an axiom problem: the generated audit
# (`import Verifier`, `import Lean`) did not elaborate beside this verifier. It still cannot be
# published unaudited (the audit is what proves it declares no `answer`).
AUDIT_UNBUILDABLE_MESSAGE = (
    "the judge's audit of this verifier could not be built (this is not an axiom problem): the "
    "generated audit imports `Verifier` and `Lean` together, so a verifier that declares a name "
    "Lean or Std also declares, or global notation or syntax that changes how the audit's text "
    "parses, stops it; rename such declarations or make the notation `scoped`/`local`"
)
RESERVED_ANSWER_MESSAGE = (
    "the verifier declares `answer`, the name a solution must define; rename it (an `answer` "
    "in the verifier would let `import Verifier` alone pass as a solution)"
)


def limit_message(result: RunResult, what: str, time_limit_s: float) -> str | None:
    if result.timed_out:
        return f"{what} did not finish within {time_limit_s:g} s"
    if result.memory_exceeded:
        return f"{what} used more memory than allowed"
    return None


def position_suffix(result: RunResult, filename: str) -> str:
    position = first_error_position(result.output_tail, filename)
    if position is None:
        return ""
    return f" (first error at line {position[0]}, column {position[1]})"


def audit_message(build: Path, widened: tuple[str, ...]) -> str | None:
    """What the audit's report names, or None when it names nothing (not an axiom problem)."""
    text = read_report(build, gen.AUDIT_REPORT)
    try:
        data = json.loads(text) if text is not None else None
    except ValueError:
        data = None
    if not isinstance(data, list) or not data:
        return None
    if any(isinstance(item, dict) and item.get("reserved") == "answer" for item in data):
        return RESERVED_ANSWER_MESSAGE
    not_axioms = [
        item["not_axiom"]
        for item in data[:10]
        if isinstance(item, dict) and isinstance(item.get("not_axiom"), str)
    ]
    if not_axioms:
        return (
            "the first line allows "
            + ", ".join(name[:200] for name in not_axioms)
            + ", which must be axioms the verifier declares (Comparator only permits axioms "
            "that exist in the challenge)"
        )
    pairs = [
        f"{item['declaration']} uses {item['axiom']}"
        for item in data[:10]
        if isinstance(item, dict)
        and isinstance(item.get("declaration"), str)
        and isinstance(item.get("axiom"), str)
    ]
    if not pairs:
        return None
    base = (
        "the verifier's own declarations must rest only on propext, Classical.choice and "
        "Quot.sound"
        + (f" (plus {', '.join(widened)}, which must be axioms it declares)" if widened else "")
        + "; a `sorry` in a helper lemma fails this audit"
    )
    # The author reads the audit of their own file: names from it are fine to show them.
    return base + ": " + "; ".join(pair[:300] for pair in pairs)
