"""cgroup slots. v1 runs for real on this host; v2 is exercised on a fake tree (files only)."""

from __future__ import annotations

import os
import pathlib

import pytest

from judge.sandbox import cgroup


def test_v1_slot_sets_limits_and_disappears() -> None:
    slot = cgroup.create_slot(f"fmjudge-{os.getpid()}-test")
    if slot is None or slot.kind != "v1":
        pytest.fail("this host has cgroup v1 memory and pids controllers: the slot must work")
    memory, pids = (pathlib.Path(path) for path in slot.dirs())
    try:
        slot.prepare(memory_bytes=64 << 20, max_pids=16)

        assert (memory / "memory.limit_in_bytes").read_text().strip() == str(64 << 20)
        assert (pids / "pids.max").read_text().strip() == "16"
        assert slot.procs() == []
        assert slot.oom_kills() == 0
    finally:
        assert slot.try_remove() is True
    assert not memory.exists() and not pids.exists()


def test_v2_slot_lives_beside_the_workers_leaf(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cgroup.controllers").write_text("cpu memory pids\n")
    (tmp_path / "worker").mkdir()
    enabled: list[pathlib.Path] = []
    monkeypatch.setattr(cgroup, "CGROUP_ROOT", tmp_path)
    monkeypatch.setattr(cgroup, "_own_path", lambda controller: "/worker")
    monkeypatch.setattr(cgroup, "_enable_controllers", enabled.append)

    slot = cgroup.CgroupV2Slot("fmjudge-1-1")
    slot.prepare(memory_bytes=64 << 20, max_pids=16)
    slot.add(4242)
    path = tmp_path / "formalmarket-judge" / "fmjudge-1-1"
    (path / "memory.peak").write_text("1234\n")
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n")

    assert enabled == [tmp_path, tmp_path / "formalmarket-judge"]
    assert slot.dirs() == [str(path)]
    assert (path / "memory.max").read_text() == str(64 << 20)
    assert (path / "memory.swap.max").read_text() == "0"
    assert (path / "pids.max").read_text() == "16"
    assert slot.procs() == [4242]
    assert slot.peak_bytes() == 1234
    assert slot.oom_kills() == 2
