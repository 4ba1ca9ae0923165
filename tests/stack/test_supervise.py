"""scripts/supervise.py's ordering at start: roles behind the gate wait for it (the worker and
beat wait for the web server to listen), and stack.py starts its two servers side by side."""

from __future__ import annotations

import importlib.util
import signal
import sys
import threading
from pathlib import Path

import pytest

from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(
        f"scripts_{name}", ROOT / "scripts" / f"{name}.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


supervise = _load("supervise")
stack = _load("stack")


def _sleeper(name: str, **kwargs) -> object:
    return supervise.Role(name, [sys.executable, "-c", "import time; time.sleep(600)"], **kwargs)


def _run(supervisor) -> threading.Thread:
    thread = threading.Thread(target=supervisor.run, daemon=True)
    thread.start()
    return thread


def _stop(supervisor, thread: threading.Thread) -> None:
    supervisor.request_stop(signal.SIGTERM, None)
    thread.join(timeout=60)
    assert not thread.is_alive()


def test_roles_behind_the_gate_start_only_once_it_opens():
    web, worker = _sleeper("web"), _sleeper("worker", after_gate=True)
    is_open = threading.Event()
    asked: list[bool] = []

    def gate() -> bool:
        asked.append(is_open.is_set())
        return asked[-1]

    opened: list[bool] = []
    supervisor = supervise.Supervisor(
        [worker, web], {}, 1.0, gate=gate, gate_max_s=600, on_open=opened.append
    )
    thread = _run(supervisor)
    try:
        # The supervisor has asked the closed gate twice (two turns of its loop).
        wait_until(lambda: len(asked) >= 2, "the supervisor to ask the gate", timeout=10)
        assert web.process is not None and worker.process is None
        assert opened == []  # `make run` names its address only once it answers

        is_open.set()

        wait_until(lambda: worker.process is not None, "the gated role to start", timeout=10)
        assert worker.process.poll() is None and web.process.poll() is None
        wait_until(lambda: opened, "the gate's opening to be told", timeout=10)
        assert opened == [True]
    finally:
        _stop(supervisor, thread)
    assert web.process.poll() is not None and worker.process.poll() is not None


def test_a_gate_that_never_opens_lets_the_roles_start_after_its_limit():
    worker = _sleeper("worker", after_gate=True)
    opened: list[bool] = []
    supervisor = supervise.Supervisor(
        [_sleeper("web"), worker],
        {},
        1.0,
        gate=lambda: False,
        gate_max_s=0.5,
        on_open=opened.append,
    )
    thread = _run(supervisor)
    try:
        wait_until(lambda: worker.process is not None, "the gated role to start", timeout=10)
        wait_until(lambda: opened, "the gate's opening to be told", timeout=10)
        assert opened == [False]  # opened by its limit, not by the web server listening
    finally:
        _stop(supervisor, thread)


def test_in_parallel_returns_every_result_in_order_and_raises_the_first_error():
    assert stack.in_parallel([lambda: 1, lambda: 2, lambda: 3]) == [1, 2, 3]
    assert stack.in_parallel([]) == []

    def refuse() -> int:
        raise SystemExit("Redis could not be started")

    ran = threading.Event()
    with pytest.raises(SystemExit, match="Redis could not be started"):
        stack.in_parallel([lambda: ran.set() or 1, refuse])
    assert ran.is_set()  # the other start was not abandoned half-way
