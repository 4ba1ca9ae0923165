"""The Lean pipeline end to end against the FAKE toolchain (test fixture).

Each solution under programs/solutions/ states its expected verdict on an `-- expect:` line; the
fake `lake` replays the behaviour named by its `-- fake:` line (see fake_toolchain/bin/lake).
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import pytest

from judge.lean import LeanJob, judge_lean
from judge.lean.compare import copy_solution_artifacts
from judge.lean.pipeline import CANARY_VERIFIER, FAKE_VERSION_SUFFIX
from judge.lean.prepare import cache_key
from judge.lean.toolchain import discover
from judge.verdict import Outcome, Reason
from tests.waiting import scaled, wait_until

from .conftest import PROGRAMS, FakeToolchain, program

SOLUTIONS = sorted((PROGRAMS / "solutions").glob("*.lean"))
SLOW_CASES = {"hang.lean", "comparator_hang.lean", "alloc.lean"}


def job_folders(fake: FakeToolchain) -> list[Path]:
    """What is left in the work folder besides the shared synthesized /etc files."""
    return [p for p in fake.work_dir.iterdir() if not p.name.startswith(".etc-")]


def expected(path: Path) -> tuple[Outcome, Reason | None, tuple[str, ...]]:
    line = next(line for line in path.read_text().splitlines() if line.startswith("-- expect:"))
    words = line.removeprefix("-- expect:").split()
    outcome = Outcome(words[0])
    reason = Reason(words[1]) if len(words) > 1 else None
    return outcome, reason, tuple(words[2:])


def job(solution: str | bytes, verifier: str = "two_plus_two.lean", **limits: float) -> LeanJob:
    return LeanJob(
        verifier_source=program(f"verifiers/{verifier}"),
        solution=solution,
        project="core",
        time_limit_s=limits.get("time_limit_s", 30.0),
        memory_limit_mb=int(limits.get("memory_limit_mb", 2048)),
    )


@pytest.mark.parametrize("path", [p for p in SOLUTIONS if p.name not in SLOW_CASES], ids=str)
def test_solution_program_gets_its_expected_verdict(
    fake_toolchain: FakeToolchain,
    shared_cache_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    path: Path,
) -> None:
    monkeypatch.setenv("JUDGE_LEAN_CACHE_DIR", str(shared_cache_dir))
    outcome, reason, axioms = expected(path)

    verdict = judge_lean(job(path.read_bytes()))

    assert (verdict.verdict, verdict.reason) == (outcome, reason), verdict.detail
    if axioms:
        assert verdict.axioms == axioms
    assert verdict.judge_version.endswith(FAKE_VERSION_SUFFIX)
    assert verdict.detail.startswith("[FAKE Lean toolchain, test fixture] ")


def test_accepted_verdict_is_marked_as_faked_and_reports_times(
    fake_toolchain: FakeToolchain,
) -> None:
    verdict = judge_lean(job(program("solutions/ok.lean")))

    assert verdict.verdict is Outcome.ACCEPTED
    assert verdict.reason is None
    assert verdict.axioms == ()
    assert verdict.judge_version.endswith("+FAKE-lean-toolchain")
    assert verdict.build_time_s is not None and verdict.build_time_s > 0
    assert verdict.kernel_time_s is None  # `lake comparator` has no measurement adapter
    assert verdict.max_memory_mb is not None and verdict.max_memory_mb > 0


def test_steps_run_in_order_and_comparator_gets_the_bridge_config(
    fake_toolchain: FakeToolchain,
) -> None:
    judge_lean(job(program("solutions/ok.lean")))

    assert fake_toolchain.lake_builds() == [
        "Verifier",
        "JudgeChallenge",
        "JudgeAudit",
        "Submission",
        "Solution",
        "JudgeAxioms",
    ]
    [config] = fake_toolchain.comparator_configs()
    assert config == {
        "challenge_module": "JudgeChallenge",
        "solution_module": "Solution",
        "theorem_names": ["judge_answer"],
        "definition_names": [],
        "permitted_axioms": ["propext", "Classical.choice", "Quot.sound"],
        "external_kernels": {"nanoda": [str(fake_toolchain.root / "bin" / "nanoda_bin")]},
    }
    [comparator_call] = [c for c in fake_toolchain.calls("lake") if c["argv"][:1] == ["comparator"]]
    assert comparator_call["argv"] == ["comparator", "--config", "judge-comparator.json"]


def test_paranoid_mode_adds_the_flag(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_LEAN_PARANOID", "1")
    judge_lean(job(program("solutions/ok.lean")))

    [call] = [c for c in fake_toolchain.calls("lake") if c["argv"][:1] == ["comparator"]]
    assert call["argv"] == ["comparator", "--config", "judge-comparator.json", "--paranoid"]
    [config] = fake_toolchain.comparator_configs()
    assert "external_kernels" not in config  # the bundled kernels, nanoda included, run anyway


@pytest.mark.parametrize("value", ["challenge", "check"])
def test_lake_subcommand_option_is_refused(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    # `lake challenge` was the runner's name before v4.35 (no --paranoid there): no supported
    # toolchain has it, so the old option is refused rather than silently changing the command.
    monkeypatch.setenv("JUDGE_LEAN_LAKE_SUBCOMMAND", value)

    verdict = judge_lean(job(program("solutions/ok.lean")))

    assert verdict.verdict is Outcome.JUDGE_ERROR
    assert "4.35 development line" in verdict.detail
    assert fake_toolchain.calls("lake") == []


def test_the_default_lake_subcommand_value_is_accepted(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_LEAN_LAKE_SUBCOMMAND", "comparator")

    verdict = judge_lean(job(program("solutions/ok.lean")))

    assert verdict.verdict is Outcome.ACCEPTED
    [call] = [c for c in fake_toolchain.calls("lake") if c["argv"][:1] == ["comparator"]]
    assert call["argv"] == ["comparator", "--config", "judge-comparator.json"]


def test_type_spec_becomes_a_definition_hole_with_a_def_bridge(
    fake_toolchain: FakeToolchain,
) -> None:
    solution = "import Verifier\ndef answer : Spec := ⟨(17, 23), by decide⟩\n"

    verdict = judge_lean(job(solution, verifier="factor_391.lean"))

    assert verdict.verdict is Outcome.ACCEPTED
    # `theorem` is tried first and fails for a Type; `def` then builds.
    assert fake_toolchain.lake_builds()[:3] == ["Verifier", "JudgeChallenge", "JudgeChallenge"]
    [config] = fake_toolchain.comparator_configs()
    assert config["theorem_names"] == []
    assert config["definition_names"] == ["judge_answer"]
    bridge = [c for c in fake_toolchain.calls("lake") if c["argv"] == ["build", "Solution"]]
    assert len(bridge) == 1


def test_verifier_widening_reaches_permitted_axioms(fake_toolchain: FakeToolchain) -> None:
    judge_lean(job(program("solutions/ok.lean"), verifier="widened.lean"))

    [config] = fake_toolchain.comparator_configs()
    assert config["permitted_axioms"] == [
        "propext",
        "Classical.choice",
        "Quot.sound",
        "Choice.strong",
    ]


def test_solution_allow_line_never_widens(fake_toolchain: FakeToolchain) -> None:
    verdict = judge_lean(job(program("solutions/native_decide.lean")))

    assert verdict.reason is Reason.AXIOM_VIOLATION
    assert "native_decide" in verdict.detail
    # Rejected before Comparator: the only comparator run is the known-good self-check's, in its
    # own job folder, and nothing is widened anywhere.
    runs = [c for c in fake_toolchain.calls("lake") if c["argv"][:1] == ["comparator"]]
    assert len(runs) == 1 and "/job-selfcheck-" in runs[0]["upper"]
    [config] = fake_toolchain.comparator_configs()
    assert config["permitted_axioms"] == ["propext", "Classical.choice", "Quot.sound"]
    probe = fake_toolchain.calls("lake")
    assert all("Lean.ofReduceBool" not in str(call) for call in probe)


def test_comparator_decoy_output_with_exit_1_is_a_rejection(
    fake_toolchain: FakeToolchain,
) -> None:
    verdict = judge_lean(job(program("solutions/decoy.lean")))

    assert verdict.verdict is Outcome.REJECTED
    assert verdict.reason is Reason.STATEMENT_MISMATCH
    assert "okay" not in verdict.detail.lower()


def test_verifier_is_built_once_and_reused_read_only(fake_toolchain: FakeToolchain) -> None:
    first = judge_lean(job(program("solutions/ok.lean")))
    second = judge_lean(job(program("solutions/compile_error.lean")))
    third = judge_lean(job(program("solutions/ok.lean")))

    assert [v.verdict for v in (first, second, third)] == [
        Outcome.ACCEPTED,
        Outcome.REJECTED,
        Outcome.ACCEPTED,
    ]
    builds = fake_toolchain.lake_builds()
    # Once for the problem's verifier, once for the self-check's (run after the rejection).
    assert builds.count("Verifier") == 2
    assert builds.count("JudgeChallenge") == 2
    assert builds.count("JudgeAudit") == 2
    entries = [p for p in fake_toolchain.cache_dir.iterdir() if p.is_dir() and p.name != ".staging"]
    entry = fake_toolchain.cache_dir / cache_key(
        program("verifiers/two_plus_two.lean"), "core", discover()
    )
    assert sorted(entries) == sorted(
        [entry, fake_toolchain.cache_dir / cache_key(CANARY_VERIFIER, "core", discover())]
    )
    assert (entry / "prepared.json").is_file()
    challenge = entry / "build" / ".lake" / "build" / "lib" / "lean" / "JudgeChallenge.olean"
    assert challenge.read_text() == "FAKE OLEAN JudgeChallenge prepared"
    assert (challenge.stat().st_mode & 0o222) == 0
    # Every solution step wrote only into its own job folder, never into the prepared build.
    for call in fake_toolchain.calls("lake"):
        if call["argv"][:2] in (["build", "Submission"], ["build", "Solution"]):
            assert call["upper"].startswith(str(fake_toolchain.work_dir))
            if "/job-selfcheck-" not in call["upper"]:
                assert str(entry / "build") in call["layers"]


def test_tampered_challenge_in_the_solution_layer_never_reaches_comparator(
    fake_toolchain: FakeToolchain,
) -> None:
    verdict = judge_lean(job(program("solutions/tamper.lean")))

    # The fake comparator accepts iff it sees the forged olean: the layer order must hide it.
    assert verdict.verdict is Outcome.REJECTED
    assert verdict.reason is Reason.STATEMENT_MISMATCH


def test_files_the_solution_writes_beside_its_build_never_reach_comparator(
    fake_toolchain: FakeToolchain,
) -> None:
    # The solution's elaboration can write anywhere in its own layer, e.g. a `lakefile.lean`,
    # which Lake prefers to our lakefile.toml: seen by `lake comparator`, it would choose the
    # challenge's sources and build folder. Only the solution's own build artifacts may pass.
    verdict = judge_lean(job(program("solutions/lakefile_hijack.lean")))

    assert (verdict.verdict, verdict.reason) == (Outcome.REJECTED, Reason.STATEMENT_MISMATCH)
    [call] = [
        c
        for c in fake_toolchain.calls("lake")
        if c["argv"][:1] == ["comparator"] and "/job-selfcheck-" not in c["upper"]
    ]
    artifacts = Path(call["layers"].split(os.pathsep)[-1])  # the bottom layer
    assert artifacts.name == "artifacts"
    # The job folder is gone by now; what the comparator saw was recorded by the fake bwrap.
    [argv] = [
        entry["argv"]
        for entry in fake_toolchain.calls("bwrap")
        if "comparator" in entry["argv"] and str(artifacts) in entry["argv"]
    ]
    lower = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--overlay-src"]
    assert lower[0] == str(artifacts)
    assert str(artifacts.parent / "build") not in lower


def test_only_the_solutions_build_artifacts_are_layered_under_comparator(
    tmp_path: Path,
) -> None:
    build = tmp_path / "build"
    lib = build / ".lake" / "build" / "lib" / "lean"
    ir = build / ".lake" / "build" / "ir"
    lib.mkdir(parents=True)
    ir.mkdir(parents=True)
    for name in ("Submission.olean", "Submission.ilean", "Submission.trace", "Solution.olean"):
        (lib / name).write_text(name)
    (ir / "Submission.c").write_text("c")
    (build / "lakefile.lean").write_text("forged")
    (lib / "JudgeChallenge.olean").write_text("forged")
    (lib / "Evil.olean").write_text("forged")
    (lib / "Submission").mkdir()
    (lib / "Submission" / "Inner.olean").write_text("forged")
    (tmp_path / "secret").write_text("host file")
    (lib / "Solution.ilean").symlink_to(tmp_path / "secret")

    artifacts = tmp_path / "artifacts"
    copy_solution_artifacts(build, artifacts)

    found = sorted(str(p.relative_to(artifacts)) for p in artifacts.rglob("*") if p.is_file())
    assert found == [
        ".lake/build/ir/Submission.c",
        ".lake/build/lib/lean/Solution.olean",
        ".lake/build/lib/lean/Submission.ilean",
        ".lake/build/lib/lean/Submission.olean",
        ".lake/build/lib/lean/Submission.trace",
    ]


def test_a_symlinked_build_folder_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "build" / "lib" / "lean"
    outside.mkdir(parents=True)
    (outside / "Submission.olean").write_text("host file")
    build = tmp_path / "build"
    build.mkdir()
    (build / ".lake").symlink_to(tmp_path / "outside")

    artifacts = tmp_path / "artifacts"
    copy_solution_artifacts(build, artifacts)

    assert [p for p in artifacts.rglob("*") if p.is_file()] == []


def comparator_runs(fake_toolchain: FakeToolchain) -> int:
    return len([c for c in fake_toolchain.calls("lake") if c["argv"][:1] == ["comparator"]])


def test_comparator_broken_inside_its_own_sandbox_is_a_judge_error_not_a_rejection(
    fake_toolchain: FakeToolchain,
) -> None:
    # Lake's `runChallenge` catches every exception of the check, its own sandbox and exporter
    # failing included, and exits 1: the same status as a wrong proof.
    fake_toolchain.configure(broken="comparator")

    verdict = judge_lean(job(program("solutions/ok.lean")))

    assert verdict.verdict is Outcome.JUDGE_ERROR, verdict.detail
    assert verdict.reason is None
    assert "self-check" in verdict.detail
    assert comparator_runs(fake_toolchain) == 2  # the job's, then the known-good canary's
    assert job_folders(fake_toolchain) == []


def test_build_broken_for_every_solution_is_a_judge_error_not_a_compile_error(
    fake_toolchain: FakeToolchain,
) -> None:
    fake_toolchain.configure(broken="Submission")

    verdict = judge_lean(job(program("solutions/ok.lean")))

    assert verdict.verdict is Outcome.JUDGE_ERROR, verdict.detail
    assert fake_toolchain.lake_builds().count("Submission") == 2
    assert comparator_runs(fake_toolchain) == 0


def test_a_rejection_stands_when_the_known_good_canary_is_accepted(
    fake_toolchain: FakeToolchain,
) -> None:
    verdict = judge_lean(job(program("solutions/probe_fooled.lean")))

    assert (verdict.verdict, verdict.reason) == (Outcome.REJECTED, Reason.STATEMENT_MISMATCH)
    assert comparator_runs(fake_toolchain) == 2
    # The canary's verifier is prepared once, beside the problem's, and reused afterwards.
    judge_lean(job(program("solutions/compile_error.lean")))
    entries = [p for p in fake_toolchain.cache_dir.iterdir() if p.is_dir() and p.name != ".staging"]
    assert len(entries) == 2
    assert fake_toolchain.lake_builds().count("Verifier") == 2
    assert job_folders(fake_toolchain) == []


def test_accepted_and_limit_verdicts_run_no_canary(fake_toolchain: FakeToolchain) -> None:
    judge_lean(job(program("solutions/ok.lean")))

    assert comparator_runs(fake_toolchain) == 1
    assert fake_toolchain.lake_builds().count("Submission") == 1


def test_job_folders_are_removed_afterwards(fake_toolchain: FakeToolchain) -> None:
    judge_lean(job(program("solutions/ok.lean")))

    assert job_folders(fake_toolchain) == []


def test_build_that_hangs_is_killed_with_its_whole_tree(
    fake_toolchain: FakeToolchain, tmp_path: Path
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    fake_toolchain.configure(grandchild_pid_file=str(pid_file))
    started = time.monotonic()

    verdict = judge_lean(job(program("solutions/hang.lean"), time_limit_s=1.5))

    assert verdict.verdict is Outcome.REJECTED
    assert verdict.reason is Reason.TIME_LIMIT
    assert time.monotonic() - started < scaled(10)
    grandchild = int(pid_file.read_text())
    with contextlib.suppress(AssertionError):  # whether it is gone is asserted below
        wait_until(lambda: not Path(f"/proc/{grandchild}").exists(), "the grandchild", 2)
    alive = Path(f"/proc/{grandchild}/stat").exists() and (
        Path(f"/proc/{grandchild}/stat").read_text().split(") ")[1][0] not in "ZX"
    )
    assert not alive, "the detached grandchild of the build survived the kill"


def test_comparator_that_hangs_is_a_time_limit(fake_toolchain: FakeToolchain) -> None:
    verdict = judge_lean(job(program("solutions/comparator_hang.lean"), time_limit_s=1.5))

    assert (verdict.verdict, verdict.reason) == (Outcome.REJECTED, Reason.TIME_LIMIT)


def test_build_that_allocates_past_the_budget_is_a_memory_limit(
    fake_toolchain: FakeToolchain,
) -> None:
    verdict = judge_lean(job(program("solutions/alloc.lean"), memory_limit_mb=100))

    assert (verdict.verdict, verdict.reason) == (Outcome.REJECTED, Reason.MEMORY_LIMIT)
    assert verdict.max_memory_mb is not None and verdict.max_memory_mb > 100


def test_sandbox_that_cannot_start_is_a_judge_error_not_a_compile_error(
    fake_toolchain: FakeToolchain,
) -> None:
    fake_toolchain.configure(bwrap_broken=True)

    verdict = judge_lean(job(program("solutions/ok.lean")))

    assert verdict.verdict is Outcome.JUDGE_ERROR
    assert "sandbox" in verdict.detail
    assert fake_toolchain.calls("lake") == []


@pytest.mark.parametrize(
    ("solution", "detail"),
    [
        (b"x" * 65_537, "solution is 65537 bytes; the limit is 65536 bytes"),
        (b"theorem answer : Spec := \xff", "solution is not valid UTF-8 (byte 25)"),
    ],
)
def test_pre_checks_reject_without_running_anything(
    fake_toolchain: FakeToolchain, solution: bytes, detail: str
) -> None:
    verdict = judge_lean(job(solution))

    assert (verdict.verdict, verdict.reason, verdict.detail) == (
        Outcome.REJECTED,
        Reason.INVALID_SOLUTION,
        detail,
    )
    assert fake_toolchain.calls() == []


@pytest.mark.parametrize(
    ("verifier", "message"),
    [
        ("verifier_sorry.lean", "helper uses sorryAx"),
        ("verifier_answer.lean", "the verifier declares `answer`"),
        ("verifier_compile_error.lean", "the verifier does not compile (first error at line 3"),
        ("no_spec.lean", "must define a root-level `Spec : Prop`"),
        ("native_allowed.lean", "`Lean.ofReduceBool` no longer exists in Lean 4.35.0"),
    ],
)
def test_unfit_verifier_is_a_judge_error_and_no_solution_is_built(
    fake_toolchain: FakeToolchain, verifier: str, message: str
) -> None:
    verdict = judge_lean(job(program("solutions/ok.lean"), verifier=verifier))

    assert verdict.verdict is Outcome.JUDGE_ERROR
    assert message in verdict.detail
    assert "Submission" not in fake_toolchain.lake_builds()


def test_without_toolchain_the_verdict_is_judge_error(no_toolchain: None) -> None:
    verdict = judge_lean(job(program("solutions/ok.lean")))

    assert verdict.verdict is Outcome.JUDGE_ERROR
    assert verdict.detail == "no Lean toolchain on this server"


def test_bad_limits_are_a_judge_error_not_an_exception(fake_toolchain: FakeToolchain) -> None:
    verdict = judge_lean(job(program("solutions/ok.lean"), time_limit_s=0))

    assert verdict.verdict is Outcome.JUDGE_ERROR
    assert fake_toolchain.calls() == []


def test_verifier_build_past_the_server_cap_is_refused(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_LEAN_MAX_TIME_S", "1")

    verdict = judge_lean(
        job(program("solutions/ok.lean"), verifier="verifier_hang.lean", time_limit_s=1)
    )

    assert verdict.verdict is Outcome.JUDGE_ERROR
    assert "the verifier's build did not finish within 1 s" in verdict.detail


def test_a_budget_over_the_server_cap_is_refused_not_clamped(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_LEAN_MAX_TIME_S", "1")

    verdict = judge_lean(job(program("solutions/ok.lean"), time_limit_s=30))

    assert verdict.verdict is Outcome.JUDGE_ERROR
    assert verdict.detail == (
        "the lean budget is out of range: time_limit_s must be in [0.05, 1] seconds"
    )
    assert fake_toolchain.calls() == []


def test_concurrent_jobs_prepare_the_verifier_once(fake_toolchain: FakeToolchain) -> None:
    import threading

    verdicts = []

    def run() -> None:
        verdicts.append(judge_lean(job(program("solutions/ok.lean"))))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert [v.verdict for v in verdicts] == [Outcome.ACCEPTED, Outcome.ACCEPTED]
    assert fake_toolchain.lake_builds().count("Verifier") == 1
    assert fake_toolchain.lake_builds().count("Submission") == 2


def test_a_sandbox_where_lake_cannot_nest_its_bubblewrap_is_a_judge_error_before_any_build(
    fake_toolchain: FakeToolchain,
) -> None:
    # Real `lake comparator` would exit 1 ("Child exited with 1") for every solution; the canary
    # finds it first, in the job's own sandbox, so nothing is built and nothing is rejected.
    fake_toolchain.configure(nested_bwrap_broken=True)

    verdict = judge_lean(job(program("solutions/ok.lean")))

    assert verdict.verdict is Outcome.JUDGE_ERROR
    assert "could not start Lake's own bubblewrap inside it" in verdict.detail
    assert fake_toolchain.lake_builds() == []
