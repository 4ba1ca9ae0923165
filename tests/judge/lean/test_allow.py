"""The verifier's `-- judge: allow` line: only an exact first line counts; decoys are errors."""

from __future__ import annotations

import pytest

from judge.lean.allow import STANDARD_AXIOMS, parse_allow_line

SPEC = "\nabbrev Spec : Prop := True\n"


def test_no_directive_means_the_standard_allowlist() -> None:
    parsed = parse_allow_line("abbrev Spec : Prop := True\n")

    assert parsed.ok
    assert parsed.widened == ()
    assert parsed.permitted_axioms == ("propext", "Classical.choice", "Quot.sound")


@pytest.mark.parametrize(
    ("first_line", "widened"),
    [
        ("-- judge: allow Foo.bar", ("Foo.bar",)),
        ("-- judge: allow Foo.bar, baz'", ("Foo.bar", "baz'")),
        ("-- judge: allow Foo.bar,Baz.qux  ", ("Foo.bar", "Baz.qux")),
        ("-- judge: allow propext, My.ax", ("My.ax",)),
        ("-- judge: allow A.b\r", ("A.b",)),
    ],
)
def test_valid_first_line_widens(first_line: str, widened: tuple[str, ...]) -> None:
    parsed = parse_allow_line(first_line + SPEC)

    assert parsed.errors == ()
    assert parsed.widened == widened
    assert parsed.permitted_axioms == STANDARD_AXIOMS + widened


@pytest.mark.parametrize(
    ("source", "error"),
    [
        (
            "/- -- judge: allow Foo.bar -/" + SPEC,
            "the judge directive on line 1 is inside a block comment",
        ),
        ("\ufeff-- judge: allow Foo.bar" + SPEC, "the verifier starts with a byte-order mark"),
        (
            "-- judge: allow Lean.ofReduceB\u043eol" + SPEC,
            "is not an ASCII Lean identifier (it contains U+043E CYRILLIC SMALL LETTER O)",
        ),
        (
            "-- \u0458udge: allow Foo.bar" + SPEC,
            "line 1 is a judge directive written with look-alike characters "
            "(U+0458 CYRILLIC SMALL LETTER JE)",
        ),
        (
            "-- ｊudge: allow Foo.bar" + SPEC,
            "line 1 is a judge directive written with look-alike characters",
        ),
        ("--judge: allow Foo.bar" + SPEC, "line 1 is a malformed judge directive"),
        ("  -- judge: allow Foo.bar" + SPEC, "line 1 is a malformed judge directive"),
        ("-- judge: allow" + SPEC, "line 1 is a malformed judge directive"),
        ("-- Judge: Allow Foo.bar" + SPEC, "line 1 is a malformed judge directive"),
        ("-- judge: allow Foo.bar," + SPEC, "an empty name in the allow line"),
        ("-- judge: allow 1abc" + SPEC, "`1abc` is not a Lean identifier"),
        ("-- judge: allow Foo.bar, Foo.bar" + SPEC, "`Foo.bar` is listed twice"),
        ("-- judge: allow sorryAx" + SPEC, "`sorryAx` is what `sorry` elaborates to"),
        (
            "-- judge: allow Lean.ofReduceBool" + SPEC,
            "`Lean.ofReduceBool` no longer exists in Lean 4.35.0 (removed by lean4 PR 14953)",
        ),
        (
            "-- judge: allow Lean.ofReduceNat" + SPEC,
            "`Lean.ofReduceNat` no longer exists in Lean 4.35.0",
        ),
        (
            "-- judge: allow Lean.trustCompiler" + SPEC,
            "`Lean.trustCompiler` no longer exists in Lean 4.35.0",
        ),
        (
            "-- judge: allow foo._native.native_decide.ax_1_1" + SPEC,
            "names a native-computation axiom",
        ),
        # The same refused names spelt through `_root_` (Lean may resolve them alike, Comparator's
        # `String.toName` does not): never a way around the policy.
        ("-- judge: allow _root_.Lean.ofReduceBool" + SPEC, "`_root_`"),
        ("-- judge: allow _root_.sorryAx" + SPEC, "`_root_`"),
        ("-- judge: allow Foo._root_.bar" + SPEC, "`_root_`"),
    ],
)
def test_decoys_and_malformed_directives_are_publishing_errors(source: str, error: str) -> None:
    parsed = parse_allow_line(source)

    assert not parsed.ok
    assert parsed.widened == ()
    assert any(error in message for message in parsed.errors), parsed.errors


def test_a_directive_on_a_later_line_is_a_warning_and_changes_nothing() -> None:
    parsed = parse_allow_line("-- judge: allow A.b\n-- judge: allow C.d\n" + SPEC)

    assert parsed.ok
    assert parsed.widened == ("A.b",)  # the first line's, and only that
    assert parsed.warnings == (
        "line 2 looks like a `-- judge:` directive but only the verifier's first line counts: "
        "it is ignored (move it to line 1 if you meant it)",
    )


@pytest.mark.parametrize(
    "source",
    [
        "abbrev Spec : Prop := True\n-- judge: allow Foo.bar\n",
        "/-\n-- judge: allow Foo.bar\n-/" + SPEC,
        "-- A verifier." + SPEC + "/-- Quote: `-- judge: allow Foo.bar` widens the list. -/\n",
        "-- A verifier." + SPEC + 'def doc : String := "-- judge: allow Foo.bar"\n',
    ],
)
def test_doc_comments_and_strings_quoting_the_directive_publish_with_the_standard_axioms(
    source: str,
) -> None:
    parsed = parse_allow_line(source)

    assert parsed.ok, parsed.errors
    assert parsed.permitted_axioms == ("propext", "Classical.choice", "Quot.sound")
    assert len(parsed.warnings) == 1 and "is ignored" in parsed.warnings[0]


def test_ordinary_comments_mentioning_the_judge_are_fine() -> None:
    parsed = parse_allow_line("-- This verifier is checked by the judge.\n" + SPEC)

    assert parsed.ok
    assert parsed.widened == ()


def test_too_many_names_is_an_error() -> None:
    names = ", ".join(f"A.n{i}" for i in range(17))

    parsed = parse_allow_line(f"-- judge: allow {names}" + SPEC)

    assert "the allow line lists more than 16 names" in parsed.errors
