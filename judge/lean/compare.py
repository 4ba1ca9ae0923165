"""Step 4: Comparator (``lake comparator``, or standalone) decides; exit 0 is the only accept."""

from __future__ import annotations

import itertools
import os
import shlex
import shutil
import stat
from pathlib import Path

from judge.lean import project as gen
from judge.lean.outcome import JobRun, limit_verdict
from judge.lean.prepare import PreparedVerifier
from judge.lean.sandbox import Layers, comparator_env
from judge.lean.steps import run_step
from judge.verdict import Reason, Verdict, accepted, judge_error, rejected

OUT_MOUNT = "/judge/out"
# The only files of the solution's build layer that Comparator may see: Lake's outputs for the two
# untrusted modules, in the two folders Lake writes them to. Everything else the solution wrote
# during its build (a `lakefile.lean`, which Lake prefers to our `lakefile.toml`; files under
# `.lake/packages`; other modules' oleans) is dropped, because the processes that decide the
# verdict (`lake comparator`, or `lake env` in front of standalone comparator) load the workspace
# from this folder before any sandbox of theirs starts.
_ARTIFACT_DIRS = (".lake/build/lib/lean", ".lake/build/ir")
_ARTIFACT_MODULES = ("Submission", "Solution")
MAX_SCANNED_ENTRIES = 10_000


def _plain_directory(root: Path, relative: str) -> Path | None:
    """``root/relative`` if every component below ``root`` is a real directory (no symlink)."""
    current = root
    for part in Path(relative).parts:
        current = current / part
        try:
            mode = current.lstat().st_mode
        except OSError:
            return None
        if not stat.S_ISDIR(mode):
            return None
    return current


def copy_solution_artifacts(build: Path, artifacts: Path) -> None:
    """Copy (hard-link where possible) the solution's own build outputs into ``artifacts``.

    Regular files named ``Submission.*`` or ``Solution.*`` directly in Lake's output folders;
    symlinks, sub-folders and anything else are skipped. All of the solution's processes are dead
    by now, so nothing can swap a file between the check and the copy.
    """
    artifacts.mkdir(parents=True, exist_ok=True)
    for relative in _ARTIFACT_DIRS:
        folder = _plain_directory(build, relative)
        if folder is None:
            continue
        # The solution chose how many files this folder holds: look at a bounded number (a
        # missing artifact only makes Comparator's Lake rebuild it in its own sandbox).
        for entry in itertools.islice(folder.iterdir(), MAX_SCANNED_ENTRIES):
            if entry.name.split(".", 1)[0] not in _ARTIFACT_MODULES or "." not in entry.name:
                continue
            try:
                if not stat.S_ISREG(entry.lstat().st_mode):
                    continue
            except OSError:
                continue
            target = artifacts / relative / entry.name
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(entry, target, follow_symlinks=False)
            except OSError:
                shutil.copy2(entry, target, follow_symlinks=False)


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
    artifacts = job_dir / "artifacts"
    copy_solution_artifacts(job_dir / "build", artifacts)
    # The solution's artifacts go *under* every trusted layer: challenge artifacts always win.
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
            "accepted: the kernel"
            + (" and the bundled extra kernels" if toolchain.paranoid else " and nanoda")
            + " check `answer : Spec` against the verifier, using only "
            + ", ".join(prepared.permitted_axioms),
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
