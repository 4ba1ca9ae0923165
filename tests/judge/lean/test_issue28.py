"""Issue 28, §2-§4, against the FAKE toolchain (test fixture): what the judge claims, refuses
and echoes. (§1 and the /etc files run with the real bubblewrap in test_real_trust.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.lean import LeanJob, VerifierRejected, judge_lean, prepare_verifier, static_check
from judge.lean.modules import is_module, solution_module_error, verifier_module_error
from judge.lean.outcome import axiom_verdict
from judge.lean.steps import read_name_list
from judge.lean.toolchain import ToolchainUnavailable, discover
from judge.verdict import Outcome, Reason

from .conftest import FakeToolchain, program

HONEST = "abbrev Spec : Prop := 2 + 2 = 4\n"
OK = "import Verifier\ntheorem answer : Spec := by decide\n"


def job(solution: str, verifier: str = HONEST) -> LeanJob:
    return LeanJob(verifier, solution, "core", 30, 2048)


# §2: what a verdict echoes of the probe's report -------------------------------------------


def test_a_probe_report_is_capped_and_sanitised_before_a_verdict_shows_it(tmp_path: Path) -> None:
    # A solution's code can name axioms after any text it read; the verdict shows a few plain
    # names, each short, and nothing else.
    leak = "root_x_0_0_root_" * 12
    names = [leak, "cheat", "with space", "ok.name", "a\u200bb", *[f"ax{i}" for i in range(30)]]
    report = tmp_path / ".lake" / "judge" / "axioms.json"
    report.parent.mkdir(parents=True)
    report.write_text(json.dumps(names))
    offending = read_name_list(tmp_path, ".lake/judge/axioms.json")
    assert offending is not None

    verdict = axiom_verdict(offending, ("propext",))

    assert verdict.reason is Reason.AXIOM_VIOLATION
    assert len(verdict.axioms or ()) <= 5
    assert all(len(name) <= 60 for name in verdict.axioms or ())
    assert leak not in verdict.detail and leak[:59] + "…" in verdict.detail
    assert "\u200b" not in verdict.detail
    assert "(an axiom with an unusual name)" in verdict.detail
    assert verdict.detail.endswith(" more")
    assert len(verdict.detail) < 400


# §3: the verdict names exactly the kernels that ran ----------------------------------------


def test_standalone_paranoid_without_nanoda_is_refused_at_preflight(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = fake_toolchain.root / "bin"
    monkeypatch.setenv("JUDGE_LEAN_COMPARATOR", str(bin_dir / "comparator"))
    monkeypatch.setenv("COMPARATOR_LANDRUN", str(bin_dir / "landrun"))
    monkeypatch.setenv("COMPARATOR_LEAN4EXPORT", str(bin_dir / "leanexport"))
    monkeypatch.setenv("JUDGE_LEAN_PARANOID", "1")
    (bin_dir / "nanoda_bin").unlink()
    monkeypatch.setenv("PATH", "/usr/bin:/bin")

    with pytest.raises(ToolchainUnavailable, match="adds kernels only to `lake comparator`"):
        discover()
    verdict = judge_lean(job(OK))
    assert verdict.verdict is Outcome.JUDGE_ERROR
    assert fake_toolchain.calls("standalone comparator") == []


def test_paranoid_acceptance_names_the_bundled_kernels(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_LEAN_PARANOID", "1")

    verdict = judge_lean(job(OK))

    assert verdict.verdict is Outcome.ACCEPTED
    assert "`--paranoid` (leanchecker-paranoid, lean4lean, nanoda, con-leche, con-ron)" in (
        verdict.detail
    )


def test_default_acceptance_names_lean_and_nanoda(fake_toolchain: FakeToolchain) -> None:
    verdict = judge_lean(job(OK))

    assert verdict.verdict is Outcome.ACCEPTED
    assert "Lean's kernel and nanoda checked" in verdict.detail
    [config] = fake_toolchain.comparator_configs()
    assert "nanoda" in config["external_kernels"]


def test_standalone_acceptance_names_lean_and_nanoda_even_when_paranoid(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = fake_toolchain.root / "bin"
    monkeypatch.setenv("JUDGE_LEAN_COMPARATOR", str(bin_dir / "comparator"))
    monkeypatch.setenv("COMPARATOR_LANDRUN", str(bin_dir / "landrun"))
    monkeypatch.setenv("COMPARATOR_LEAN4EXPORT", str(bin_dir / "leanexport"))
    monkeypatch.setenv("JUDGE_LEAN_PARANOID", "1")

    verdict = judge_lean(job(program("solutions/ok.lean"), program("verifiers/two_plus_two.lean")))

    assert verdict.verdict is Outcome.ACCEPTED, verdict.detail
    assert "Lean's kernel and nanoda checked" in verdict.detail
    assert "paranoid" not in verdict.detail and "bundled" not in verdict.detail
    [entry] = fake_toolchain.calls("standalone comparator")
    assert "nanoda" in entry["config"]["external_kernels"]


# §4: widened axioms in the challenge's own environment -------------------------------------


def test_a_widened_name_only_import_lean_declares_is_refused_at_publishing(
    fake_toolchain: FakeToolchain,
) -> None:
    # The audit imports Lean too and would pass it; the challenge (`import Verifier` only) does
    # not have it, so every solution would be a statement mismatch.
    source = "-- judge: allow Lean.Elab.someAxiom\n" + HONEST

    with pytest.raises(VerifierRejected, match="does not see every one of them"):
        prepare_verifier(source, "core")
    assert "JudgeWidened" in fake_toolchain.lake_builds()


def test_a_widened_axiom_the_verifier_declares_publishes(fake_toolchain: FakeToolchain) -> None:
    prepared = prepare_verifier(program("verifiers/widened.lean"), "core")

    assert prepared.permitted_axioms[-1] == "Choice.strong"
    assert (prepared.src_dir / "JudgeWidened.lean").read_text().splitlines()[-1] == (
        "#check @_root_.«Choice».«strong»"
    )


# §4: release candidates ---------------------------------------------------------------------


def test_a_release_candidate_without_lake_comparator_is_refused(
    fake_toolchain: FakeToolchain,
) -> None:
    fake_toolchain.configure(lean_version="4.35.0-rc1", no_comparator=True)

    with pytest.raises(ToolchainUnavailable, match="release candidate .* no working `lake"):
        discover()


def test_a_release_candidate_with_lake_comparator_is_accepted(
    fake_toolchain: FakeToolchain,
) -> None:
    fake_toolchain.configure(lean_version="4.35.0-rc3")

    assert "4.35.0-rc3" in discover().lean_version


# §4: warnings, not refusals -------------------------------------------------------------------


def test_a_directive_looking_comment_after_line_1_publishes_with_a_warning(
    fake_toolchain: FakeToolchain,
) -> None:
    source = HONEST + "/-- Authors widen with `-- judge: allow Foo` on line 1. -/\ndef x := 1\n"

    report = static_check(source, "core", build=True)

    assert report.ok and report.built, report.errors
    assert report.allowed_axioms == ("propext", "Classical.choice", "Quot.sound")
    assert len(report.warnings) == 1 and "line 2" in report.warnings[0]


# §4: Lean `module` files --------------------------------------------------------------------


def test_module_headers_are_recognised_after_comments() -> None:
    assert is_module("/- doc -/\n-- note\nmodule\n\npublic import Verifier\n")
    assert not is_module("-- module\nimport Verifier\n")
    assert not is_module('def s := "module"\n')


def test_a_module_solution_for_an_ordinary_verifier_is_refused_saying_what_to_write(
    fake_toolchain: FakeToolchain,
) -> None:
    solution = "module\n\nimport Verifier\npublic theorem answer : Spec := by decide\n"

    verdict = judge_lean(job(solution))

    assert (verdict.verdict, verdict.reason) == (Outcome.REJECTED, Reason.INVALID_SOLUTION)
    assert "delete the `module` line" in verdict.detail
    assert fake_toolchain.lake_builds() == []  # refused before anything is built
    # With a module verifier, a module solution is the author's choice.
    assert solution_module_error("module\npublic abbrev Spec : Prop := True\n", solution) is None


@pytest.mark.parametrize(
    ("source", "refused"),
    [
        ("module\n\nabbrev Spec : Prop := 2 + 2 = 4\n", True),
        ("module\n\nprivate abbrev Spec : Prop := 2 + 2 = 4\n", True),
        ("module\n\npublic abbrev Spec : Prop := 2 + 2 = 4\n", False),
        ("module\n\n@[expose] public def Spec : Prop := 2 + 2 = 4\n", False),
        ("module\n\npublic section\nabbrev Spec : Prop := 2 + 2 = 4\nend\n", False),
        ("abbrev Spec : Prop := 2 + 2 = 4\n", False),
    ],
)
def test_a_module_verifier_with_a_private_spec_is_refused_at_publishing(
    fake_toolchain: FakeToolchain, source: str, refused: bool
) -> None:
    error = verifier_module_error(source)
    report = static_check(source, "core")

    assert (error is not None) is refused
    if refused:
        assert error is not None and "write `public abbrev Spec" in error
        assert error in report.errors
        with pytest.raises(VerifierRejected, match="public"):
            prepare_verifier(source, "core")
        assert fake_toolchain.lake_builds() == []


# §4: the site's verifier guide says what the judge does --------------------------------------


def test_the_verifier_guide_documents_the_allow_line_axioms_and_rejections() -> None:
    guide = (
        Path(__file__).resolve().parents[3] / "market" / "templates" / "market" / "help"
    ) / "verifiers.html"
    lean = guide.read_text(encoding="utf-8").split('id="lean"', 1)[1]

    for text in (
        "<code>propext</code>, <code>Classical.choice</code> and <code>Quot.sound</code>",
        "<code>sorry</code> is always rejected",
        "<code>native_decide</code>",
        "<code>-- judge: allow Name1, Name2</code>",
        "<strong>first line</strong>",
        "no longer exist in Lean 4.35.0",
        "public abbrev Spec",
        "delete the <code>module</code> line",
    ):
        assert text in lean, text


# §1: the copy rule itself ---------------------------------------------------------------------


def _layer(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_collect_outputs_copies_only_the_modules_outputs(tmp_path: Path) -> None:
    from judge.lean.outputs import UnexpectedOutput, collect_outputs

    upper = _layer(
        tmp_path / "upper",
        {
            ".lake/build/lib/lean/Verifier.olean": "v",
            ".lake/build/lib/lean/Verifier.ilean": "v",
            ".lake/build/ir/Verifier.c": "v",
            ".lake/judge/verifier-audit.json": "[]",
        },
    )
    out = tmp_path / "out"
    assert (
        collect_outputs(
            upper, ("Verifier",), out, reports=(".lake/judge/verifier-audit.json",), strict=True
        )
        == []
    )
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == [
        ".lake/build/ir/Verifier.c",
        ".lake/build/lib/lean/Verifier.ilean",
        ".lake/build/lib/lean/Verifier.olean",
    ]
    # The report is read by the judge, never copied; without leave it is unexpected.
    with pytest.raises(UnexpectedOutput, match=r"\.lake/judge/verifier-audit\.json"):
        collect_outputs(upper, ("Verifier",), tmp_path / "out2", strict=True)
    assert not (tmp_path / "out2").exists()  # nothing copied before the refusal


@pytest.mark.parametrize(
    "planted",
    [
        "lakefile.lean",
        "lean-toolchain",
        ".lake/build/lib/lean/Solution.olean",
        ".lake/build/lib/lean/Verifier",  # no extension: not an output
        ".lake/build/lib/lean/Mathlib/Init.olean",
        ".lake/packages/mathlib/lakefile.lean",
        ".lake/build/bin/evil",
    ],
)
def test_anything_else_is_named_or_dropped(tmp_path: Path, planted: str) -> None:
    from judge.lean.outputs import UnexpectedOutput, collect_outputs

    upper = _layer(tmp_path / "upper", {".lake/build/lib/lean/Verifier.olean": "v", planted: "x"})
    with pytest.raises(UnexpectedOutput) as refused:
        collect_outputs(upper, ("Verifier",), tmp_path / "strict", strict=True)
    first = planted.split("/Init.olean")[0].split("/mathlib/")[0].split("/evil")[0]
    assert first in str(refused.value)

    dropped = collect_outputs(upper, ("Verifier",), tmp_path / "lenient", strict=False)
    assert dropped
    copied = [p for p in (tmp_path / "lenient").rglob("*") if p.is_file()]
    assert [p.name for p in copied] == ["Verifier.olean"]


def test_symlinks_and_whiteouts_are_unexpected_and_never_followed(tmp_path: Path) -> None:
    import os
    import stat

    from judge.lean.outputs import UnexpectedOutput, collect_outputs

    upper = _layer(tmp_path / "upper", {".lake/build/lib/lean/Submission.olean": "s"})
    secret = _layer(tmp_path / "secret", {"key": "sk_live"}) / "key"
    (upper / ".lake/build/lib/lean/Submission.ilean").symlink_to(secret)
    os.mknod(upper / "lakefile.toml", stat.S_IFCHR | 0o600, os.makedev(0, 0))  # a whiteout

    with pytest.raises(UnexpectedOutput) as refused:
        collect_outputs(upper, ("Submission",), tmp_path / "a", strict=True)
    assert "Submission.ilean" in str(refused.value) and "lakefile.toml" in str(refused.value)
    collect_outputs(upper, ("Submission",), tmp_path / "b", strict=False)
    assert [p.name for p in (tmp_path / "b").rglob("*") if p.is_file()] == ["Submission.olean"]


def test_status_names_nanoda_for_a_standalone_comparator_even_when_paranoid(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judge.lean.toolchain_status import toolchain_status

    bin_dir = fake_toolchain.root / "bin"
    monkeypatch.setenv("JUDGE_LEAN_COMPARATOR", str(bin_dir / "comparator"))
    monkeypatch.setenv("COMPARATOR_LANDRUN", str(bin_dir / "landrun"))
    monkeypatch.setenv("COMPARATOR_LEAN4EXPORT", str(bin_dir / "leanexport"))
    monkeypatch.setenv("JUDGE_LEAN_PARANOID", "1")

    status = toolchain_status(max_age_s=0)

    assert status.versions["second_kernel"] == f"nanoda {bin_dir / 'nanoda_bin'}"
