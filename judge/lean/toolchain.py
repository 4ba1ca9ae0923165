"""Finding the Lean toolchain, the sandbox and the Lake projects from the environment.

Environment variables (the COMPARATOR_* ones mirror Comparator's and Lake's own):

- ``JUDGE_LEAN_TOOLCHAIN_DIR``: the Lean prefix (``bin/lean``, ``bin/lake``, bundled
  ``bin/leanexport``, ``bin/leanchecker``, ``bin/nanoda_bin``). Else ``JUDGE_LEAN_LAKE`` /
  ``JUDGE_LEAN_LEAN``, else ``lean`` on PATH asked for ``--print-prefix``.
- ``JUDGE_LEAN_PROJECTS_DIR``: holds the prebuilt Lake projects ``core/`` and ``mathlib/``.
- ``COMPARATOR_BWRAP``: bubblewrap (default ``bwrap`` on PATH); ours and Lake's sandbox.
- ``COMPARATOR_NANODA``: the nanoda kernel (default: the toolchain's bundled ``nanoda_bin``).
- ``JUDGE_LEAN_PARANOID=1``: run ``lake comparator --paranoid`` (all bundled kernels).
- ``JUDGE_LEAN_LAKE_SUBCOMMAND``: no longer an option. ``lake challenge`` was the runner's name
  on the 4.35 *development* line (Lake's ``Check.lean`` then: "This backs `lake challenge`", no
  ``--paranoid``); the released v4.35.0 calls it ``lake comparator``. Any other value is refused.
  A ``4.35.0-rcN`` toolchain is accepted only when ``lake comparator --help`` works.
- ``JUDGE_LEAN_COMPARATOR``: a *standalone* comparator binary instead of ``lake comparator``;
  then ``COMPARATOR_LANDRUN`` and ``COMPARATOR_LEAN4EXPORT`` are required too.
- ``JUDGE_LEAN_CACHE_DIR`` (prepared verifiers), ``JUDGE_LEAN_WORK_DIR`` (job folders).
- ``JUDGE_LEAN_MAX_TIME_S`` (600), ``JUDGE_LEAN_MAX_MEMORY_MB`` (8192): server-wide caps.
- ``JUDGE_LEAN_ALLOW_FAKE_TOOLCHAIN=1``: accept the test fixture toolchain (tests only).

Nothing here runs at import time; every function reads the environment when called.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from judge.budgets import Budgets

MIN_LEAN_VERSION = (4, 35, 0)
MIN_BWRAP_VERSION = (0, 10, 0)  # --overlay-src / --overlay
PROJECTS = ("core", "mathlib")
FAKE_MARKER = "FAKE-TOOLCHAIN"

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")
_PRERELEASE = re.compile(r"\d+\.\d+\.\d+-(?:rc|nightly|pre)", re.IGNORECASE)


class ToolchainUnavailable(Exception):
    """The judge cannot run Lean here; the message is safe to show to users."""


@dataclasses.dataclass(frozen=True, slots=True)
class Toolchain:
    """Resolved absolute paths of everything the Lean judge runs."""

    prefix: Path
    lean: Path
    lake: Path
    bwrap: Path
    git: Path
    nanoda: Path | None
    paranoid: bool
    projects_dir: Path
    projects: tuple[str, ...]
    cache_dir: Path
    work_dir: Path
    lean_version: str
    bwrap_version: str
    is_fake: bool
    standalone_comparator: Path | None = None
    landrun: Path | None = None
    lean4export: Path | None = None

    def project_dir(self, project: str) -> Path:
        return self.projects_dir / project

    @property
    def identity(self) -> str:
        """What a prepared verifier build depends on besides its source (part of its cache key)."""
        digest = hashlib.sha256()
        digest.update(self.lean_version.encode())
        for project in self.projects:
            manifest = self.project_dir(project) / "lake-manifest.json"
            digest.update(project.encode())
            try:
                digest.update(manifest.read_bytes())
            except OSError:
                digest.update(b"-")
        return digest.hexdigest()


def server_caps(env: Mapping[str, str] | None = None) -> tuple[float, int]:
    """(max time in seconds, max memory in MB) that any Lean job may ask for.

    The judge's one reading of the caps (``judge.budgets``): a malformed value makes the
    toolchain unavailable (JUDGE_ERROR, said once), never a silent fallback to the default.
    """
    try:
        lean = Budgets.from_env(env).lean
    except ValueError as exc:
        raise ToolchainUnavailable(str(exc)) from exc
    return lean.max_time_s, lean.max_memory_mb


def parse_version(text: str) -> tuple[int, int, int] | None:
    match = _VERSION.search(text)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def _run_version(argv: list[str]) -> str:
    """First line of a trusted binary's version output, or raise ToolchainUnavailable."""
    try:
        completed = subprocess.run(  # noqa: S603 - trusted toolchain binaries, no shell
            argv,
            capture_output=True,
            text=True,
            timeout=20,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent"},
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolchainUnavailable(f"`{Path(argv[0]).name}` could not run ({exc})") from exc
    if completed.returncode != 0:
        raise ToolchainUnavailable(
            f"`{' '.join([Path(argv[0]).name, *argv[1:]])}` exited with {completed.returncode}"
        )
    lines = (completed.stdout or completed.stderr).strip().splitlines()
    return lines[0].strip() if lines else ""


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _which(name: str) -> Path | None:
    found = shutil.which(name)
    return Path(found).resolve() if found else None


def _resolve_tool(env: Mapping[str, str], var: str, default: str) -> Path | None:
    value = env.get(var, "").strip()
    if value:
        path = Path(value)
        if path.is_absolute():
            return path.resolve() if _executable(path) else None
        return _which(value)
    return _which(default)


def _find_prefix(env: Mapping[str, str]) -> Path:
    explicit = env.get("JUDGE_LEAN_TOOLCHAIN_DIR", "").strip()
    if explicit:
        prefix = Path(explicit)
        if not _executable(prefix / "bin" / "lean"):
            raise ToolchainUnavailable(
                f"JUDGE_LEAN_TOOLCHAIN_DIR={explicit} has no executable bin/lean"
            )
        return prefix.resolve()
    lake = env.get("JUDGE_LEAN_LAKE", "").strip()
    if lake and _executable(Path(lake)):
        return Path(lake).resolve().parent.parent
    lean = env.get("JUDGE_LEAN_LEAN", "").strip() or shutil.which("lean")
    if not lean:
        raise ToolchainUnavailable("no Lean toolchain on this server")
    # Through elan's proxy, `lean --print-prefix` names the real toolchain directory.
    printed = _run_version([lean, "--print-prefix"])
    prefix = Path(printed)
    if not printed or not _executable(prefix / "bin" / "lean"):
        raise ToolchainUnavailable("`lean --print-prefix` did not name a toolchain directory")
    return prefix.resolve()


def _default_cache_dir(env: Mapping[str, str]) -> Path:
    explicit = env.get("JUDGE_LEAN_CACHE_DIR", "").strip()
    if explicit:
        return Path(explicit)
    base = env.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base) / "formalmarket" / "lean-verifiers"


def _default_work_dir(env: Mapping[str, str]) -> Path:
    explicit = env.get("JUDGE_LEAN_WORK_DIR", "").strip()
    if explicit:
        return Path(explicit)
    return Path(tempfile.gettempdir()) / "formalmarket-lean-jobs"


def _projects(projects_dir: Path) -> tuple[str, ...]:
    found = []
    for project in PROJECTS:
        directory = projects_dir / project
        if (directory / "lakefile.toml").is_file() and (directory / "lake-manifest.json").is_file():
            found.append(project)
    return tuple(found)


def discover(env: Mapping[str, str] | None = None) -> Toolchain:
    """Resolve the toolchain from the environment or raise ToolchainUnavailable (a clear reason)."""
    env = os.environ if env is None else env
    prefix = _find_prefix(env)
    lean = prefix / "bin" / "lean"
    lake = Path(env.get("JUDGE_LEAN_LAKE", "").strip() or prefix / "bin" / "lake")
    if not _executable(lake):
        raise ToolchainUnavailable(f"no executable lake at {lake}")

    lean_version = _run_version([str(lean), "--version"])
    is_fake = FAKE_MARKER in lean_version
    if is_fake and env.get("JUDGE_LEAN_ALLOW_FAKE_TOOLCHAIN") != "1":
        raise ToolchainUnavailable(
            f"the Lean toolchain at {prefix} is the test fixture ({FAKE_MARKER}); it never "
            "judges outside the test suite"
        )
    parsed = parse_version(lean_version)
    if parsed is None or parsed < MIN_LEAN_VERSION:
        raise ToolchainUnavailable(
            f"Lean {'.'.join(map(str, MIN_LEAN_VERSION))} or newer is required for "
            f"`lake comparator`; found {lean_version!r}"
        )

    if _PRERELEASE.search(lean_version):
        # Release candidates of 4.35 compare as 4.35.0 but some lack `lake comparator` (the
        # development line named it `lake challenge`): ask the subcommand itself.
        try:
            _run_version([str(lake), "comparator", "--help"])
        except ToolchainUnavailable as exc:
            raise ToolchainUnavailable(
                f"this Lean release candidate ({lean_version!r}) has no working `lake "
                f"comparator` ({exc}); install Lean 4.35.0 or newer"
            ) from exc
    bwrap = _resolve_tool(env, "COMPARATOR_BWRAP", "bwrap")
    if bwrap is None:
        raise ToolchainUnavailable(
            "bubblewrap (`bwrap`) is not installed; set COMPARATOR_BWRAP or install it"
        )
    bwrap_version = _run_version([str(bwrap), "--version"])
    parsed_bwrap = parse_version(bwrap_version)
    if parsed_bwrap is None or parsed_bwrap < MIN_BWRAP_VERSION:
        raise ToolchainUnavailable(
            f"bubblewrap {'.'.join(map(str, MIN_BWRAP_VERSION))} or newer is required "
            f"(overlay mounts); found {bwrap_version!r}"
        )
    git = _which("git")
    if git is None:
        raise ToolchainUnavailable("`git` is not on PATH (Lake needs it inside the sandbox)")

    standalone = landrun = lean4export = None
    if env.get("JUDGE_LEAN_COMPARATOR", "").strip():
        standalone = _resolve_tool(env, "JUDGE_LEAN_COMPARATOR", "comparator")
        if standalone is None:
            raise ToolchainUnavailable("JUDGE_LEAN_COMPARATOR does not name an executable")
        landrun = _resolve_tool(env, "COMPARATOR_LANDRUN", "landrun")
        lean4export = _resolve_tool(env, "COMPARATOR_LEAN4EXPORT", "lean4export")
        if landrun is None or lean4export is None:
            raise ToolchainUnavailable(
                "standalone comparator needs COMPARATOR_LANDRUN and COMPARATOR_LEAN4EXPORT"
            )
    else:
        for bundled in ("leanexport", "leanchecker"):
            if not _executable(prefix / "bin" / bundled):
                raise ToolchainUnavailable(
                    f"the toolchain has no bin/{bundled}; `lake comparator` needs Lean >= 4.35"
                )

    paranoid = env.get("JUDGE_LEAN_PARANOID", "").strip() == "1"
    nanoda_var = env.get("COMPARATOR_NANODA", "").strip()
    nanoda: Path | None
    if nanoda_var:
        nanoda = _resolve_tool(env, "COMPARATOR_NANODA", "nanoda_bin")
        if nanoda is None:
            raise ToolchainUnavailable(f"COMPARATOR_NANODA={nanoda_var} is not executable")
    else:
        bundled_nanoda = prefix / "bin" / "nanoda_bin"
        nanoda = bundled_nanoda if _executable(bundled_nanoda) else _which("nanoda_bin")
    if nanoda is None and not paranoid:
        raise ToolchainUnavailable(
            "no second kernel: install nanoda (COMPARATOR_NANODA) or set JUDGE_LEAN_PARANOID=1"
        )
    if nanoda is None and standalone is not None:
        # `--paranoid` belongs to `lake comparator`; a standalone comparator runs only the
        # kernels its config names, so without nanoda there would be no second kernel at all.
        raise ToolchainUnavailable(
            "JUDGE_LEAN_PARANOID=1 adds kernels only to `lake comparator`; the standalone "
            "comparator (JUDGE_LEAN_COMPARATOR) runs its second kernel from `external_kernels`, "
            "so install nanoda (COMPARATOR_NANODA)"
        )

    projects_raw = env.get("JUDGE_LEAN_PROJECTS_DIR", "").strip()
    if not projects_raw:
        raise ToolchainUnavailable("JUDGE_LEAN_PROJECTS_DIR is not set (the Lake projects)")
    projects_dir = Path(projects_raw).resolve()
    projects = _projects(projects_dir)
    if "core" not in projects:
        raise ToolchainUnavailable(
            f"{projects_dir}/core is not a prepared Lake project (lakefile.toml and "
            "lake-manifest.json)"
        )

    if env.get("JUDGE_LEAN_LAKE_SUBCOMMAND", "").strip() not in ("", "comparator"):
        raise ToolchainUnavailable(
            "JUDGE_LEAN_LAKE_SUBCOMMAND is not supported: `lake challenge` was the runner's name "
            "on the 4.35 development line (without --paranoid); Lean 4.35.0 runs `lake "
            "comparator`. Unset it"
        )

    return Toolchain(
        prefix=prefix,
        lean=lean,
        lake=lake.resolve(),
        bwrap=bwrap,
        git=git,
        nanoda=nanoda,
        paranoid=paranoid,
        projects_dir=projects_dir,
        projects=projects,
        cache_dir=_default_cache_dir(env),
        work_dir=_default_work_dir(env),
        lean_version=lean_version,
        bwrap_version=bwrap_version,
        is_fake=is_fake,
        standalone_comparator=standalone,
        landrun=landrun,
        lean4export=lean4export,
    )
