"""The host's end of a zygote's control socket and of a verdict's result pipe."""

from __future__ import annotations

import array
import json
import os
import socket
import struct
from typing import Any

from judge.sandbox.errors import SandboxUnavailable

MAX_MESSAGE_BYTES = 1 << 16
MAX_FDS = 8

Message = tuple[dict[str, Any] | None, list[int]]


class ChannelClosed(Exception):
    """The zygote closed its end (it died, or was killed)."""


def receive(sock: socket.socket) -> Message:
    """One datagram and the fds it carries (SCM_RIGHTS), as (message, fds).

    Raises ChannelClosed on end-of-stream (with any fds closed), BlockingIOError /
    TimeoutError as the socket's mode says. A message that is not a JSON object is
    ``(None, fds)``: the caller decides; the fds are the caller's to close either way.
    """
    data, ancillary, _, _ = sock.recvmsg(MAX_MESSAGE_BYTES, socket.CMSG_SPACE(4 * MAX_FDS))
    fds: list[int] = []
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            received = array.array("i")
            received.frombytes(payload[: len(payload) - len(payload) % 4])
            fds.extend(received)
    if not data:
        close_all(fds)
        raise ChannelClosed
    try:
        message = json.loads(data)
    except ValueError:
        return None, fds
    return (message if isinstance(message, dict) else None), fds


def close_all(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            continue


def parse_frames(data: bytes) -> tuple[bytes, ...] | None:
    """Split the result channel into frames; None if it is not a clean sequence of frames."""
    frames: list[bytes] = []
    offset = 0
    while offset < len(data):
        if offset + 4 > len(data):
            return None
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        offset += 4
        if length > len(data) - offset:
            return None
        frames.append(data[offset : offset + length])
        offset += length
    return tuple(frames)


def peer_pid(creds_fd: int) -> int:
    """The host pid the kernel attached to the one message on ``creds_fd`` (SO_PASSCRED)."""
    with socket.socket(fileno=os.dup(creds_fd)) as creds:
        creds.settimeout(10.0)
        _, ancillary, _, _ = creds.recvmsg(16, socket.CMSG_SPACE(12))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid, _, _ = struct.unpack("3i", payload[:12])
            if pid > 0:
                return int(pid)
    raise SandboxUnavailable("the verdict child sent no credentials")
