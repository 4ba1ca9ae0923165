"""Standalone comparator mode: config, output folder, phase timings; no report file is read."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from judge.lean import LeanJob, judge_lean
from judge.lean.project import MEASURE_SCRIPT_SOURCE
from judge.verdict import Outcome, Reason, Verdict

from .conftest import FakeToolchain, program


@pytest.fixture
def standalone(fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch) -> FakeToolchain:
    bin_dir = fake_toolchain.root / "bin"
    monkeypatch.setenv("JUDGE_LEAN_COMPARATOR", str(bin_dir / "comparator"))
    monkeypatch.setenv("COMPARATOR_LANDRUN", str(bin_dir / "landrun"))
    monkeypatch.setenv("COMPARATOR_LEAN4EXPORT", str(bin_dir / "leanexport"))
    return fake_toolchain


def judge_once(solution: str) -> Verdict:
    return judge_lean(
        LeanJob(
            verifier_source=program("verifiers/two_plus_two.lean"),
            solution=program(solution),
            project="core",
            time_limit_s=30,
            memory_limit_mb=2048,
        )
    )


def test_acceptance_records_build_and_kernel_times(standalone: FakeToolchain) -> None:
    verdict = judge_once("solutions/ok.lean")

    assert verdict.verdict is Outcome.ACCEPTED
    assert verdict.kernel_time_s == 0.5
    assert verdict.build_time_s is not None and verdict.build_time_s > 0.25
    [entry] = standalone.calls("standalone comparator")
    assert entry["config"] == {
        "challenge_module": "JudgeChallenge",
        "solution_module": "Solution",
        "theorem_names": ["judge_answer"],
        "definition_names": [],
        "permitted_axioms": ["propext", "Classical.choice", "Quot.sound"],
        # The README's way to add a kernel (Comparator 19e111e's `external_kernels`); never
        # together with `enable_nanoda`, which that revision refuses.
        "external_kernels": {"nanoda": [str(standalone.root / "bin" / "nanoda_bin")]},
        "measurement_command": ["/bin/sh", "/judge/work/judge-measure.sh", "/judge/out/phases.log"],
    }
    assert "json_output_path" not in entry["config"]  # in no merged Comparator revision
    bin_dir = standalone.root / "bin"
    assert entry["env"] == {
        "COMPARATOR_LANDRUN": str(bin_dir / "landrun"),
        "COMPARATOR_LEAN4EXPORT": str(bin_dir / "leanexport"),
        "COMPARATOR_NANODA": str(bin_dir / "nanoda_bin"),
    }


def test_a_rejection_reads_no_report_file_only_the_exit_status(standalone: FakeToolchain) -> None:
    # Comparator's exit 1 is all there is: the generic rejection names the axioms rule too, and
    # no axiom name comes from anything the comparator's (shared) output or a file said.
    verdict = judge_once("solutions/probe_fooled.lean")

    assert verdict.verdict is Outcome.REJECTED
    assert verdict.reason is Reason.STATEMENT_MISMATCH
    assert verdict.axioms == ()
    assert "axiom outside the allowlist" in verdict.detail


def test_only_the_jobs_out_folder_is_bound_writable(standalone: FakeToolchain) -> None:
    judge_once("solutions/ok.lean")

    [argv] = [
        call["argv"]
        for call in standalone.calls("bwrap")
        if call["argv"][-3:-1] == ["env", str(standalone.root / "bin" / "comparator")]
    ]
    binds = [argv[i + 1 : i + 3] for i, arg in enumerate(argv) if arg == "--bind"]
    [(host, inside)] = binds
    assert inside == "/judge/out"
    assert Path(host).name == "out" and Path(host).parent.parent == standalone.work_dir


def test_measurement_adapter_preserves_status_and_streams(tmp_path: Path) -> None:
    script = tmp_path / "judge-measure.sh"
    script.write_text(MEASURE_SCRIPT_SOURCE)
    log = tmp_path / "phases.log"

    completed = subprocess.run(
        [
            "/bin/sh",
            str(script),
            str(log),
            "--phase",
            "checker",
            "--",
            "sh",
            "-c",
            "echo hi; exit 3",
        ],
        capture_output=True,
        text=True,
    )

    assert completed.returncode == 3
    assert completed.stdout == "hi\n"
    phase, begin, end = log.read_text().split()
    assert phase == "checker"
    assert float(end) >= float(begin)


def test_lakefile_written_by_the_solution_never_reaches_lake_env(standalone: FakeToolchain) -> None:
    # `lake env` loads lakefile.lean in preference to lakefile.toml: had it seen the solution's,
    # the solution's code would have run in the process that decides the verdict.
    verdict = judge_once("solutions/lakefile_hijack.lean")

    assert verdict.verdict is Outcome.REJECTED
    assert verdict.reason is Reason.STATEMENT_MISMATCH
