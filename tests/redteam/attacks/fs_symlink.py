"""Create a symlink (host-side TOCTOU class)."""

# expect: REJECTED RUNTIME_ERROR
# detail: Read-only file system
import os


def verify(solution, rng):
    os.symlink("/etc/passwd", "/dev/redteam_link")
    return True
