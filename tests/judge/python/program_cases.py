"""Example programs with their expected verdict written beside them, compiler-test style.

Each program is a verifier module whose header comments state the case:

    # expect: REJECTED TIME_LIMIT          (verdict, then reason unless ACCEPTED)
    # detail: Operation not permitted      (optional: a substring of the verdict's detail)
    # solution: 42                         (optional, default empty; \\n escapes allowed)
    # time_limit_s: 1                      (optional, default 5)
    # memory_limit_mb: 64                  (optional, default 128)
    # seed: 7                              (optional, default 1)
"""

from __future__ import annotations

import dataclasses
import pathlib

from judge.python import PythonJob


@dataclasses.dataclass(frozen=True)
class ProgramCase:
    path: pathlib.Path
    verdict: str
    reason: str | None
    detail: str | None
    job: PythonJob


def load_case(path: pathlib.Path) -> ProgramCase:
    source = path.read_text()
    header: dict[str, str] = {}
    for line in source.splitlines():
        if line.startswith("# ") and ":" in line:
            key, _, value = line[2:].partition(":")
            header.setdefault(key.strip(), value.strip())
    expect = header["expect"].split()
    job = PythonJob(
        verifier_source=source,
        solution=header.get("solution", "").encode().decode("unicode_escape"),
        seed=int(header.get("seed", "1")),
        time_limit_s=float(header.get("time_limit_s", "5")),
        memory_limit_mb=int(header.get("memory_limit_mb", "128")),
    )
    return ProgramCase(
        path, expect[0], expect[1] if len(expect) > 1 else None, header.get("detail"), job
    )


def load_cases(directory: pathlib.Path) -> list[ProgramCase]:
    return [load_case(path) for path in sorted(directory.glob("*.py"))]
