"""Watch one verdict child: feed it the job, read its pipes, enforce the wall clock and caps.

The host writes the job straight into the child's job pipe (the zygote never sees job data),
then watches the result pipe, the capped output pipe, the zygote's exit report and the wall
clock, killing the child on a timeout or an output flood.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import selectors
import signal
import socket
import time
from typing import Any, Protocol

from judge.sandbox.channel import ChannelClosed, Message, receive
from judge.sandbox.errors import SandboxUnavailable

OUTPUT_CAP_BYTES = 1 << 20  # stdout+stderr of a verdict; above this the child is killed
RESULT_CAP_BYTES = 1 << 16
OUTPUT_HEAD_BYTES = 4096
KILL_GRACE_S = 5.0


class WatchedChild(Protocol):
    ns_pid: int
    pidfd: int
    job_w: int
    result_r: int
    output_r: int


@dataclasses.dataclass(frozen=True, slots=True)
class Observed:
    result: bytes
    result_overflow: bool
    output_head: bytes
    output_exceeded: bool
    timed_out: bool
    exit_report: dict[str, Any] | None
    wall_time_s: float


def _read_some(fd: int) -> bytes | None:
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None


def _control_message(sock: socket.socket) -> Message:
    try:
        return receive(sock)
    except BlockingIOError:
        return None, []
    except ChannelClosed:
        raise SandboxUnavailable("the zygote died during a verdict") from None
    except OSError as exc:
        raise SandboxUnavailable(f"the zygote's control socket failed: {exc}") from exc


def watch_child(
    child: WatchedChild,
    sock: socket.socket,
    *,
    payload: bytes,
    time_limit_s: float,
    pending: list[tuple[dict[str, Any], list[int]]],
) -> Observed:
    """Run the job to its end. Messages that are not this child's exit go to ``pending``."""
    view = memoryview(payload)
    started = time.monotonic()
    sock.sendall(b'{"event": "take"}')
    deadline = started + time_limit_s
    timed_out = output_exceeded = result_overflow = False
    killed_at: float | None = None
    result = bytearray()
    output_head = bytearray()
    output_total = 0
    exit_report: dict[str, Any] | None = None
    ended_at: float | None = None

    selector = selectors.DefaultSelector()
    job_open = True
    selector.register(child.job_w, selectors.EVENT_WRITE, "job")
    selector.register(child.result_r, selectors.EVENT_READ, "result")
    selector.register(child.output_r, selectors.EVENT_READ, "output")
    sock.setblocking(False)
    selector.register(sock, selectors.EVENT_READ, "control")
    open_pipes = {"result", "output"}

    def kill() -> None:
        nonlocal killed_at
        if killed_at is None:
            killed_at = time.monotonic()
            with contextlib.suppress(ProcessLookupError, OSError):
                signal.pidfd_send_signal(child.pidfd, signal.SIGKILL)

    try:
        while exit_report is None or open_pipes:
            now = time.monotonic()
            if killed_at is None and now >= deadline and exit_report is None:
                timed_out = True
                kill()
            if killed_at is not None and now > killed_at + KILL_GRACE_S:
                raise SandboxUnavailable("the verdict child did not die after SIGKILL")
            if exit_report is None and killed_at is None:
                timeout = max(0.0, deadline - now)
            else:
                timeout = 0.5
            for key, _ in selector.select(timeout):
                tag = key.data
                if tag == "job":
                    try:
                        written = os.write(child.job_w, view)
                        view = view[written:]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:
                        view = view[len(view) :]
                    if not view:
                        selector.unregister(child.job_w)
                        os.close(child.job_w)
                        child.job_w = -1
                        job_open = False
                elif tag == "result":
                    chunk = _read_some(child.result_r)
                    if chunk is None:
                        continue
                    if not chunk:
                        selector.unregister(child.result_r)
                        open_pipes.discard("result")
                    elif len(result) + len(chunk) > RESULT_CAP_BYTES:
                        result_overflow = True
                        kill()
                    else:
                        result += chunk
                elif tag == "output":
                    chunk = _read_some(child.output_r)
                    if chunk is None:
                        continue
                    if not chunk:
                        selector.unregister(child.output_r)
                        open_pipes.discard("output")
                    else:
                        output_total += len(chunk)
                        if len(output_head) < OUTPUT_HEAD_BYTES:
                            output_head += chunk[: OUTPUT_HEAD_BYTES - len(output_head)]
                        if output_total > OUTPUT_CAP_BYTES:
                            output_exceeded = True
                            kill()
                elif tag == "control":
                    message, fds = _control_message(sock)
                    if message is None and not fds:
                        continue
                    if message is not None and message.get("event") == "exit":
                        if int(message.get("pid", -1)) != child.ns_pid:
                            raise SandboxUnavailable("zygote reported an unknown child")
                        exit_report = message
                        ended_at = time.monotonic()
                    else:
                        pending.append((message or {}, fds))
    finally:
        selector.close()
        sock.setblocking(True)
        if job_open and child.job_w >= 0:
            with contextlib.suppress(OSError):
                os.close(child.job_w)
            child.job_w = -1
    return Observed(
        result=bytes(result),
        result_overflow=result_overflow,
        output_head=bytes(output_head),
        output_exceeded=output_exceeded,
        timed_out=timed_out,
        exit_report=exit_report,
        wall_time_s=(ended_at or time.monotonic()) - started,
    )
