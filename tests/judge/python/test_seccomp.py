"""The seccomp program's shape; its behaviour is covered by the red-team suite."""

from __future__ import annotations

import struct

from judge.sandbox import seccomp


def _decode(program: bytes) -> list[tuple[int, int, int, int]]:
    return [struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]


def test_program_checks_the_architecture_first_and_ends_with_returns() -> None:
    program = _decode(seccomp.build_filter())

    assert program[0] == (0x20, 0, 0, 4)  # ld arch
    assert program[1][0] == 0x15 and program[1][3] == seccomp.AUDIT_ARCH_X86_64
    assert program[-1] == (0x06, 0, 0, seccomp.SECCOMP_RET_KILL_PROCESS)
    assert len(program) < 4096  # BPF_MAXINSNS


def test_every_denied_syscall_jumps_to_the_deny_return() -> None:
    program = _decode(seccomp.build_filter())
    deny_index = next(i for i, insn in enumerate(program) if insn == (0x06, 0, 0, 0x00050000 | 1))
    denied = set(seccomp.DENIED_SYSCALLS.values())
    targets = {
        insn[3]: index + 1 + insn[1]
        for index, insn in enumerate(program)
        if insn[0] == 0x15 and insn[3] in denied and index > 3
    }

    assert set(targets) == denied
    assert set(targets.values()) == {deny_index}


def test_no_syscall_number_is_both_denied_and_special() -> None:
    special = {seccomp.SYS_CLONE, seccomp.SYS_CLONE3, *(n for n, _, _ in seccomp.DENIED_ARGUMENTS)}
    denied = set(seccomp.DENIED_SYSCALLS.values())
    self_only = set(seccomp.SELF_ONLY_SYSCALLS.values())

    assert denied.isdisjoint(special)
    assert denied.isdisjoint(self_only)
    assert len(denied) == len(seccomp.DENIED_SYSCALLS)
