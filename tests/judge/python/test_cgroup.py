"""cgroup slots: a real one on this host (v1 here), and v2's layout logic on a fake tree."""

from __future__ import annotations

import os
import pathlib

import pytest

from judge.sandbox import cgroup


def test_a_real_slot_sets_limits_and_disappears() -> None:
    slot = cgroup.create_slot(f"fmjudge-{os.getpid()}-test")
    if slot is None:
        pytest.fail(
            "no usable cgroup memory+pids controller (v1 or v2): the judge would measure "
            "memory with the rlimit fallback; see docs/python-judge.md"
        )
    folders = [pathlib.Path(path) for path in slot.dirs()]
    try:
        slot.prepare(memory_bytes=64 << 20, max_pids=16)
        limit_file = "memory.limit_in_bytes" if slot.kind == "v1" else "memory.max"

        assert (folders[0] / limit_file).read_text().strip() == str(64 << 20)
        assert (folders[-1] / "pids.max").read_text().strip() == "16"
        assert slot.procs() == []
        assert slot.oom_kills() == 0
    finally:
        assert slot.try_remove() is True
    assert [folder for folder in folders if folder.exists()] == []


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


def test_slot_names_are_random_not_the_workers_pid_view() -> None:
    names = {cgroup.slot_name() for _ in range(100)}

    assert len(names) == 100
    assert all(name.startswith("fmjudge-") and str(os.getpid()) not in name for name in names)


def test_another_containers_live_slot_is_not_removed_as_stale() -> None:
    """A worker in another pid namespace: its pid means nothing here. Its empty, fresh slot
    (between its creation and the child's move, or retired) survives our clean-up."""
    other = cgroup.create_slot("fmjudge-999999-1")  # a pid that no process here has
    assert other is not None
    folders = [pathlib.Path(path) for path in other.dirs()]
    try:
        for folder in folders:
            cgroup._cleaned.discard(folder.parent)
            cgroup.remove_stale_slots(folder.parent)
        assert all(folder.is_dir() for folder in folders)
    finally:
        assert other.try_remove() is True


def test_an_old_empty_slot_is_removed(tmp_path: pathlib.Path) -> None:
    old, fresh, foreign = (tmp_path / n for n in ("fmjudge-aa", "fmjudge-bb", "system.slice"))
    for folder in (old, fresh, foreign):
        folder.mkdir()
    long_ago = os.stat(tmp_path).st_mtime - cgroup.STALE_SLOT_AGE_S - 60
    os.utime(old, (long_ago, long_ago))
    os.utime(foreign, (long_ago, long_ago))

    cgroup.remove_stale_slots(tmp_path)

    assert (old.exists(), fresh.exists(), foreign.exists()) == (False, True, True)
