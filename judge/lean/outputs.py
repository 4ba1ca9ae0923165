"""What a build may hand on to later steps: its expected outputs, copied, and nothing else.

Every Lean build runs code its author wrote (``#eval``, ``run_cmd``, ``initialize``), with the
job folder writable through the overlay's upper layer. That layer is therefore never mounted as a
trusted layer: after each build the judge copies out the regular files Lake writes for the
modules that build was for (``<Module>.*`` directly in ``.lake/build/lib/lean`` and
``.lake/build/ir``) and drops the layer. A file anywhere else (a ``lakefile.lean``, which Lake
prefers to our ``lakefile.toml``; a planted ``Mathlib/...olean``; another module's outputs; a
symlink; an overlay whiteout) never reaches a later step. For a verifier's build such a file is a
publishing error naming it (the author can fix the verifier); for a solution's build it is
dropped silently (the solution gains nothing from it, and its verdict comes from Comparator).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

OUTPUT_DIRS = (".lake/build/lib/lean", ".lake/build/ir")
# Folders an overlay may copy up on the way to an output folder (or the judge's report folder).
_ANCESTORS = frozenset({".lake", ".lake/build", ".lake/build/lib", *OUTPUT_DIRS, ".lake/judge"})
MAX_ENTRIES = 10_000
MAX_LISTED = 5


class UnexpectedOutput(Exception):
    """A build wrote something other than its expected outputs; ``paths`` names them."""

    def __init__(self, paths: list[str], truncated: bool = False) -> None:
        self.paths = paths
        self.truncated = truncated
        listed = ", ".join(paths[:MAX_LISTED])
        more = " and more" if truncated or len(paths) > MAX_LISTED else ""
        super().__init__(listed + more)


def _expected(relative: PurePosixPath, modules: Iterable[str]) -> bool:
    parent = str(relative.parent)
    if parent not in OUTPUT_DIRS:
        return False
    name = relative.name
    stem, dot, rest = name.partition(".")
    return bool(dot) and bool(rest) and stem in modules


def collect_outputs(
    upper: Path,
    modules: tuple[str, ...],
    destination: Path,
    *,
    reports: tuple[str, ...] = (),
    strict: bool,
) -> list[str]:
    """Copy ``modules``' outputs from the build layer ``upper`` into ``destination``.

    ``reports`` are relative paths the judge's own generated module may write (they are read
    from ``upper`` by the caller, never copied). Returns what else the build wrote (relative
    paths, sorted); with ``strict`` that is raised as :class:`UnexpectedOutput` instead, before
    anything is copied. Nothing is followed: a symlink is itself an unexpected entry. All of the
    build's processes are dead by now, so nothing swaps a file between the check and the copy.
    """
    keep: list[PurePosixPath] = []
    unexpected: list[str] = []
    seen = 0
    truncated = False
    allowed_dirs = set(_ANCESTORS)
    for report in reports:
        parts = PurePosixPath(report).parts
        for depth in range(1, len(parts)):
            allowed_dirs.add(str(PurePosixPath(*parts[:depth])))
    for root, dirs, files in os.walk(upper, followlinks=False):
        base = Path(root)
        for name in sorted([*dirs, *files]):
            seen += 1
            if seen > MAX_ENTRIES:
                truncated = True
                break
            path = base / name
            relative = PurePosixPath(path.relative_to(upper).as_posix())
            try:
                mode = path.lstat().st_mode
            except OSError:
                unexpected.append(str(relative))
                continue
            if stat.S_ISDIR(mode):
                if str(relative) not in allowed_dirs:
                    unexpected.append(str(relative) + "/")
                continue
            if stat.S_ISREG(mode) and str(relative) in reports:
                continue
            if stat.S_ISREG(mode) and _expected(relative, modules):
                keep.append(relative)
                continue
            unexpected.append(str(relative))
        # Do not descend into folders that are unexpected themselves (reported once).
        dirs[:] = [
            d
            for d in dirs
            if str(PurePosixPath((base / d).relative_to(upper).as_posix())) in allowed_dirs
        ]
        if truncated:
            break
    unexpected.sort()
    if strict and (unexpected or truncated):
        raise UnexpectedOutput(unexpected, truncated)
    for relative in keep:
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        # A copy (never a link): the build layer is deleted, the copy is what later steps see.
        # Times are kept so that a Lake comparing them finds the outputs as fresh as it wrote.
        shutil.copy2(upper / relative, target, follow_symlinks=False)
    return unexpected


def layer_dirs(step_dir: Path) -> tuple[Path, Path]:
    """The (upper, workdir) pair of one build step under ``step_dir``."""
    return step_dir / "upper", step_dir / "work"


__all__ = ["OUTPUT_DIRS", "UnexpectedOutput", "collect_outputs", "layer_dirs"]
