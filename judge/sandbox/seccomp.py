"""The seccomp filter applied to every verdict child, as a classic-BPF program.

Built here, on the trusted side, as raw bytes (``struct sock_filter[]``); the in-sandbox
harness only hands those bytes to ``seccomp(SECCOMP_SET_MODE_FILTER)``. We assemble the program
ourselves instead of depending on libseccomp: the policy is a short deny list over one
architecture (x86-64), the assembler below resolves jumps by label and checks their range, every
rule is exercised by the red-team suite, and nothing needs to be installed in the sandbox.

Policy: default ALLOW, and EPERM for everything a verifier has no business doing: process
creation (fork, vfork, clone without CLONE_THREAD; clone3 answers ENOSYS so glibc falls back
to clone, whose flags we can inspect), exec, sockets of every family, ptrace and
process_vm_*, signals to any process (kill family, pidfd_*), acting on other processes
(prlimit64, scheduling, memory policy of a pid other than 0), new namespaces and mounts,
keyrings, bpf, perf_event_open, userfaultfd, io_uring, file locks (a covert channel across
sandboxes), SIGIO ownership (F_SETOWN/F_SETSIG/FIOSETOWN: signals by proxy),
memfd_create, module loading, TIOCSTI, and prctl's PR_SET_DUMPABLE / PR_SET_PTRACER. Foreign
architectures and the x32 ABI kill the process.
"""

from __future__ import annotations

import dataclasses
import errno
import platform
import struct

# BPF opcodes (linux/filter.h).
_LD_W_ABS = 0x00 | 0x00 | 0x20
_JMP_JEQ_K = 0x05 | 0x10
_JMP_JGE_K = 0x05 | 0x30
_JMP_JSET_K = 0x05 | 0x40
_RET_K = 0x06

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# struct seccomp_data offsets; arguments are 64-bit, we compare their low 32 bits (the kernel
# truncates ioctl/fcntl commands and prctl options to int, and CLONE_THREAD is a low bit).
_OFF_NR = 0
_OFF_ARCH = 4


def _arg_low(index: int) -> int:
    return 16 + 8 * index


def _arg_high(index: int) -> int:
    return 16 + 8 * index + 4


CLONE_THREAD = 0x00010000
TIOCSTI = 0x5412
F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW = 6, 7, 37, 38
# SIGIO ownership: F_SETOWN + F_SETSIG(SIGKILL) + O_ASYNC on a pipe makes the kernel send any
# signal to the owner (the zygote, the next verdict's child) when the host reads the pipe.
F_SETOWN, F_SETSIG, F_SETOWN_EX = 8, 10, 15
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902
PR_SET_DUMPABLE, PR_SET_PTRACER = 4, 0x59616D61

# x86-64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl), always refused.
DENIED_SYSCALLS: dict[str, int] = {
    # processes and exec
    "fork": 57,
    "vfork": 58,
    "execve": 59,
    "execveat": 322,
    # sockets of every family
    "socket": 41,
    "socketpair": 53,
    "connect": 42,
    "bind": 49,
    "listen": 50,
    "accept": 43,
    "accept4": 288,
    # other processes: memory, tracing, signals, scheduling
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "process_madvise": 440,
    "kcmp": 312,
    "kill": 62,
    "tkill": 200,
    "tgkill": 234,
    "rt_sigqueueinfo": 129,
    "rt_tgsigqueueinfo": 297,
    "pidfd_open": 434,
    "pidfd_send_signal": 424,
    "pidfd_getfd": 438,
    "migrate_pages": 256,
    "setpriority": 141,
    "ioprio_set": 251,
    # namespaces, mounts, roots
    "mount": 165,
    "umount2": 166,
    "unshare": 272,
    "setns": 308,
    "pivot_root": 155,
    "chroot": 161,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    # kernel facilities that are attack surface or covert channels
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "flock": 73,
    "memfd_create": 319,
    "memfd_secret": 447,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "reboot": 169,
    "swapon": 167,
    "swapoff": 168,
    "acct": 163,
    "quotactl": 179,
    "iopl": 172,
    "ioperm": 173,
    "setsid": 112,
    "setpgid": 109,
    "personality": 135,
    "fanotify_init": 300,
    "lookup_dcookie": 212,
    "syslog": 103,
    "vhangup": 153,
    "mq_open": 240,
    "msgget": 68,
    "semget": 64,
    "shmget": 29,
}

# Allowed only on the calling process itself: argument 0 (a pid) must be 0.
SELF_ONLY_SYSCALLS: dict[str, int] = {
    "prlimit64": 302,
    "sched_setaffinity": 203,
    "sched_setscheduler": 144,
    "sched_setparam": 142,
    "sched_setattr": 314,
    "move_pages": 279,
    "get_robust_list": 274,
}

SYS_CLONE = 56
SYS_CLONE3 = 435
SYS_IOCTL = 16
SYS_FCNTL = 72
SYS_PRCTL = 157

# (syscall, argument index, refused values of that argument's low 32 bits)
DENIED_ARGUMENTS: tuple[tuple[int, int, tuple[int, ...]], ...] = (
    (SYS_IOCTL, 1, (TIOCSTI, FIOSETOWN, SIOCSPGRP)),
    (SYS_FCNTL, 1, (F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW, F_SETOWN, F_SETSIG, F_SETOWN_EX)),
    (SYS_PRCTL, 0, (PR_SET_DUMPABLE, PR_SET_PTRACER)),
)


@dataclasses.dataclass
class _Insn:
    code: int
    k: int
    true: str | None = None  # label, for jumps
    false: str | None = None


class _Assembler:
    def __init__(self) -> None:
        self.program: list[_Insn] = []
        self.labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        if name in self.labels:
            raise ValueError(f"duplicate label {name}")
        self.labels[name] = len(self.program)

    def load(self, offset: int) -> None:
        self.program.append(_Insn(_LD_W_ABS, offset))

    def jump(self, code: int, k: int, true: str | None, false: str | None) -> None:
        """Jump to ``true``/``false`` (None: fall through to the next instruction)."""
        self.program.append(_Insn(code, k, true, false))

    def ret(self, value: int) -> None:
        self.program.append(_Insn(_RET_K, value))

    def assemble(self) -> bytes:
        out = []
        for index, insn in enumerate(self.program):
            if insn.code in (_JMP_JEQ_K, _JMP_JGE_K, _JMP_JSET_K):
                jt = self._offset(index, insn.true)
                jf = self._offset(index, insn.false)
                out.append(struct.pack("<HBBI", insn.code, jt, jf, insn.k))
            else:
                out.append(struct.pack("<HBBI", insn.code, 0, 0, insn.k))
        return b"".join(out)

    def _offset(self, index: int, label: str | None) -> int:
        if label is None:
            return 0
        offset = self.labels[label] - index - 1
        if not 0 <= offset <= 255:
            raise ValueError(f"jump to {label} out of range ({offset})")
        return offset


def build_filter(deny_errno: int = errno.EPERM) -> bytes:
    """Return the filter as the bytes of a ``struct sock_filter`` array (x86-64 only)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        raise NotImplementedError("the seccomp filter is written for x86-64")
    asm = _Assembler()
    asm.load(_OFF_ARCH)
    asm.jump(_JMP_JEQ_K, AUDIT_ARCH_X86_64, None, "kill")
    asm.load(_OFF_NR)
    asm.jump(_JMP_JGE_K, X32_SYSCALL_BIT, "kill", None)
    for number in sorted(set(DENIED_SYSCALLS.values())):
        asm.jump(_JMP_JEQ_K, number, "deny", None)
    for number in sorted(set(SELF_ONLY_SYSCALLS.values())):
        asm.jump(_JMP_JEQ_K, number, "self_only", None)
    asm.jump(_JMP_JEQ_K, SYS_CLONE, "clone", None)
    asm.jump(_JMP_JEQ_K, SYS_CLONE3, "enosys", None)
    for number, _, _ in DENIED_ARGUMENTS:
        asm.jump(_JMP_JEQ_K, number, f"args_{number}", None)
    asm.ret(SECCOMP_RET_ALLOW)

    asm.label("self_only")
    asm.load(_arg_low(0))
    asm.jump(_JMP_JEQ_K, 0, None, "deny")
    asm.load(_arg_high(0))
    asm.jump(_JMP_JEQ_K, 0, "allow", "deny")

    asm.label("clone")
    asm.load(_arg_low(0))
    asm.jump(_JMP_JSET_K, CLONE_THREAD, "allow", "deny")

    for number, argument, values in DENIED_ARGUMENTS:
        asm.label(f"args_{number}")
        asm.load(_arg_low(argument))
        for value in values:
            asm.jump(_JMP_JEQ_K, value, "deny", None)
        asm.ret(SECCOMP_RET_ALLOW)

    asm.label("allow")
    asm.ret(SECCOMP_RET_ALLOW)
    asm.label("deny")
    asm.ret(SECCOMP_RET_ERRNO | (deny_errno & 0xFFFF))
    asm.label("enosys")
    asm.ret(SECCOMP_RET_ERRNO | errno.ENOSYS)
    asm.label("kill")
    asm.ret(SECCOMP_RET_KILL_PROCESS)
    return asm.assemble()


def allow_all_filter() -> bytes:
    """A filter that allows everything (tests use it to prove the self-test notices)."""
    asm = _Assembler()
    asm.ret(SECCOMP_RET_ALLOW)
    return asm.assemble()
