"""Fixtures of the publishing tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def no_lean_toolchain(monkeypatch):
    """This server has no Lean toolchain, whatever the machine running the tests has."""
    from judge.lean import ToolchainStatus
    from verifiers.services import judging

    status = ToolchainStatus(
        available=False, reason="no Lean toolchain on this server", versions={}
    )
    monkeypatch.setattr(judging, "toolchain_status", lambda *args, **kwargs: status)
    return status
