"""Step 4: Comparator (``lake comparator``, or standalone) decides; exit 0 is the only accept."""

from __future__ import annotations

import shlex
from pathlib import Path

from judge.lean import project as gen
from judge.lean.outcome import JobRun, limit_verdict
from judge.lean.outputs import collect_outputs
from judge.lean.prepare import PreparedVerifier
from judge.lean.sandbox import Layers, comparator_env
from judge.lean.steps import run_step
from judge.lean.toolchain import Toolchain
from judge.verdict import Reason, Verdict, accepted, judge_error, rejected

OUT_MOUNT = "/judge/out"
_ARTIFACT_MODULES = ("Submission", "Solution")


def copy_solution_artifacts(build: Path, artifacts: Path) -> None:
    """Copy the solution's own outputs (``Submission.*``, ``Solution.*``) out of a build layer.

    Everything else the build wrote is dropped (judge.lean.outputs.collect_outputs).
    """
    collect_outputs(build, _ARTIFACT_MODULES, artifacts, strict=False)


PARANOID_KERNELS = ("leanchecker-paranoid", "lean4lean", "nanoda", "con-leche", "con-ron")


def kernel_checks(toolchain: Toolchain) -> str:
    """Exactly the kernels step 4 runs with this toolchain, as the verdict names them.

    ``lake comparator`` always runs Lean's kernel (``leanchecker``); ``--paranoid`` adds the
    bundled kernels; otherwise the config's ``external_kernels`` adds nanoda. Standalone
    comparator has no ``--paranoid``: it runs Lean's kernel and nanoda from the config, and the
    preflight refuses it without nanoda (judge.lean.toolchain.discover).
    """
    if toolchain.standalone_comparator is None and toolchain.paranoid:
        return (
            "Lean's kernel and the bundled kernels of `--paranoid` ("
            + ", ".join(PARANOID_KERNELS)
            + ")"
        )
    if toolchain.nanoda is not None:
        return "Lean's kernel and nanoda"
    return "Lean's kernel"


def comparator_layers(job_dir: Path, trusted: tuple[Path, ...]) -> Layers:
    """Step 4's layers: the copied artifacts at the very bottom, every trusted layer above."""
    return Layers(
        lower=(job_dir / "artifacts", *trusted),
        upper=job_dir / "compare",
        workdir=job_dir / "compare-work",
    )


def run_comparator(
    job_dir: Path,
    trusted: tuple[Path, ...],
    prepared: PreparedVerifier,
    run: JobRun,
) -> Verdict:
    """Run Comparator over the job's build; only its exit status 0 is ACCEPTED.

    ``trusted`` are the lower layers of the solution's build (project, prepared verifier, job
    sources); the solution's own build artifacts (and nothing else it wrote) are mounted beneath
    all of them.
    """
    toolchain = run.toolchain
    # The solution's outputs were copied to `artifacts/` step by step (pipeline.py); they lie
    # *under* every trusted layer: the challenge's outputs and the lakefile always win.
    layers = comparator_layers(job_dir, trusted)
    out = job_dir / "out"
    out.mkdir()
    if toolchain.standalone_comparator is None:
        command = [str(toolchain.lake), "comparator", "--config", gen.COMPARATOR_CONFIG]
        if toolchain.paranoid:
            command.append("--paranoid")
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
        readable = (toolchain.standalone_comparator, toolchain.landrun, toolchain.lean4export)
        writable = ((out, OUT_MOUNT),)
    result = run_step(
        toolchain,
        layers,
        command,
        time_limit_s=run.remaining(),
        memory_limit_mb=run.memory_limit_mb,
        extra_env=comparator_env(toolchain),
        extra_readable=readable,
        writable_binds=writable,
    )
    run.record(result)
    if toolchain.standalone_comparator is not None:
        _read_phases(out / "phases.log", run)
    if verdict := limit_verdict(run, result, "the comparator check"):
        return verdict
    if result.exit_code == 0:
        return accepted(
            f"accepted: {kernel_checks(toolchain)} checked `answer : Spec` against the "
            "verifier, using only " + ", ".join(prepared.permitted_axioms),
            axioms=(),
        )
    if result.exit_code == 1:
        # Exit 1 says only "rejected": no report is read (the untrusted build shares the
        # comparator's output, and no merged Comparator revision writes a report file).
        return rejected(
            Reason.STATEMENT_MISMATCH,
            "Comparator rejected the solution: the statement it proves, or a declaration the "
            "statement uses, differs from the verifier's, or it rests on an axiom outside the "
            "allowlist (" + ", ".join(prepared.permitted_axioms) + "), or a kernel refused a "
            "declaration",
        )
    return judge_error(
        f"the comparator could not run (exit status {result.exit_code}); the toolchain or its "
        "sandbox is broken"
    )


def _read_phases(path: Path, run: JobRun) -> None:
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
