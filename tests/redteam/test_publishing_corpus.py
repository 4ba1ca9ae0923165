"""The publishing check against a corpus of verifiers: attacks refused, honest code published.

Each file of publishing/attacks/ is a verifier whose solution text reaches sympy (which would
parse it as code, or count a library object as the solution's data) by a flow an analysis can
lose: containers and their aliases, closures, exceptions, generators, ``match``, defaults, own
dunders... Each must be refused for that flow, with its line and what to write instead. Each
file of publishing/honest/, and every demo verifier, must publish: the rules may not refuse the
ordinary version of the code. No sandbox is needed: the check reads the source only.
"""

from __future__ import annotations

import pathlib

import pytest

from judge.python import static_check

HERE = pathlib.Path(__file__).parent / "publishing"
ATTACKS = sorted((HERE / "attacks").glob("*.py"))
HONEST = sorted((HERE / "honest").glob("*.py"))
DEMO = sorted((HERE.parents[2] / "market" / "demo" / "python").glob("*/verifier.py"))


def test_the_corpus_has_its_size() -> None:
    assert (len(ATTACKS), len(HONEST), len(DEMO)) == (201, 25, 4)


@pytest.mark.parametrize("path", ATTACKS, ids=[path.stem for path in ATTACKS])
def test_publishing_refuses_the_attack_with_its_line_and_advice(path: pathlib.Path) -> None:
    report = static_check(path.read_text())

    assert report.ok is False
    # Refused for the flow, not for an incidental reason (an import, the shape, a docstring).
    assert report.injection_flows != ()
    assert len(report.errors) >= len(report.injection_flows)
    for flow in report.injection_flows:
        assert f"line {flow.line}: {flow.message}" in report.errors
        assert "instead" in flow.message  # every refusal says what to write instead


@pytest.mark.parametrize(
    "path", [*HONEST, *DEMO], ids=[p.parent.name + "/" + p.stem for p in [*HONEST, *DEMO]]
)
def test_honest_verifiers_publish(path: pathlib.Path) -> None:
    report = static_check(path.read_text())

    assert (report.ok, report.errors, report.injection_flows) == (True, (), ())
