"""The sandbox seam: bubblewrap + seccomp + rlimits + cgroups around a warm zygote."""

from judge.sandbox.errors import SandboxUnavailable

__all__ = ["SandboxUnavailable"]
