"""``--check-toolchain``'s preflight: each layer a Lean job needs, checked on its own.

An operator with a real image sees at once which layer fails:

- ``host_userns``: whether this host lets an unprivileged user nest user namespaces (Ubuntu's
  ``kernel.apparmor_restrict_unprivileged_userns=1`` refuses them, and a judge running as root
  cannot start Lake's bubblewrap inside ours: ``Can't mount proc``); informative, the
  ``nested_bwrap`` item below is the real test;
- ``sandbox``: our bubblewrap starts with a job's mounts and runs ``lake --version``;
- ``overlay``: the job's overlay reads the lower layers and a write lands only in the upper one;
- ``tools``: ``which`` finds, inside that sandbox, everything Lake resolves before it starts;
- ``nested_bwrap``: Lake's own kind of bubblewrap starts inside ours, and a write to ``.lake``
  from inside it lands only in the job's layer;
- ``canary``: a known-good problem is ACCEPTED end to end (the pipeline's own self-check).

A failing blocking item makes ``--check-toolchain`` exit non-zero (``host_userns`` only explains);
later items still run when they can.
"""

from __future__ import annotations

import dataclasses
import os
import uuid
from pathlib import Path

from judge.lean.canary import canary_checks, nested_command, run_canary_step
from judge.lean.limits import RunResult
from judge.lean.sandbox import WORK_MOUNT, Layers, comparator_env
from judge.lean.steps import remove_tree
from judge.lean.toolchain import Toolchain

APPARMOR_USERNS = Path("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
PREFLIGHT_MEMORY_MB = 2048
_MARKER = "judge-preflight.txt"


@dataclasses.dataclass(frozen=True, slots=True)
class PreflightItem:
    name: str
    ok: bool
    detail: str
    # An informative item (host_userns) explains a failure elsewhere but fails nothing alone.
    blocking: bool = True

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail, "blocking": self.blocking}


def apparmor_restricts_userns(path: Path = APPARMOR_USERNS) -> bool | None:
    """True/False from the sysctl, None where the kernel has no such setting."""
    try:
        return path.read_text().strip() == "1"
    except OSError:
        return None


def _host_item() -> PreflightItem:
    restricted = apparmor_restricts_userns()
    notes = []
    if restricted:
        notes.append(
            "kernel.apparmor_restrict_unprivileged_userns=1: unprivileged nested user "
            "namespaces are refused unless an AppArmor profile allows bwrap `userns` (see "
            "sandbox_images/lean/README.md)"
        )
    elif restricted is None:
        notes.append("no kernel.apparmor_restrict_unprivileged_userns on this kernel")
    else:
        notes.append("kernel.apparmor_restrict_unprivileged_userns=0")
    if os.geteuid() == 0:
        notes.append(
            "running as root: bubblewrap then covers /proc/sys in our sandbox and Lake's own "
            "bubblewrap cannot mount /proc inside it; run the judge as an unprivileged user"
        )
    return PreflightItem(
        "host_userns", not restricted and os.geteuid() != 0, "; ".join(notes), blocking=False
    )


def _outcome(name: str, result: RunResult, what: str) -> PreflightItem:
    if result.exit_code == 0:
        return PreflightItem(name, True, f"could {what}")
    reason = result.spawn_error or (
        "timed out" if result.timed_out else f"exit status {result.exit_code}"
    )
    tail = result.output_tail.decode("utf-8", "replace").strip().splitlines()[-3:]
    return PreflightItem(name, False, f"could not {what} ({reason}): {' | '.join(tail)}"[:800])


def _layers(root: Path, toolchain: Toolchain) -> Layers:
    lower = root / "lower"
    lower.mkdir(parents=True)
    (lower / _MARKER).write_text("lower\n", encoding="utf-8")
    bottom = (toolchain.project_dir("core"),) if "core" in toolchain.projects else ()
    return Layers(lower=(*bottom, lower), upper=root / "upper", workdir=root / "work")


def _overlay_item(toolchain: Toolchain, layers: Layers) -> PreflightItem:
    script = f"cat {_MARKER} && echo upper > {_MARKER}.new && cat {_MARKER}.new"
    result = run_canary_step(toolchain, layers, ["/bin/sh", "-c", script], PREFLIGHT_MEMORY_MB)
    item = _outcome("overlay", result, f"read and write {WORK_MOUNT} through the overlay")
    if not item.ok:
        return item
    lower_untouched = not (layers.lower[-1] / f"{_MARKER}.new").exists()
    in_upper = (layers.upper / f"{_MARKER}.new").is_file()
    if lower_untouched and in_upper:
        return PreflightItem("overlay", True, "lower layers read; the write landed in the upper")
    return PreflightItem("overlay", False, "a write inside the sandbox did not land (only) upper")


def _nested_item(toolchain: Toolchain, layers: Layers) -> PreflightItem:
    inner = ["/bin/sh", "-c", f"echo nested > .lake/{_MARKER}"]
    result = run_canary_step(
        toolchain,
        layers,
        nested_command(toolchain, inner),
        PREFLIGHT_MEMORY_MB,
        comparator_env(toolchain),
    )
    item = _outcome("nested_bwrap", result, "start Lake's kind of bubblewrap inside ours")
    if not item.ok:
        if apparmor_restricts_userns() or os.geteuid() == 0:
            return dataclasses.replace(item, detail=item.detail + " (see host_userns)")
        return item
    if (layers.upper / ".lake" / _MARKER).is_file() and not any(
        (layer / ".lake" / _MARKER).exists() for layer in layers.lower
    ):
        return PreflightItem(
            "nested_bwrap", True, "Lake's kind of sandbox ran; its .lake write is in the job layer"
        )
    return PreflightItem("nested_bwrap", False, "the nested sandbox's write did not reach the job")


def run_preflight(toolchain: Toolchain, *, canary: bool = True) -> list[PreflightItem]:
    """Every preflight item, in order; never raises for a failing layer."""
    from judge.lean.pipeline import self_check  # the pipeline imports this module's siblings

    items = [_host_item()]
    toolchain.work_dir.mkdir(parents=True, exist_ok=True)
    root = toolchain.work_dir / f"job-preflight-{uuid.uuid4().hex}"
    try:
        layers = _layers(root, toolchain)
        env = comparator_env(toolchain)
        checks = {name: (what, command) for name, what, command in canary_checks(toolchain)}
        what, command = checks["sandbox"]
        started = run_canary_step(toolchain, layers, command, PREFLIGHT_MEMORY_MB, env)
        items.append(_outcome("sandbox", started, what))
        if started.exit_code == 0:
            items.append(_overlay_item(toolchain, layers))
            what, command = checks["tools"]
            found = run_canary_step(toolchain, layers, command, PREFLIGHT_MEMORY_MB, env)
            items.append(_outcome("tools", found, what))
            if toolchain.standalone_comparator is None:
                items.append(_nested_item(toolchain, layers))
    finally:
        remove_tree(root)
    if canary:
        if all(item.ok for item in items if item.blocking):
            problem = self_check(toolchain, "core", PREFLIGHT_MEMORY_MB)
            items.append(
                PreflightItem(
                    "canary",
                    problem is None,
                    problem or "a known-good solution was ACCEPTED end to end",
                )
            )
        else:
            items.append(PreflightItem("canary", False, "not run: an earlier layer failed"))
    return items


def preflight_ok(items: list[PreflightItem]) -> bool:
    return all(item.ok for item in items if item.blocking)
