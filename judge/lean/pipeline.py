"""Judging one Lean solution: pre-checks, a layered job folder, staged builds, Comparator.

Steps, each in its own sandbox under the job's outer limits (the time budget is shared):

1. ``lake build Submission``  (the solver's file)      fails -> COMPILE_ERROR
2. ``lake build Solution``    (the trusted bridge)     fails -> STATEMENT_MISMATCH
3. ``lake build JudgeAxioms`` (axiom probe)            fails naming axioms -> AXIOM_VIOLATION;
                                                       fails otherwise -> on to step 4
4. ``lake comparator``        (the verdict)            0 -> ACCEPTED, 1 -> REJECTED,
                                                       2 or anything else -> JUDGE_ERROR

Steps 1-3 only ever *reject* and only name the reason; they are decided by exit codes. ACCEPTED
comes from Comparator's exit status 0 and from nothing else; no output is parsed for a verdict
and no log text is shown (the untrusted build shares Comparator's stdout: see the decoy in
shared/reference/003). Each step builds into a fresh upper layer of its
own that is discarded afterwards; only the module's own outputs (``Submission.*``, then
``Solution.*``) are copied out (judge.lean.outputs) into ``artifacts/``, which every later step
mounts *beneath* the trusted layers (project, prepared verifier, job sources). So a later step's
lakefile, toolchain, Mathlib and challenge outputs come only from read-only trusted layers, and
nothing a solution's build wrote can shadow them (Comparator Live's overlay order).
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from pathlib import Path

from judge.budgets import Budgets, LanguageBudget
from judge.lean import project as gen
from judge.lean.canary import check_sandbox
from judge.lean.compare import OUT_MOUNT, run_comparator
from judge.lean.limits import RunResult
from judge.lean.modules import solution_module_error
from judge.lean.outcome import FAKE_VERSION_SUFFIX, JobRun, axiom_verdict, limit_verdict
from judge.lean.outputs import collect_outputs
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
    Outcome,
    Reason,
    Verdict,
    check_solution_bytes,
    judge_error,
    rejected,
)

__all__ = ["FAKE_VERSION_SUFFIX", "LeanJob", "judge_lean"]


@dataclasses.dataclass(frozen=True, slots=True)
class LeanJob:
    """One solution to judge against one verifier version."""

    verifier_source: str
    solution: bytes | str
    project: str  # "core" | "mathlib"
    time_limit_s: float
    memory_limit_mb: int
    # The allowed range (None: the server's caps from the environment): outside it, refused.
    budget: LanguageBudget | None = None


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
    try:
        budget = job.budget if job.budget is not None else Budgets.from_env().lean
    except ValueError as exc:
        return judge_error(f"the server's Lean caps are invalid: {exc}")
    refusal = budget.refusal(time_limit_s=job.time_limit_s, memory_limit_mb=job.memory_limit_mb)
    if refusal is not None:
        # Never clamped: a verdict is computed under exactly the budget the author published.
        return judge_error(refusal)
    return float(job.time_limit_s), int(job.memory_limit_mb)


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
    module_error = solution_module_error(job.verifier_source, text)
    if module_error is not None:
        return rejected(Reason.INVALID_SOLUTION, module_error)
    limits = _validate_limits(job)
    if isinstance(limits, Verdict):
        return limits
    time_limit, memory_limit = limits
    try:
        toolchain = toolchain or discover()
    except ToolchainUnavailable as exc:
        return judge_error(str(exc))

    run = JobRun(toolchain=toolchain, time_limit_s=time_limit, memory_limit_mb=memory_limit)
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
        verdict = _judge_in(job_dir, text, prepared, run)
    except SandboxFailed as exc:
        return run.finish(judge_error(str(exc)))
    finally:
        remove_tree(job_dir)
    finished = run.finish(verdict)
    if verdict.verdict is Outcome.REJECTED and verdict.reason in _PLATFORM_AMBIGUOUS:
        problem = self_check(toolchain, job.project, memory_limit)
        if problem is not None:
            return run.finish(judge_error(problem))
    return finished


# Rejections whose exit status a broken platform produces too: `lake build` failing for a reason
# of ours (an unwritable layer, a full disk), and `lake comparator`'s exit 1, which Lake also
# returns when its own nested sandbox, `lake env` or exporter fails inside its check. Before such
# a rejection stands, a known-good solution must be accepted on the same toolchain and project.
_PLATFORM_AMBIGUOUS = frozenset(
    {Reason.COMPILE_ERROR, Reason.STATEMENT_MISMATCH, Reason.AXIOM_VIOLATION}
)
CANARY_VERIFIER = "abbrev Spec : Prop := True\n"
CANARY_SOLUTION = "import Verifier\n\ntheorem answer : Spec := trivial\n"
CANARY_TIME_LIMIT_S = 180.0
CANARY_MIN_MEMORY_MB = 2048


def self_check(toolchain: Toolchain, project: str, memory_limit_mb: int) -> str | None:
    """None when a known-good solution is ACCEPTED end to end here; else what went wrong.

    Runs the same steps, sandbox and comparator as a job, in a fresh job folder of its own (the
    rejected solution's processes and files are gone by then). It can only turn a rejection
    into a JUDGE_ERROR (retried later), never into an acceptance.
    """
    max_time, max_memory = server_caps()
    try:
        prepared = prepare_verifier(CANARY_VERIFIER, project, toolchain=toolchain)
    except (VerifierRejected, PreparationFailed, ToolchainUnavailable, SandboxFailed) as exc:
        return f"the Lean judge failed its self-check (preparing a known-good problem: {exc})"
    canary = JobRun(
        toolchain=toolchain,
        time_limit_s=min(CANARY_TIME_LIMIT_S, max_time),
        memory_limit_mb=min(max(memory_limit_mb, CANARY_MIN_MEMORY_MB), max_memory),
    )
    job_dir = toolchain.work_dir / f"job-selfcheck-{uuid.uuid4().hex}"
    try:
        verdict = _judge_in(job_dir, CANARY_SOLUTION, prepared, canary)
    except SandboxFailed as exc:
        return f"the Lean judge failed its self-check ({exc})"
    finally:
        remove_tree(job_dir)
    if verdict.verdict is Outcome.ACCEPTED:
        return None
    what = verdict.reason.value if verdict.reason is not None else verdict.verdict.value
    return (
        "the Lean judge failed its self-check: a known-good solution was not accepted "
        f"({what}), so this rejection cannot be trusted; the solution will be judged again"
    )


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
            measurement_command=(
                ["/bin/sh", f"{gen.MEASURE_SCRIPT_MOUNT}", f"{OUT_MOUNT}/phases.log"]
                if standalone
                else None
            ),
        ),
    )
    if standalone:
        (src / gen.MEASURE_SCRIPT).write_text(gen.MEASURE_SCRIPT_SOURCE, encoding="utf-8")


def job_layers(
    job_dir: Path, project_dir: Path, prepared: PreparedVerifier
) -> tuple[tuple[Path, ...], Layers]:
    """The trusted lower layers of a job (bottom first) and the layers of its first step.

    Later steps are built by :func:`step_layers`: the solution's copied outputs at the very
    bottom, every trusted layer above them, and a fresh upper layer of their own.
    """
    trusted = (project_dir, prepared.src_dir, prepared.build_dir, job_dir / "src")
    return trusted, step_layers(job_dir, trusted, "submission")


def step_layers(job_dir: Path, trusted: tuple[Path, ...], step: str) -> Layers:
    """One solution step's overlay: copied outputs beneath the trusted layers, its own upper."""
    artifacts = job_dir / "artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    return Layers(
        lower=(artifacts, *trusted),
        upper=job_dir / "steps" / step / "upper",
        workdir=job_dir / "steps" / step / "work",
    )


def write_job_sources(
    job_dir: Path, solution: str, prepared: PreparedVerifier, toolchain: Toolchain
) -> None:
    """The job's trusted sources (its top lower layer): the solution and generated files."""
    _write_job_sources(job_dir / "src", solution, prepared, toolchain)


def _judge_in(job_dir: Path, solution: str, prepared: PreparedVerifier, run: JobRun) -> Verdict:
    toolchain = run.toolchain
    project_dir = toolchain.project_dir(prepared.project)
    src = job_dir / "src"
    _write_job_sources(src, solution, prepared, toolchain)

    trusted, first_layers = job_layers(job_dir, project_dir, prepared)
    check_sandbox(toolchain, first_layers, run.memory_limit_mb)
    # The canary is the platform's cost: the solution's time budget starts after it.
    run.started = time.monotonic()
    artifacts = job_dir / "artifacts"

    def build(module: str, step: str) -> tuple[RunResult, Layers]:
        layers = step_layers(job_dir, trusted, step)
        result = run_step(
            toolchain,
            layers,
            [str(toolchain.lake), "build", module],
            time_limit_s=run.remaining(),
            memory_limit_mb=run.memory_limit_mb,
        )
        run.record(result)
        return result, layers

    def hand_on(layers: Layers, modules: tuple[str, ...]) -> None:
        # Only the module's own outputs travel; the rest of what the build wrote (a
        # `lakefile.lean`, planted oleans) is dropped with its layer. The solution's processes
        # are all dead by now.
        collect_outputs(layers.upper, modules, artifacts, strict=False)
        remove_tree(layers.upper.parent)

    result, layers = build("Submission", "submission")
    run.build_time_s += result.wall_time_s
    if verdict := limit_verdict(run, result, "the solution's build"):
        return verdict
    if result.exit_code != 0:
        position = first_error_position(result.output_tail, "Submission.lean")
        where = f" (first error at line {position[0]}, column {position[1]})" if position else ""
        return rejected(Reason.COMPILE_ERROR, f"the solution does not compile{where}")
    hand_on(layers, ("Submission",))

    result, layers = build("Solution", "solution")
    run.build_time_s += result.wall_time_s
    if verdict := limit_verdict(run, result, "the solution's build"):
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
    hand_on(layers, ("Solution",))

    # The probe builds in a fresh layer: only its own build can leave the report there.
    result, layers = build("JudgeAxioms", "probe")
    if verdict := limit_verdict(run, result, "the axiom check"):
        return verdict
    if result.exit_code != 0:
        # A failed probe build is an axiom problem only when the probe names the axioms. In the
        # `core` project `import Lean` pulls all of Lean and Std into the probe, so a correct
        # solution that declares a name Lean also declares, or global notation that breaks the
        # probe's text, fails this build too: then Comparator (which decides axioms) decides.
        offending = read_name_list(layers.upper, gen.AXIOMS_REPORT)
        if offending:
            return axiom_verdict(offending, prepared.permitted_axioms)
    remove_tree(layers.upper.parent)

    return run_comparator(job_dir, trusted, prepared, run)
