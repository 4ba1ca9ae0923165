"""The publishing check against a corpus of verifiers: attacks refused, honest code published.

Each file of publishing/attacks/ is a verifier whose solution text reaches sympy (which would
parse it as code, or count a library object as the solution's data) by a flow an analysis can
lose: containers and their aliases, closures, exceptions, generators, ``match``, defaults, own
dunders... Each must be refused for that flow, with its line and what to write instead. Each
file of publishing/honest/, and every demo verifier, must publish: the rules may not refuse the
ordinary version of the code. No sandbox is needed: the check reads the source only.

Each file of publishing/by_name/ lets the solution's text pick a library object by name
(``getattr``, ``attrgetter``, ``pkgutil.resolve_name``, a format string's fields...), after
laundering it through module state read back by a property, a hook sympy's printer calls, a
default...: a sink that is not code, which the run-time rule does not see (judged raw, each is
ACCEPTED: ``test_publishing_corpus_at_run_time.py``). Publishing is their wall: each must be
refused with a finding at the line marked ``# sink``.

Each file of publishing/laundering/ launders the solution's text through a value the analysis
once counted clean, then hands it to a sink: a comparison whose own dunder returns the text
(``(Term(solution) == 0).left.text``, ``!=``, ``<``, reflected, chained, list comparisons) or a
class read through ``type(instance)`` (red team 2026-12-06, S1 and S2; several reach
``dataclasses._create_fn`` or a loader's ``get_data``, which the run-time rule admitted). Each
must be refused with a finding at the line marked ``# sink``, where the text arrives.

Red team 2 (2026-12-06): each file of publishing/by_object/ reaches a library object without
the name the tables know (a module obtained as a value by ``import_module`` or by a resolver
and then stored into, ``type(operator.attrgetter(...))`` and ``.__class__``, ``operator``,
``builtins``, ``pydoc``, ``inspect`` re-exported by mpmath, scipy or sympy, ``sympy.var``
writing the verifier's globals); each file of publishing/rebuilt_text/ rebuilds the solution's
text from numbers (``chr(ord(s))``, ``bytes``, ``to_bytes``, ``%c``, ``format(n, "c")``, a
literal alphabet indexed by the solution's numbers...) and hands it to a library call. Each
must be refused with a finding at the line marked ``# sink``.
"""

from __future__ import annotations

import pathlib

import pytest

from judge.python import static_check

HERE = pathlib.Path(__file__).parent / "publishing"
ATTACKS = sorted((HERE / "attacks").glob("*.py"))
HONEST = sorted((HERE / "honest").glob("*.py"))
BY_NAME = sorted((HERE / "by_name").glob("*.py"))
LAUNDERING = sorted((HERE / "laundering").glob("*.py"))
BY_OBJECT = sorted((HERE / "by_object").glob("*.py"))
REBUILT_TEXT = sorted((HERE / "rebuilt_text").glob("*.py"))
AT_SINK = [*BY_NAME, *LAUNDERING, *BY_OBJECT, *REBUILT_TEXT]
DEMO = sorted((HERE.parents[2] / "market" / "demo" / "python").glob("*/verifier.py"))


def test_the_corpus_has_its_size() -> None:
    sizes = (len(ATTACKS), len(HONEST), len(DEMO), len(BY_NAME), len(LAUNDERING))
    assert sizes == (201, 78, 4, 18, 21)
    assert (len(BY_OBJECT), len(REBUILT_TEXT)) == (17, 15)


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


@pytest.mark.parametrize("path", AT_SINK, ids=[p.parent.name + "/" + p.stem for p in AT_SINK])
def test_publishing_refuses_the_attack_at_its_sink(path: pathlib.Path) -> None:
    text = path.read_text()
    sink = [n for n, line in enumerate(text.splitlines(), 1) if line.endswith("# sink")]

    report = static_check(text)

    assert report.ok is False
    assert len(sink) == 1
    at_sink = [flow for flow in report.injection_flows if flow.line == sink[0]]
    assert at_sink != []
    for flow in report.injection_flows:
        assert f"line {flow.line}: {flow.message}" in report.errors
        assert "instead" in flow.message


@pytest.mark.parametrize(
    "path", [*HONEST, *DEMO], ids=[p.parent.name + "/" + p.stem for p in [*HONEST, *DEMO]]
)
def test_honest_verifiers_publish(path: pathlib.Path) -> None:
    report = static_check(path.read_text())

    assert (report.ok, report.errors, report.injection_flows) == (True, (), ())
