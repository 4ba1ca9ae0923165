"""The seccomp filter applied to every verdict child, as a classic-BPF program.

Built here, on the trusted side, as raw bytes (``struct sock_filter[]``); the in-sandbox
harness only hands those bytes to ``seccomp(SECCOMP_SET_MODE_FILTER)``. We assemble the program
ourselves instead of depending on libseccomp: the policy is a short deny list over one
architecture (x86-64), every instruction is covered by the red-team suite, and nothing needs to
be installed inside the sandbox.

Policy: default ALLOW, and a deny list (EPERM) for everything a verifier has no business doing:
process creation (fork, vfork, clone without CLONE_THREAD; clone3 answers ENOSYS so glibc falls
back to clone, which we can inspect), exec, sockets of every family, ptrace and
process_vm_*, signals to any process (kill family, pidfd_*), new namespaces and mounts,
keyrings, bpf, perf_event_open, userfaultfd, io_uring, file locks (a covert channel across
sandboxes), memfd_create, module loading, TIOCSTI. Foreign architectures (i386, x32) are killed.
"""

from __future__ import annotations

import errno
import platform
import struct

# BPF instruction classes / fields (linux/filter.h).
BPF_LD, BPF_JMP, BPF_RET, BPF_ALU = 0x00, 0x05, 0x06, 0x04
BPF_W, BPF_ABS, BPF_K = 0x00, 0x20, 0x00
BPF_JEQ, BPF_JGE, BPF_JSET, BPF_JA = 0x10, 0x30, 0x40, 0x00
BPF_AND = 0x50

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# struct seccomp_data offsets.
OFF_NR, OFF_ARCH, OFF_ARGS = 0, 4, 16

CLONE_THREAD = 0x00010000
TIOCSTI = 0x5412
F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW = 6, 7, 37, 38

# x86-64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl).
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
    # other processes' memory, tracing, signals
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
SYS_CLONE = 56
SYS_CLONE3 = 435
SYS_IOCTL = 16
SYS_FCNTL = 72


def _stmt(code: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, 0, 0, k)


def _jump(code: int, k: int, jt: int, jf: int) -> bytes:
    if not (0 <= jt <= 255 and 0 <= jf <= 255):
        raise ValueError("seccomp program too long for 8-bit jumps")
    return struct.pack("<HBBI", code, jt, jf, k)


def build_filter(deny_errno: int = errno.EPERM) -> bytes:
    """Return the filter as the bytes of a ``struct sock_filter`` array (x86-64 only)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        raise NotImplementedError("the seccomp filter is written for x86-64")
    deny = SECCOMP_RET_ERRNO | (deny_errno & 0xFFFF)
    enosys = SECCOMP_RET_ERRNO | errno.ENOSYS
    denied = sorted(set(DENIED_SYSCALLS.values()))

    # Layout (indices):
    #   0  ld arch
    #   1  jeq x86_64 ? 3 : 2
    #   2  ret KILL
    #   3  ld nr
    #   4  jge X32 bit ? KILL : next
    #   5.. one jeq per denied syscall -> DENY
    #   then: clone check, clone3, ioctl check, fcntl check, ALLOW, DENY, ENOSYS, KILL
    body: list[bytes] = []
    n_denied = len(denied)
    # Indices of the tail, relative to the start of the deny list (index 5).
    # tail block:
    #   c0: jeq clone ? c1 : c3
    #   c1: ld args[0] low
    #   c2: jset CLONE_THREAD ? ALLOW(reload not needed) : DENY
    #   c3: jeq clone3 ? ENOSYS : c4
    #   c4: jeq ioctl ? c5 : c7
    #   c5: ld args[1] low
    #   c6: jeq TIOCSTI ? DENY : ALLOW
    #   c7: jeq fcntl ? c8 : ALLOW
    #   c8: ld args[1] low
    #   c9: jeq F_SETLK ? DENY : c10
    #   c10: jeq F_SETLKW ? DENY : c11
    #   c11: jeq F_OFD_SETLK ? DENY : c12
    #   c12: jeq F_OFD_SETLKW ? DENY : ALLOW
    #   ALLOW, DENY, ENOSYS, KILL
    tail_len = 13
    start = 5
    c0 = start + n_denied
    allow = c0 + tail_len
    deny_at = allow + 1
    enosys_at = allow + 2
    kill_at = allow + 3

    def rel(frm: int, to: int) -> int:
        return to - frm - 1

    body.append(_stmt(BPF_LD | BPF_W | BPF_ABS, OFF_ARCH))  # 0
    body.append(_jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0))  # 1
    body.append(_stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS))  # 2
    body.append(_stmt(BPF_LD | BPF_W | BPF_ABS, OFF_NR))  # 3
    body.append(_jump(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, rel(4, kill_at), 0))  # 4
    for i, nr in enumerate(denied):
        index = start + i
        body.append(_jump(BPF_JMP | BPF_JEQ | BPF_K, nr, rel(index, deny_at), 0))
    arg0 = OFF_ARGS  # low 32 bits of args[0] (little endian)
    arg1 = OFF_ARGS + 8
    body.append(_jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_CLONE, 0, rel(c0, c0 + 3)))  # c0
    body.append(_stmt(BPF_LD | BPF_W | BPF_ABS, arg0))  # c1
    body.append(
        _jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, rel(c0 + 2, allow), rel(c0 + 2, deny_at))
    )
    body.append(_jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_CLONE3, rel(c0 + 3, enosys_at), 0))  # c3
    body.append(_jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_IOCTL, 0, rel(c0 + 4, c0 + 7)))  # c4
    body.append(_stmt(BPF_LD | BPF_W | BPF_ABS, arg1))  # c5
    body.append(_jump(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, rel(c0 + 6, deny_at), rel(c0 + 6, allow)))
    body.append(_jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_FCNTL, 0, rel(c0 + 7, allow)))  # c7
    body.append(_stmt(BPF_LD | BPF_W | BPF_ABS, arg1))  # c8
    for j, cmd in enumerate((F_SETLK, F_SETLKW, F_OFD_SETLK)):
        at = c0 + 9 + j
        body.append(_jump(BPF_JMP | BPF_JEQ | BPF_K, cmd, rel(at, deny_at), 0))
    body.append(
        _jump(BPF_JMP | BPF_JEQ | BPF_K, F_OFD_SETLKW, rel(c0 + 12, deny_at), rel(c0 + 12, allow))
    )
    assert len(body) == allow  # noqa: S101 -- program layout invariant
    body.append(_stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW))
    body.append(_stmt(BPF_RET | BPF_K, deny))
    body.append(_stmt(BPF_RET | BPF_K, enosys))
    body.append(_stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS))
    return b"".join(body)
