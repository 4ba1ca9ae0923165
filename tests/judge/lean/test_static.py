"""Publishing checks on a Lean verifier, with and without a (fake) toolchain."""

from __future__ import annotations

import pytest

from judge.lean import static_check
from judge.lean.prepare_messages import AUDIT_UNBUILDABLE_MESSAGE

from .conftest import FakeToolchain, program


def test_valid_prop_verifier() -> None:
    report = static_check("abbrev Spec : Prop := 2 + 2 = 4\n", "core")

    assert report.ok is True
    assert report.errors == ()
    assert report.allowed_axioms == ("propext", "Classical.choice", "Quot.sound")
    assert report.spec_kind == "prop"
    assert report.built is False


def test_type_verifier_kind_is_guessed() -> None:
    report = static_check(program("verifiers/factor_391.lean"), "core")

    assert report.ok is True
    assert report.spec_kind == "type"


@pytest.mark.parametrize(
    ("source", "project", "error"),
    [
        ("abbrev Spex : Prop := True\n", "core", "the verifier must define a root-level `Spec`"),
        (
            "import Mathlib.Tactic\nabbrev Spec : Prop := True\n",
            "core",
            "`import Mathlib.Tactic` is not available in the core project",
        ),
        (
            "import Submission\nabbrev Spec : Prop := True\n",
            "mathlib",
            "`import Submission`: that module name is reserved by the judge",
        ),
        ("abbrev Spec : Prop := True\n", "lean3", "unknown Lean project 'lean3'"),
        ("   \n", "core", "the verifier is empty"),
        (
            "-- judge: allow Lean.ofReduceBool\nabbrev Spec : Prop := True\n",
            "core",
            "`Lean.ofReduceBool` no longer exists in Lean 4.35.0 (removed by lean4 PR 14953)",
        ),
    ],
)
def test_publishing_errors(source: str, project: str, error: str) -> None:
    report = static_check(source, project)

    assert report.ok is False
    assert any(error in message for message in report.errors), report.errors


def test_mathlib_import_is_fine_in_the_mathlib_project() -> None:
    report = static_check(
        "import Mathlib.Tactic.NormNum.Prime\nabbrev Spec : Prop := Nat.Prime 997\n", "mathlib"
    )

    assert report.ok is True


def test_build_is_pending_without_a_toolchain(no_toolchain: None) -> None:
    report = static_check("abbrev Spec : Prop := True\n", "core", build=True)

    assert report.ok is True
    assert report.built is False
    assert report.build_pending_reason == "no Lean toolchain on this server"


def test_build_and_audit_with_the_fake_toolchain(fake_toolchain: FakeToolchain) -> None:
    good = static_check(program("verifiers/factor_391.lean"), "core", build=True)
    bad = static_check(program("verifiers/verifier_sorry.lean"), "core", build=True)

    assert (good.ok, good.built, good.spec_kind) == (True, True, "type")
    assert bad.ok is False
    assert bad.errors == (
        "the verifier's own declarations must rest only on propext, Classical.choice and "
        "Quot.sound; a `sorry` in a helper lemma fails this audit: helper uses sorryAx",
    )


@pytest.mark.parametrize(
    "declaration",
    [
        "theorem answer : Spec := by decide",
        "@[simp] protected theorem _root_.answer : Spec := by decide",
        "noncomputable def answer : Spec := sorry",
        "lemma answer : Spec := rfl",
    ],
)
def test_verifier_may_not_declare_the_solutions_name(declaration: str) -> None:
    # `_root_.answer` in the bridge would find the verifier's own: `import Verifier` alone would
    # pass. (The build's audit checks the environment as well; this is the early message.)
    report = static_check(f"abbrev Spec : Prop := 2 + 2 = 4\n{declaration}\n", "core")

    assert report.ok is False
    assert any("`answer`" in error for error in report.errors), report.errors


def test_answer_inside_a_namespace_or_as_a_field_is_fine() -> None:
    source = (
        "abbrev Spec : Prop := True\nnamespace Foo\ntheorem answer : Spec := trivial\nend Foo\n"
    )

    assert static_check(source, "core").ok is True


def test_the_audit_refuses_a_verifier_that_declares_answer(fake_toolchain: FakeToolchain) -> None:
    report = static_check(program("verifiers/verifier_answer.lean"), "core", build=True)

    assert report.ok is False
    assert report.errors == (
        "the verifier declares `answer`, the name a solution must define; rename it (an "
        "`answer` in the verifier would let `import Verifier` alone pass as a solution)",
    )


def test_an_audit_that_cannot_build_is_not_reported_as_an_axiom_problem(
    fake_toolchain: FakeToolchain,
) -> None:
    # `import Lean` beside the verifier failed (a clashing name), and the audit wrote no report:
    # publishing is still refused (nothing proved the verifier declares no `answer`), but the
    # author is told what actually failed, not that their axioms are wrong.
    report = static_check(program("verifiers/verifier_audit_clash.lean"), "core", build=True)

    assert report.ok is False
    assert report.errors == (AUDIT_UNBUILDABLE_MESSAGE + " (first error at line 2, column 0)",)
    assert "not an axiom problem" in report.errors[0]
    assert "must rest only on" not in report.errors[0]


def test_an_allowed_name_that_is_no_axiom_is_named(fake_toolchain: FakeToolchain) -> None:
    report = static_check(program("verifiers/verifier_not_axiom.lean"), "core", build=True)

    assert report.ok is False
    assert report.errors == (
        "the first line allows foo, which must be axioms the verifier declares (Comparator only "
        "permits axioms that exist in the challenge)",
    )
