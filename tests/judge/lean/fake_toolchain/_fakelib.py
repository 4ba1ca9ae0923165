"""Shared helpers of the FAKE toolchain scripts (test fixture, not a real Lean)."""

import json
import os
import re
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VERSION_TAG = "FAKE-TOOLCHAIN"


def config() -> dict:
    try:
        return json.loads((ROOT / "fake.json").read_text())
    except OSError:
        return {}


def log(entry: dict) -> None:
    path = config().get("log")
    if not path:
        return
    entry = {"time": time.time(), "pid": os.getpid(), **entry}
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
    except OSError:
        pass  # inside a REAL sandbox the host's log is not mounted: nothing to record


def real_sandbox() -> bool:
    """True under the real bubblewrap: the working folder is the real merged overlay."""
    return "FAKE_UPPER" not in os.environ


def layers() -> list[Path]:
    """The overlay as the fake bwrap set it up: the upper layer first, then lowers top first.

    Under the real bubblewrap the kernel merges the layers: the working folder is the view.
    """
    if real_sandbox():
        return [Path.cwd()]
    upper = os.environ.get("FAKE_UPPER")
    lower = [Path(p) for p in os.environ.get("FAKE_LAYERS", "").split(os.pathsep) if p]
    return ([Path(upper)] if upper else []) + lower


def read(relative: str) -> str | None:
    for layer in layers():
        path = layer / relative
        if path.is_file():
            return path.read_text(encoding="utf-8", errors="replace")
    return None


def write(relative: str, text: str) -> None:
    if real_sandbox():
        # The real overlay: the kernel puts the file in the upper layer and checks permissions.
        path = Path.cwd() / relative
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"error: {relative}: {exc}")
            raise SystemExit(1) from None
        return
    upper = os.environ.get("FAKE_UPPER")
    # As overlayfs does, check permission on the merged view: the deepest directory that
    # exists in any layer (topmost first) must be writable, and so must an existing file.
    parts = Path(relative).parts
    for depth in range(len(parts), -1, -1):
        candidate = Path(*parts[:depth]) if depth else Path(".")
        found = next(
            (layer / candidate for layer in layers() if (layer / candidate).exists()), None
        )
        if found is None:
            continue
        if not os.access(found, os.W_OK):
            print(f"error: {relative}: permission denied (merged view, {found})")
            raise SystemExit(1)
        break
    path = Path(upper) / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def case_of(text: str | None) -> str:
    if not text:
        return ""
    match = re.search(r"--\s*fake:\s*(\S+)", text)
    return match.group(1) if match else ""


def delay() -> None:
    time.sleep(float(config().get("delay_s", 0.01)))


def config_file() -> str:
    """The configuration file Lake loads, as `Lake.resolveConfigFile` picks it.

    With no `--file`, Lake looks for `lakefile.lean` first and `lakefile.toml` second; a visible
    `lakefile.lean` wins even when a `lakefile.toml` is present.
    """
    for name in ("lakefile.lean", "lakefile.toml"):
        if read(name) is not None:
            return name
    raise SystemExit("error: no configuration file with a supported extension")
