"""The seccomp program's shape; its behaviour is covered by the red-team suite and the canaries."""

from __future__ import annotations

import errno
import struct

from judge.sandbox import seccomp

ENOSYS_RETURN = (0x06, 0, 0, seccomp.SECCOMP_RET_ERRNO | errno.ENOSYS)
EPERM_RETURN = (0x06, 0, 0, seccomp.SECCOMP_RET_ERRNO | errno.EPERM)
ALLOW_RETURN = (0x06, 0, 0, seccomp.SECCOMP_RET_ALLOW)


def _decode(program: bytes) -> list[tuple[int, int, int, int]]:
    return [struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]


def _jump_targets(program: list[tuple[int, int, int, int]], numbers: set[int]) -> dict[int, int]:
    """For each syscall-number comparison (after the arch/x32 prologue): where it jumps."""
    targets: dict[int, int] = {}
    for index, insn in enumerate(program):
        if insn[0] == 0x15 and insn[3] in numbers and index > 3 and insn[3] not in targets:
            targets[insn[3]] = index + 1 + insn[1]
    return targets


def test_program_checks_the_architecture_first_and_ends_with_returns() -> None:
    program = _decode(seccomp.build_filter())

    assert program[0] == (0x20, 0, 0, 4)  # ld arch
    assert program[1][0] == 0x15 and program[1][3] == seccomp.AUDIT_ARCH_X86_64
    assert program[-1] == (0x06, 0, 0, seccomp.SECCOMP_RET_KILL_PROCESS)
    assert len(program) < 4096  # BPF_MAXINSNS


def test_every_refused_syscall_jumps_to_the_eperm_return() -> None:
    program = _decode(seccomp.build_filter())
    deny_index = program.index(EPERM_RETURN, len(program) - 3)  # allow, deny, kill
    refused = set(seccomp.REFUSED_SYSCALLS.values())

    targets = _jump_targets(program, refused)

    assert set(targets) == refused
    assert set(targets.values()) == {deny_index}


def test_every_allowed_syscall_jumps_to_the_allow_return() -> None:
    program = _decode(seccomp.build_filter())
    allow_index = program.index(ALLOW_RETURN, len(program) - 6)
    allowed = set(seccomp.ALLOWED_SYSCALLS.values())

    targets = _jump_targets(program, allowed)

    assert set(targets) == allowed
    assert set(targets.values()) == {allow_index}


def test_the_default_is_enosys_right_after_the_last_comparison() -> None:
    program = _decode(seccomp.build_filter())
    last_comparison = max(
        index
        for index, insn in enumerate(program)
        if insn[0] == 0x15 and insn[3] in set(seccomp.REFUSED_SYSCALLS.values())
    )

    assert program[last_comparison + 1] == ENOSYS_RETURN


def test_the_host_touching_syscalls_of_issue_10_are_refused_by_name() -> None:
    must_refuse = {
        "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
        "utimensat", "sync", "syncfs", "fsync", "fdatasync", "sync_file_range", "inotify_init",
        "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark", "listmount",
        "statmount", "cachestat", "mincore", "membarrier", "timer_create",
    }  # fmt: skip

    assert must_refuse <= set(seccomp.REFUSED_SYSCALLS)
    assert must_refuse.isdisjoint(seccomp.ALLOWED_SYSCALLS)


def test_no_syscall_number_is_both_allowed_refused_or_special() -> None:
    special = {seccomp.SYS_CLONE, seccomp.SYS_CLONE3, *(n for n, _, _ in seccomp.ALLOWED_ARGUMENTS)}
    allowed = set(seccomp.ALLOWED_SYSCALLS.values())
    refused = set(seccomp.REFUSED_SYSCALLS.values())
    self_only = set(seccomp.SELF_ONLY_SYSCALLS.values())

    assert allowed.isdisjoint(refused)
    assert allowed.isdisjoint(special) and refused.isdisjoint(special)
    assert self_only.isdisjoint(allowed | refused | special)
    assert len(allowed) == len(seccomp.ALLOWED_SYSCALLS)
    assert len(refused) == len(seccomp.REFUSED_SYSCALLS)
