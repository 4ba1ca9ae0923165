"""The judge seam of the publishing workflow: static checks and what publishing records."""

from __future__ import annotations

from verifiers.services.judging import Draft, check_draft, judge_text


def lean(source: str) -> Draft:
    return Draft(
        language="lean", source=source, time_limit_s=60, memory_limit_mb=2048, lean_project="core"
    )


def test_lean_solution_format_is_the_whole_spec_declaration():
    source = (
        "def helper : Nat := 391\n\n"
        "def Spec : Type :=\n"
        "  { p : Nat × Nat // p.1 * p.2 = helper ∧ 1 < p.1 ∧ 1 < p.2 }\n"
        "\n"
        "theorem unrelated : True := trivial\n"
    )
    result = check_draft(draft=lean(source))
    assert result.is_ok, result.errors
    assert result.solution_format == (
        "def Spec : Type :=\n  { p : Nat × Nat // p.1 * p.2 = helper ∧ 1 < p.1 ∧ 1 < p.2 }"
    )
    assert result.allowed_axioms == ()


def test_lean_allow_line_is_recorded_and_a_misplaced_one_ignored():
    widened = check_draft(
        draft=lean(
            "-- judge: allow Nat.mySpecialAxiom\naxiom Nat.mySpecialAxiom : True\n"
            "abbrev Spec : Prop := True\n"
        )
    )
    assert widened.allowed_axioms == ("Nat.mySpecialAxiom",)
    misplaced = check_draft(draft=lean("abbrev Spec : Prop := True\n-- judge: allow Foo.bar\n"))
    # Only the first line counts: a directive elsewhere is a warning, never a widening (issue 28).
    assert misplaced.is_ok, misplaced.errors
    assert misplaced.allowed_axioms == ()


def test_lean_without_spec_is_refused():
    result = check_draft(draft=lean("theorem x : 2 + 2 = 4 := by decide\n"))
    assert not result.is_ok
    assert any("Spec" in e for e in result.errors)


def test_python_solution_format_is_the_docstring():
    source = (
        '"""Two integers p q with p*q = 391."""\n\n\ndef verify(solution, rng):\n    return False\n'
    )
    result = check_draft(
        draft=Draft(language="python", source=source, time_limit_s=10, memory_limit_mb=256)
    )
    assert result.is_ok and result.solution_format == "Two integers p q with p*q = 391."


def test_a_lean_judgement_without_toolchain_is_a_judge_error_not_a_rejection(no_lean_toolchain):
    verdict = judge_text(verifier=lean("abbrev Spec : Prop := True\n"), text="x")
    assert verdict.verdict.value == "JUDGE_ERROR"
    assert "Lean judging is unavailable on this server" in verdict.detail


def test_a_python_check_that_breaks_refuses_the_draft_with_one_finding(monkeypatch, caplog):
    from judge.python.static import INTERNAL_ERROR, taint

    def broken(self, verify):
        raise AttributeError("a bug in the analysis")

    monkeypatch.setattr(taint.Analysis, "run", broken)
    source = '"""Two integers."""\n\n\ndef verify(solution, rng):\n    return False\n'

    with caplog.at_level("ERROR", logger="judge.python.static"):
        result = check_draft(
            draft=Draft(language="python", source=source, time_limit_s=10, memory_limit_mb=256)
        )

    assert result.is_ok is False
    assert result.errors == (INTERNAL_ERROR,)
    assert result.solution_format == ""
    assert [r.exc_info[0] for r in caplog.records if r.exc_info] == [AttributeError]


def test_a_lean_check_that_breaks_refuses_the_draft_with_one_finding(monkeypatch, caplog):
    def broken(source, project, **kwargs):
        raise KeyError("a bug in the Lean check")

    # The seam imports the check directly: patched where the seam looks it up.
    from verifiers.services import judging

    monkeypatch.setattr(judging, "lean_static_check", broken)
    with caplog.at_level("ERROR", logger="verifiers.services.judging"):
        result = check_draft(draft=lean("abbrev Spec : Prop := True\n"))

    assert result.is_ok is False
    assert result.errors == (
        "internal error in the Lean static check: refused (the error is logged)",
    )
    assert [r.exc_info[0] for r in caplog.records if r.exc_info] == [KeyError]


def test_a_lean_toolchain_probe_that_breaks_means_unavailable_with_why(monkeypatch, caplog):
    from verifiers.services import judging

    def broken(*args, **kwargs):
        raise OSError("lean: permission denied")

    monkeypatch.setattr(judging, "toolchain_status", broken)
    with caplog.at_level("ERROR", logger="verifiers.services.judging"):
        available, reason = judging.lean_toolchain_status()

    assert available is False
    assert reason == "the Lean toolchain probe failed: lean: permission denied"
    assert [r.exc_info[0] for r in caplog.records if r.exc_info] == [OSError]
