"""Saving an API token between runs (a user has at most 20 active tokens: reuse, don't mint)."""

from __future__ import annotations

import json
import os
from pathlib import Path


def default_token_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "formalmarket" / "tokens.json"


def load_saved_token(path: Path, base_url: str, username: str) -> str | None:
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    key = saved.get(f"{base_url.rstrip('/')}|{username}") if isinstance(saved, dict) else None
    return key if isinstance(key, str) else None


def save_token(path: Path, base_url: str, username: str, token: str) -> None:
    """Write the token into ``path`` (mode 0600, the folder 0700), keeping other entries."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        saved = json.loads(path.read_text())
        if not isinstance(saved, dict):
            saved = {}
    except (OSError, ValueError):
        saved = {}
    saved[f"{base_url.rstrip('/')}|{username}"] = token
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(saved, handle)
    os.replace(tmp, path)
