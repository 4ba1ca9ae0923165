"""Preparing a verifier once per version: build, decide Spec's kind, audit, keep read-only.

A prepared verifier lives in ``<cache>/<key>/`` where ``key`` is the sha256 of the verifier's
source, the project, the toolchain's identity and the judge's version:

    src/            lakefile.toml, Verifier.lean, JudgeChallenge.lean, JudgeAudit.lean
    build/          the expected outputs only (``Verifier.*``, ``JudgeChallenge.*``,
                    ``JudgeAudit.*`` under ``.lake/build/lib/lean`` and ``.lake/build/ir``),
                    COPIED out of each build's own upper layer (judge.lean.outputs)
    prepared.json   spec kind, permitted axioms, timings

Each build writes to a fresh upper layer of its own that is discarded afterwards: ``Verifier``
over the project and the sources; ``JudgeChallenge`` and ``JudgeAudit`` over those and the
copied ``Verifier`` outputs, read-only. Whatever else a build wrote (the verifier's ``#eval`` can
write a ``lakefile.lean``, which Lake prefers to ``lakefile.toml``, or plant oleans) is a
publishing error that names the file; it never becomes part of a trusted layer.

It is built in a staging folder and renamed into place only when complete, with its files made
read-only; solution jobs mount it only as a lower overlay layer, so no solution build can write
into it. An existing entry is reused without running anything.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import time
import uuid
from pathlib import Path

from judge import JUDGE_VERSION
from judge.lean import project as gen
from judge.lean.allow import parse_allow_line
from judge.lean.canary import check_sandbox
from judge.lean.limits import RunResult
from judge.lean.modules import verifier_module_error
from judge.lean.outputs import UnexpectedOutput, collect_outputs
from judge.lean.prepare_messages import (
    AUDIT_UNBUILDABLE_MESSAGE,
    audit_message,
    limit_message,
    position_suffix,
)
from judge.lean.project import SpecKind
from judge.lean.sandbox import Layers
from judge.lean.steps import (
    make_read_only,
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

# Bump when a generated file changes: prepared builds from older generators are not reused.
# 2: the audit refuses a verifier that declares `answer`; 3: it reports a widened non-axiom;
# 4: `build/` holds copied expected outputs only (older entries kept a whole upper layer);
# 5: widened axioms are checked in the challenge's own environment.
GENERATOR_VERSION = "5"
MAX_VERIFIER_BYTES = 256 * 1024


class VerifierRejected(Exception):
    """The verifier cannot be published as written; the message is for its author."""


class PreparationFailed(Exception):
    """The platform could not prepare the verifier (sandbox, disk): retry later."""


@dataclasses.dataclass(frozen=True, slots=True)
class PreparedVerifier:
    """A verifier built once, read-only, ready to be layered under solution jobs."""

    key: str
    path: Path
    project: str
    spec_kind: SpecKind
    permitted_axioms: tuple[str, ...]
    widened_axioms: tuple[str, ...]
    build_time_s: float

    @property
    def src_dir(self) -> Path:
        return self.path / "src"

    @property
    def build_dir(self) -> Path:
        return self.path / "build"


def cache_key(source: str, project: str, toolchain: Toolchain) -> str:
    material = json.dumps(
        {
            "judge": JUDGE_VERSION,
            "generator": GENERATOR_VERSION,
            "project": project,
            "toolchain": toolchain.identity,
            "verifier_sha256": hashlib.sha256(source.encode("utf-8")).hexdigest(),
        },
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()


def _load(entry: Path) -> PreparedVerifier | None:
    try:
        data = json.loads((entry / "prepared.json").read_text(encoding="utf-8"))
        return PreparedVerifier(
            key=data["key"],
            path=entry,
            project=data["project"],
            spec_kind=SpecKind(data["spec_kind"]),
            permitted_axioms=tuple(data["permitted_axioms"]),
            widened_axioms=tuple(data["widened_axioms"]),
            build_time_s=float(data["build_time_s"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _build(
    toolchain: Toolchain, layers: Layers, module: str, deadline: float, memory_limit_mb: float
) -> RunResult:
    return run_step(
        toolchain,
        layers,
        [str(toolchain.lake), "build", module],
        time_limit_s=deadline - time.monotonic(),
        memory_limit_mb=memory_limit_mb,
    )


def prepare_verifier(
    source: str,
    project: str,
    *,
    toolchain: Toolchain | None = None,
    time_limit_s: float | None = None,
    memory_limit_mb: int | None = None,
) -> PreparedVerifier:
    """Build and audit ``source`` once (or reuse the build); raise VerifierRejected if unfit.

    Raises PreparationFailed or ToolchainUnavailable for platform faults. The limits default to
    the server's caps (preparation is the author's cost, paid once at publishing).
    """
    toolchain = toolchain or discover()
    max_time, max_memory = server_caps()
    time_limit = min(time_limit_s or max_time, max_time)
    memory_limit = min(memory_limit_mb or max_memory, max_memory)
    if project not in PROJECTS:
        raise VerifierRejected(f"unknown Lean project {project!r}; use one of {PROJECTS}")
    if project not in toolchain.projects:
        raise ToolchainUnavailable(f"the {project} Lake project is not installed on this server")
    if len(source.encode("utf-8")) > MAX_VERIFIER_BYTES:
        raise VerifierRejected(f"the verifier is larger than {MAX_VERIFIER_BYTES} bytes")
    allow = parse_allow_line(source)
    if not allow.ok:
        raise VerifierRejected("; ".join(allow.errors))
    module_error = verifier_module_error(source)
    if module_error is not None:
        raise VerifierRejected(module_error)

    key = cache_key(source, project, toolchain)
    entry = toolchain.cache_dir / key
    found = _load(entry)
    if found is not None:
        return found

    toolchain.cache_dir.mkdir(parents=True, exist_ok=True)
    with open(toolchain.cache_dir / f"{key}.lock", "w") as lock:
        # Two workers preparing the same verifier: the second waits and reuses the first's build.
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = _load(entry)
        if found is not None:
            return found
        remove_stale(toolchain.cache_dir / ".staging", "")
        staging = toolchain.cache_dir / ".staging" / f"{key}-{uuid.uuid4().hex}"
        try:
            prepared = _prepare_in(
                staging, source, project, key, allow.widened, toolchain, time_limit, memory_limit
            )
            remove_tree(staging / "work")
            make_read_only(staging)
            staging.rename(entry)
        finally:
            remove_tree(staging)
    return dataclasses.replace(prepared, path=entry)


def _prepare_in(
    staging: Path,
    source: str,
    project: str,
    key: str,
    widened: tuple[str, ...],
    toolchain: Toolchain,
    time_limit_s: float,
    memory_limit_mb: int,
) -> PreparedVerifier:
    src = staging / "src"
    src.mkdir(parents=True)
    project_dir = toolchain.project_dir(project)
    permitted = parse_allow_line(source).permitted_axioms
    (src / "lakefile.toml").write_text(
        gen.lakefile((project_dir / "lakefile.toml").read_text(encoding="utf-8")),
        encoding="utf-8",
    )
    (src / "Verifier.lean").write_text(source, encoding="utf-8")
    (src / "JudgeAudit.lean").write_text(gen.audit_source(permitted, widened), encoding="utf-8")
    outputs = staging / "build"
    outputs.mkdir()
    steps = staging / "work"

    def layers_for(step: str, *, with_outputs: bool) -> Layers:
        lower = (project_dir, src, outputs) if with_outputs else (project_dir, src)
        return Layers(lower=lower, upper=steps / step / "upper", workdir=steps / step / "work")

    def publish(step: str, modules: tuple[str, ...], reports: tuple[str, ...] = ()) -> None:
        upper = steps / step / "upper"
        try:
            collect_outputs(upper, modules, outputs, reports=reports, strict=True)
        except UnexpectedOutput as exc:
            raise VerifierRejected(
                f"building the verifier ({step}) wrote files other than its own build outputs: "
                f"{exc}; a verifier must not write files while it is built (no `IO.FS` writes "
                "in `#eval`, `run_cmd` or `initialize`)"
            ) from exc
        remove_tree(steps / step)

    try:
        check_sandbox(toolchain, layers_for("canary", with_outputs=False), memory_limit_mb)
    except Exception as exc:
        raise PreparationFailed(str(exc)) from exc
    remove_tree(steps / "canary")

    started = time.monotonic()
    deadline = started + time_limit_s
    result = _build(
        toolchain, layers_for("verifier", with_outputs=False), "Verifier", deadline, memory_limit_mb
    )
    limit = limit_message(result, "the verifier's build", time_limit_s)
    if limit:
        raise VerifierRejected(limit)
    if result.exit_code != 0:
        raise VerifierRejected(
            "the verifier does not compile" + position_suffix(result, "Verifier.lean")
        )
    publish("verifier", ("Verifier",))

    # Always try `theorem` first: Lean also accepts `def x : P := ...` for a Prop `P`, so only
    # the theorem's failure ("not a proposition") shows that Spec is a Type. Verifier's outputs
    # are a read-only lower layer now: nothing these builds write can replace them.
    kind: SpecKind | None = None
    for candidate in (SpecKind.PROP, SpecKind.TYPE):
        (src / "JudgeChallenge.lean").write_text(gen.challenge_source(candidate), "utf-8")
        step = f"challenge-{candidate.value}"
        result = _build(
            toolchain,
            layers_for(step, with_outputs=True),
            "JudgeChallenge",
            deadline,
            memory_limit_mb,
        )
        limit = limit_message(result, "the verifier's challenge build", time_limit_s)
        if limit:
            raise VerifierRejected(limit)
        if result.exit_code == 0:
            kind = candidate
            publish(step, ("JudgeChallenge",))
            break
        remove_tree(steps / step)
    if kind is None:
        raise VerifierRejected(
            "the verifier must define a root-level `Spec : Prop` (a statement to prove) or "
            "`Spec : Type` (a type of witnesses), without universe parameters"
        )

    result = _build(
        toolchain, layers_for("audit", with_outputs=True), "JudgeAudit", deadline, memory_limit_mb
    )
    limit = limit_message(result, "the verifier's axiom audit", time_limit_s)
    if limit:
        raise VerifierRejected(limit)
    if result.exit_code != 0:
        raise VerifierRejected(
            audit_message(steps / "audit" / "upper", widened)
            or AUDIT_UNBUILDABLE_MESSAGE + position_suffix(result, "JudgeAudit.lean")
        )
    publish("audit", ("JudgeAudit",), reports=(gen.AUDIT_REPORT,))

    if widened:
        # The audit imports `Lean` too, so a widened name that only `import Lean` brings passes
        # it; Comparator permits only axioms of the challenge's own environment (`import
        # Verifier`), where such a name is missing and every solution would be rejected.
        (src / "JudgeWidened.lean").write_text(gen.widened_source(widened), "utf-8")
        result = _build(
            toolchain,
            layers_for("widened", with_outputs=True),
            "JudgeWidened",
            deadline,
            memory_limit_mb,
        )
        limit = limit_message(result, "the check of the widened axioms", time_limit_s)
        if limit:
            raise VerifierRejected(limit)
        if result.exit_code != 0:
            raise VerifierRejected(
                "the first line allows "
                + ", ".join(widened)
                + ", but the challenge (a file with only `import Verifier`) does not see "
                "every one of them: an allowed axiom must be declared by the verifier or by "
                "what it imports (not only by `import Lean`)"
            )
        publish("widened", ("JudgeWidened",))

    build_time = round(time.monotonic() - started, 3)
    prepared = PreparedVerifier(
        key=key,
        path=staging,
        project=project,
        spec_kind=kind,
        permitted_axioms=permitted,
        widened_axioms=widened,
        build_time_s=build_time,
    )
    gen.write_json(
        staging / "prepared.json",
        {
            "key": key,
            "project": project,
            "spec_kind": kind.value,
            "permitted_axioms": list(permitted),
            "widened_axioms": list(widened),
            "build_time_s": build_time,
            "lean": toolchain.lean_version,
            "judge_version": JUDGE_VERSION,
        },
    )
    return prepared


__all__ = [
    "PreparationFailed",
    "PreparedVerifier",
    "VerifierRejected",
    "cache_key",
    "prepare_verifier",
]
