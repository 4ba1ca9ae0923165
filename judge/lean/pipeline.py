"""Judging one Lean solution: pre-checks, a layered job folder, staged builds, Comparator.

Steps, each in its own sandbox under the job's outer limits (the time budget is shared):

1. ``lake build Submission``  (the solver's file)      fails -> COMPILE_ERROR
2. ``lake build Solution``    (the trusted bridge)     fails -> STATEMENT_MISMATCH
3. ``lake build JudgeAxioms`` (axiom probe)            fails -> AXIOM_VIOLATION
4. ``lake comparator``        (the verdict)            0 -> ACCEPTED, 1 -> REJECTED,
                                                       2 or anything else -> JUDGE_ERROR

Steps 1-3 only ever *reject* and only name the reason; they are decided by exit codes. ACCEPTED
comes from Comparator's exit status 0 and from nothing else; no output is parsed for a verdict
and no log text is shown (the untrusted build shares Comparator's stdout: see the decoy in
shared/reference/003). For step 4 the prepared verifier and the job's trusted sources are
layered *above* whatever the solution build wrote, so a solution can never shadow the challenge's
build artifacts (Comparator Live's overlay order).
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import time
import uuid
from pathlib import Path

from judge import JUDGE_VERSION
from judge.lean import project as gen
from judge.lean.limits import RunResult
from judge.lean.prepare import (
    PreparationFailed,
    PreparedVerifier,
    VerifierRejected,
    prepare_verifier,
)
from judge.lean.project import SpecKind
from judge.lean.sandbox import Layers
from judge.lean.steps import (
    SandboxFailed,
    check_sandbox,
    first_error_position,
    read_name_list,
    remove_stale,
    remove_tree,
    run_step,
)
from judge.lean.toolchain import (
    PROJECTS,
    Toolchain,
    ToolchainUnavailable,
    discover,
    server_caps,
)
from judge.verdict import (
    Reason,
    Verdict,
    accepted,
    check_solution_bytes,
    judge_error,
    rejected,
)

FAKE_VERSION_SUFFIX = "+FAKE-lean-toolchain"
OUT_MOUNT = "/judge/out"


@dataclasses.dataclass(frozen=True, slots=True)
class LeanJob:
    """One solution to judge against one verifier version."""

    verifier_source: str
    solution: bytes | str
    project: str  # "core" | "mathlib"
    time_limit_s: float
    memory_limit_mb: int


@dataclasses.dataclass(slots=True)
class _Run:
    """Mutable bookkeeping for one job: budget, timings, peak memory."""

    toolchain: Toolchain
    time_limit_s: float
    memory_limit_mb: int
    started: float = dataclasses.field(default_factory=time.monotonic)
    peak_memory_mb: float = 0.0
    build_time_s: float = 0.0
    kernel_time_s: float | None = None

    def remaining(self) -> float:
        return self.time_limit_s - (time.monotonic() - self.started)

    def record(self, result: RunResult) -> None:
        self.peak_memory_mb = max(self.peak_memory_mb, result.peak_memory_mb)

    def finish(self, verdict: Verdict) -> Verdict:
        detail = verdict.detail
        version = verdict.judge_version
        if self.toolchain.is_fake:
            # Never let a replayed result pass for a verification.
            detail = f"[FAKE Lean toolchain, test fixture] {detail}"
            version = f"{JUDGE_VERSION}{FAKE_VERSION_SUFFIX}"
        return dataclasses.replace(
            verdict,
            detail=detail,
            judge_version=version,
            wall_time_s=time.monotonic() - self.started,
            max_memory_mb=self.peak_memory_mb or None,
            build_time_s=round(self.build_time_s, 3) if self.build_time_s else None,
            kernel_time_s=self.kernel_time_s,
        )


def _limit_verdict(run: _Run, result: RunResult, phase: str) -> Verdict | None:
    if result.spawn_error is not None:
        return judge_error(f"the Lean sandbox could not start ({result.spawn_error})")
    if result.timed_out:
        return rejected(
            Reason.TIME_LIMIT, f"{phase} did not finish within the {run.time_limit_s:g} s limit"
        )
    if result.memory_exceeded:
        return rejected(
            Reason.MEMORY_LIMIT, f"{phase} used more than the {run.memory_limit_mb} MB limit"
        )
    return None


def _decode_solution(solution: bytes | str) -> str | Verdict:
    if isinstance(solution, str):
        try:
            data = solution.encode("utf-8")
        except UnicodeEncodeError:
            return rejected(Reason.INVALID_SOLUTION, "solution is not valid UTF-8")
    elif isinstance(solution, bytes):
        data = solution
    else:
        return rejected(Reason.INVALID_SOLUTION, "solution must be text")
    return check_solution_bytes(data)


def _validate_limits(job: LeanJob) -> tuple[float, int] | Verdict:
    max_time, max_memory = server_caps()
    try:
        time_limit = float(job.time_limit_s)
        memory_limit = int(job.memory_limit_mb)
    except (TypeError, ValueError):
        return judge_error("the job's time or memory limit is not a number")
    if not time_limit > 0 or memory_limit <= 0:
        return judge_error("the job's time and memory limits must be positive")
    # Caps may have been lowered since publishing: the server's caps win.
    return min(time_limit, max_time), min(memory_limit, max_memory)


def judge_lean(job: LeanJob, *, toolchain: Toolchain | None = None) -> Verdict:
    """Judge ``job``; never raises. JUDGE_ERROR when the toolchain is missing or broken."""
    started = time.monotonic()
    try:
        verdict = _judge(job, toolchain)
    except Exception as exc:  # noqa: BLE001 - the contract is a verdict, never an exception
        verdict = dataclasses.replace(
            judge_error(f"internal error in the Lean judge ({type(exc).__name__})"),
            wall_time_s=time.monotonic() - started,
        )
    if verdict.axioms is None:
        verdict = dataclasses.replace(verdict, axioms=())
    return verdict


def _judge(job: LeanJob, toolchain: Toolchain | None) -> Verdict:
    text = _decode_solution(job.solution)
    if isinstance(text, Verdict):
        return text
    if job.project not in PROJECTS:
        return judge_error(f"unknown Lean project {job.project!r}")
    if not isinstance(job.verifier_source, str):
        return judge_error("the verifier source must be text")
    limits = _validate_limits(job)
    if isinstance(limits, Verdict):
        return limits
    time_limit, memory_limit = limits
    try:
        toolchain = toolchain or discover()
    except ToolchainUnavailable as exc:
        return judge_error(str(exc))

    run = _Run(toolchain=toolchain, time_limit_s=time_limit, memory_limit_mb=memory_limit)
    try:
        prepared = prepare_verifier(job.verifier_source, job.project, toolchain=toolchain)
    except VerifierRejected as exc:
        return run.finish(judge_error(f"the verifier cannot be used: {exc}"))
    except (PreparationFailed, ToolchainUnavailable, SandboxFailed) as exc:
        return run.finish(judge_error(str(exc)))
    # Preparation is the verifier's cost, paid once; the solution's budget starts now.
    run.started = time.monotonic()

    toolchain.work_dir.mkdir(parents=True, exist_ok=True)
    remove_stale(toolchain.work_dir, "job-")
    job_dir = toolchain.work_dir / f"job-{uuid.uuid4().hex}"
    try:
        return run.finish(_judge_in(job_dir, text, prepared, run))
    except SandboxFailed as exc:
        return run.finish(judge_error(str(exc)))
    finally:
        remove_tree(job_dir)


def _write_job_sources(
    src: Path, solution: str, prepared: PreparedVerifier, toolchain: Toolchain
) -> None:
    src.mkdir(parents=True)
    (src / "Submission.lean").write_text(solution, encoding="utf-8")
    (src / "Solution.lean").write_text(gen.bridge_source(prepared.spec_kind), encoding="utf-8")
    (src / "JudgeAxioms.lean").write_text(
        gen.axioms_probe_source(prepared.permitted_axioms), encoding="utf-8"
    )
    standalone = toolchain.standalone_comparator is not None
    gen.write_json(
        src / gen.COMPARATOR_CONFIG,
        gen.comparator_config(
            kind=prepared.spec_kind,
            permitted=prepared.permitted_axioms,
            # `--paranoid` already runs the bundled nanoda among its kernels.
            nanoda=None if toolchain.paranoid and not standalone else toolchain.nanoda,
            standalone=standalone,
            json_output_path=f"{OUT_MOUNT}/report.json" if standalone else None,
            measurement_command=(
                ["/bin/sh", f"{gen.MEASURE_SCRIPT_MOUNT}", f"{OUT_MOUNT}/phases.log"]
                if standalone
                else None
            ),
        ),
    )
    if standalone:
        (src / gen.MEASURE_SCRIPT).write_text(gen.MEASURE_SCRIPT_SOURCE, encoding="utf-8")


def _judge_in(job_dir: Path, solution: str, prepared: PreparedVerifier, run: _Run) -> Verdict:
    toolchain = run.toolchain
    project_dir = toolchain.project_dir(prepared.project)
    src = job_dir / "src"
    _write_job_sources(src, solution, prepared, toolchain)

    trusted = (project_dir, prepared.src_dir, prepared.build_dir, src)
    build_layers = Layers(lower=trusted, upper=job_dir / "build", workdir=job_dir / "build-work")
    check_sandbox(toolchain, build_layers, run.memory_limit_mb)

    def build(module: str) -> RunResult:
        result = run_step(
            toolchain,
            build_layers,
            [str(toolchain.lake), "build", module],
            time_limit_s=run.remaining(),
            memory_limit_mb=run.memory_limit_mb,
        )
        run.record(result)
        return result

    result = build("Submission")
    run.build_time_s += result.wall_time_s
    if verdict := _limit_verdict(run, result, "the solution's build"):
        return verdict
    if result.exit_code != 0:
        position = first_error_position(result.output_tail, "Submission.lean")
        where = f" (first error at line {position[0]}, column {position[1]})" if position else ""
        return rejected(Reason.COMPILE_ERROR, f"the solution does not compile{where}")

    result = build("Solution")
    run.build_time_s += result.wall_time_s
    if verdict := _limit_verdict(run, result, "the solution's build"):
        return verdict
    if result.exit_code != 0:
        kind = (
            "`theorem answer : Spec`"
            if prepared.spec_kind is SpecKind.PROP
            else ("`def answer : Spec`")
        )
        return rejected(
            Reason.STATEMENT_MISMATCH,
            f"the solution must define a root-level {kind} whose type is the verifier's "
            "`Spec` (start it with `import Verifier` and do not define your own `Spec`)",
        )

    result = build("JudgeAxioms")
    if verdict := _limit_verdict(run, result, "the axiom check"):
        return verdict
    if result.exit_code != 0:
        return _axiom_verdict(
            read_name_list(build_layers.upper / gen.AXIOMS_REPORT), prepared.permitted_axioms
        )

    return _compare(job_dir, src, trusted, prepared, run)


def _axiom_verdict(offending: tuple[str, ...] | None, permitted: tuple[str, ...]) -> Verdict:
    allowed = ", ".join(permitted)
    if not offending:
        return rejected(
            Reason.AXIOM_VIOLATION,
            f"the answer rests on an axiom outside the allowlist ({allowed})",
        )
    detail = f"the answer rests on axioms outside the allowlist ({allowed}): " + ", ".join(
        offending
    )
    if any("._native." in name or name.startswith("_native.") for name in offending):
        detail += (
            "; native_decide and other native computation cannot be checked by a kernel and "
            "are not accepted: use decide"
        )
    elif "sorryAx" in offending:
        detail += "; the proof contains sorry"
    return rejected(Reason.AXIOM_VIOLATION, detail, axioms=offending)


def _compare(
    job_dir: Path,
    src: Path,
    trusted: tuple[Path, ...],
    prepared: PreparedVerifier,
    run: _Run,
) -> Verdict:
    toolchain = run.toolchain
    # The solution's writes go *under* every trusted layer: challenge artifacts always win.
    layers = Layers(
        lower=(job_dir / "build", *trusted),
        upper=job_dir / "compare",
        workdir=job_dir / "compare-work",
    )
    out = job_dir / "out"
    out.mkdir()
    if toolchain.standalone_comparator is None:
        command = [
            str(toolchain.lake),
            toolchain.lake_subcommand,
            "--config",
            gen.COMPARATOR_CONFIG,
        ]
        if toolchain.paranoid:
            command.append("--paranoid")
        extra_env = {"COMPARATOR_BWRAP": str(toolchain.bwrap)}
        readable: tuple[Path, ...] = ()
        writable: tuple[tuple[Path, str], ...] = ()
    else:
        assert toolchain.landrun is not None and toolchain.lean4export is not None
        command = [
            str(toolchain.lake),
            "env",
            str(toolchain.standalone_comparator),
            gen.COMPARATOR_CONFIG,
        ]
        extra_env = {
            "COMPARATOR_LANDRUN": str(toolchain.landrun),
            "COMPARATOR_LEAN4EXPORT": str(toolchain.lean4export),
        }
        if toolchain.nanoda is not None:
            extra_env["COMPARATOR_NANODA"] = str(toolchain.nanoda)
        readable = (toolchain.standalone_comparator, toolchain.landrun, toolchain.lean4export)
        writable = ((out, OUT_MOUNT),)
    result = run_step(
        toolchain,
        layers,
        command,
        time_limit_s=run.remaining(),
        memory_limit_mb=run.memory_limit_mb,
        extra_env=extra_env,
        extra_readable=readable,
        writable_binds=writable,
    )
    run.record(result)
    if toolchain.standalone_comparator is not None:
        _read_phases(out / "phases.log", run)
    if verdict := _limit_verdict(run, result, "the comparator check"):
        return verdict
    if result.exit_code == 0:
        return accepted(
            "accepted: the kernel"
            + (" and the bundled extra kernels" if toolchain.paranoid else " and nanoda")
            + " check `answer : Spec` against the verifier, using only "
            + ", ".join(prepared.permitted_axioms),
            axioms=(),
        )
    if result.exit_code == 1:
        if toolchain.standalone_comparator is not None:
            structured = _standalone_reason(out / "report.json", prepared.permitted_axioms)
            if structured is not None:
                return structured
        return rejected(
            Reason.STATEMENT_MISMATCH,
            "Comparator rejected the solution: the statement it proves, or a declaration the "
            "statement uses, differs from the verifier's, or a kernel refused a declaration",
        )
    return judge_error(
        f"the comparator could not run (exit status {result.exit_code}); the toolchain or its "
        "sandbox is broken"
    )


def _read_phases(path: Path, run: _Run) -> None:
    """Sum the measurement adapter's phase timings (standalone comparator only)."""
    build = kernel = 0.0
    try:
        lines = path.read_text(encoding="utf-8").splitlines()[:200]
    except (OSError, UnicodeDecodeError):
        return
    for line in lines:
        parts = shlex.split(line) if line.count(" ") < 8 else []
        if len(parts) != 3:
            continue
        phase, begin, end = parts
        try:
            elapsed = max(0.0, float(end) - float(begin))
        except ValueError:
            continue
        if phase == "build":
            build += elapsed
        elif phase == "checker":
            kernel += elapsed
    if build:
        run.build_time_s += build
    if kernel:
        run.kernel_time_s = round(kernel, 3)


def _standalone_reason(report: Path, permitted: tuple[str, ...]) -> Verdict | None:
    """Refine a standalone comparator rejection from its JSON report (never to accept)."""
    try:
        if report.stat().st_size > 1024 * 1024:
            return None
        data = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("reports"), list):
        return None
    offending: list[str] = []
    mismatch = False
    for item in data["reports"]:
        if not isinstance(item, dict):
            continue
        if item.get("failureCategory") == "axioms":
            offending += [
                name for name in item.get("unpermittedAxioms", []) if isinstance(name, str)
            ]
        elif item.get("failureCategory") == "comparison":
            mismatch = True
    if offending:
        return _axiom_verdict(tuple(dict.fromkeys(offending))[:20], permitted)
    if mismatch:
        return rejected(
            Reason.STATEMENT_MISMATCH,
            "Comparator rejected the solution: the statement or a declaration it uses differs "
            "from the verifier's",
        )
    if data.get("kernelAccepted") is False or data.get("nanodaAccepted") is False:
        return rejected(Reason.STATEMENT_MISMATCH, "a kernel refused a declaration of the solution")
    return None
