"""Whether Lean solutions can be judged here: the toolchain's status, probed and cached.

The server keeps Lean solutions PENDING while the status is unavailable; the status names the
versions it found (and says FAKE for the test fixture's toolchain, whose verdicts are not real
verifications).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path

from judge.lean.toolchain import Toolchain, ToolchainUnavailable, discover


@dataclasses.dataclass(frozen=True, slots=True)
class ToolchainStatus:
    """What ``python -m judge lean --check-toolchain`` and the server see."""

    available: bool
    reason: str
    versions: dict[str, str]
    projects: tuple[str, ...] = ()
    is_fake: bool = False

    def has_project(self, project: str) -> bool:
        return self.available and project in self.projects


def _manifest_rev(project_dir: Path, package: str) -> str | None:
    try:
        data = json.loads((project_dir / "lake-manifest.json").read_text())
    except (OSError, ValueError):
        return None
    for entry in data.get("packages", []) if isinstance(data, dict) else []:
        if isinstance(entry, dict) and entry.get("name") == package:
            rev = entry.get("rev")
            return str(rev) if rev else None
    return None


def status_of(toolchain: Toolchain) -> ToolchainStatus:
    versions = {
        "lean": toolchain.lean_version,
        "bwrap": toolchain.bwrap_version,
        "toolchain_dir": str(toolchain.prefix),
        "comparator": (
            f"standalone {toolchain.standalone_comparator}"
            if toolchain.standalone_comparator
            else "lake comparator"
        ),
        # What step 4 really runs: `--paranoid` exists only for `lake comparator`.
        "second_kernel": (
            "--paranoid (all bundled kernels)"
            if toolchain.paranoid and toolchain.standalone_comparator is None
            else f"nanoda {toolchain.nanoda}"
        ),
    }
    if "mathlib" in toolchain.projects:
        rev = _manifest_rev(toolchain.project_dir("mathlib"), "mathlib")
        versions["mathlib"] = rev or "unknown revision"
    reason = "Lean toolchain ready"
    if toolchain.is_fake:
        reason = "FAKE Lean toolchain (test fixture): verdicts are not real verifications"
    return ToolchainStatus(
        available=True,
        reason=reason,
        versions=versions,
        projects=toolchain.projects,
        is_fake=toolchain.is_fake,
    )


STATUS_MAX_AGE_S = 30.0
_status_cache: dict[tuple[tuple[str, str], ...], tuple[float, ToolchainStatus]] = {}


def toolchain_status(
    env: Mapping[str, str] | None = None, *, max_age_s: float = STATUS_MAX_AGE_S
) -> ToolchainStatus:
    """Whether Lean solutions can be judged here; the server keeps them PENDING if not.

    Probing runs `lean --version` and `bwrap --version`, so a result is reused for
    ``max_age_s`` seconds for the same configuration (pass 0 to probe afresh).
    """
    env = os.environ if env is None else env
    key = tuple(
        sorted(
            (name, value)
            for name, value in env.items()
            if name.startswith(("JUDGE_LEAN_", "COMPARATOR_")) or name == "PATH"
        )
    )
    now = time.monotonic()
    cached = _status_cache.get(key)
    if cached is not None and now - cached[0] < max_age_s:
        return cached[1]
    try:
        status = status_of(discover(env))
    except ToolchainUnavailable as exc:
        status = ToolchainStatus(available=False, reason=str(exc), versions={})
    _status_cache[key] = (now, status)
    return status
