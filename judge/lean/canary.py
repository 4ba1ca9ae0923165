"""The canary: what the judge runs in a job's own sandbox before it trusts that sandbox.

Lake's ``lake comparator`` starts by resolving its tools with ``which`` (``mkContext``: the
sandbox ``$COMPARATOR_BWRAP``, ``git``, ``env``; ``resolveExternalKernels``: each configured
kernel) and exits 2 ("cannot run") if one is missing; then it starts its own bubblewrap, through
``env -i``, inside ours. Standalone Comparator resolves ``git`` with ``which`` too. So before any
solution is built the canary runs, in exactly the job's sandbox (same layers, same variables):

1. ``lake --version``: the sandbox starts and the toolchain is visible;
2. ``which <bwrap> git env <exporter> <kernels>`` (standalone: ``git``, landrun, lean4export and
   nanoda): Debian's ``which`` itself is an ``/etc/alternatives`` link;
3. (``lake comparator`` only) a nested bubblewrap with Lake's own kind of arguments, running
   ``lake --version`` inside, after creating ``.lake`` as Lake does.

Any failure is the platform's (SandboxFailed, a JUDGE_ERROR), never the solution's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from judge.lean.limits import RunResult
from judge.lean.sandbox import Layers, comparator_env, lake_inner_argv
from judge.lean.steps import SandboxFailed, run_step
from judge.lean.toolchain import Toolchain

CANARY_TIME_LIMIT_S = 60.0
# Lake creates `.lake` before it binds it writable into its sandbox; so does the canary.
NESTED_WRAPPER = 'mkdir -p .lake && exec "$@"'


def lake_tools(toolchain: Toolchain) -> list[str]:
    """What the comparator resolves with ``which`` before it starts (absolute paths or names)."""
    if toolchain.standalone_comparator is not None:
        assert toolchain.landrun is not None and toolchain.lean4export is not None
        tools = ["git", str(toolchain.landrun), str(toolchain.lean4export)]
        if toolchain.nanoda is not None:
            tools.append(str(toolchain.nanoda))
        return tools
    bin_dir = toolchain.prefix / "bin"
    tools = [str(toolchain.bwrap), "git", "env"]
    tools += [str(bin_dir / "leanexport"), str(bin_dir / "leanchecker")]
    if toolchain.nanoda is not None and not toolchain.paranoid:
        tools.append(str(toolchain.nanoda))
    return tools


def nested_command(toolchain: Toolchain, command: Sequence[str]) -> list[str]:
    """``sh -c`` creating ``.lake``, then Lake's kind of inner bubblewrap around ``command``."""
    return ["/bin/sh", "-c", NESTED_WRAPPER, "sh", *lake_inner_argv(toolchain, command)]


def _describe(result: RunResult) -> str:
    if result.spawn_error:
        return result.spawn_error
    if result.timed_out:
        return "timed out"
    if result.memory_exceeded:
        return "ran out of memory"
    return f"exit status {result.exit_code}"


def run_canary_step(
    toolchain: Toolchain,
    layers: Layers,
    command: Sequence[str],
    memory_limit_mb: float,
    extra_env: Mapping[str, str] | None = None,
) -> RunResult:
    return run_step(
        toolchain,
        layers,
        command,
        time_limit_s=CANARY_TIME_LIMIT_S,
        memory_limit_mb=memory_limit_mb,
        extra_env=dict(extra_env or {}),
    )


def canary_checks(toolchain: Toolchain) -> list[tuple[str, str, list[str]]]:
    """(name, what it proves, command) for each canary step, in order."""
    tools = lake_tools(toolchain)
    names = " ".join(tool.rsplit("/", 1)[-1] for tool in tools)
    checks = [
        ("sandbox", "run `lake --version`", [str(toolchain.lake), "--version"]),
        ("tools", f"resolve the tools the comparator needs (`which {names}`)", ["which", *tools]),
    ]
    if toolchain.standalone_comparator is None:
        checks.append(
            (
                "nested_bwrap",
                "start Lake's own bubblewrap inside it",
                nested_command(toolchain, [str(toolchain.lake), "--version"]),
            )
        )
    return checks


def check_sandbox(toolchain: Toolchain, layers: Layers, memory_limit_mb: float) -> None:
    """Run the canary in exactly this sandbox; raise SandboxFailed naming the step that failed.

    Without it a sandbox that cannot start (bubblewrap's own exit 1) would read as the solution's
    compile error, and a sandbox where Lake cannot find ``which`` or start its own bubblewrap
    would make every `lake comparator` run fail (exit 2, or exit 1 for a nested sandbox failure).
    """
    env = comparator_env(toolchain)
    for _, what, command in canary_checks(toolchain):
        result = run_canary_step(toolchain, layers, command, memory_limit_mb, env)
        if result.exit_code != 0:
            raise SandboxFailed(f"the Lean sandbox could not {what} ({_describe(result)})")
