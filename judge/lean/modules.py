"""Lean 4.35 ``module`` files: the two combinations the judge's layout cannot work with.

In the module system a file that starts with ``module`` may import only other modules, and its
declarations are private unless marked ``public`` (or inside ``public section``). So:

- a ``module`` solution cannot ``import Verifier`` when the verifier is an ordinary file: Lean
  refuses the import, which would read as a compile error the solver cannot understand;
- a ``module`` verifier whose ``Spec`` is private: the judge's challenge and bridge (ordinary
  files) see only public declarations, so ``Spec`` would be unknown to them and every solution
  would be a statement mismatch.

Both are refused up front (publishing, submission) with a message saying what to write. The check
reads the text only (the judge has no Lean parser); it errs towards letting Lean decide.
"""

from __future__ import annotations

import re

_MODULE_HEADER = re.compile(r"^module\b")
_SPEC = re.compile(
    r"^(?P<mods>(?:@\[[^\]]*\]\s*)*(?:(?:public|private|protected|noncomputable|unsafe|partial)"
    r"\s+)*)(?:def|abbrev|theorem|structure|inductive|class|opaque|axiom)\s+(?:_root_\.)?Spec\b"
)


def _strip_comments(source: str) -> str:
    """The source without ``--`` line comments and ``/- -/`` block comments (nested)."""
    out: list[str] = []
    depth = 0
    i = 0
    in_string = False
    while i < len(source):
        two = source[i : i + 2]
        if depth == 0 and not in_string and two == "--":
            end = source.find("\n", i)
            i = len(source) if end < 0 else end
            continue
        if not in_string and two == "/-":
            depth += 1
            i += 2
            continue
        if depth > 0 and two == "-/":
            depth -= 1
            i += 2
            continue
        if depth == 0:
            char = source[i]
            if char == '"' and (i == 0 or source[i - 1] != "\\"):
                in_string = not in_string
            out.append(char)
        elif source[i] == "\n":
            out.append("\n")
        i += 1
    return "".join(out)


def is_module(source: str) -> bool:
    """Whether the file's header starts with ``module`` (the first word after comments)."""
    for line in _strip_comments(source).splitlines():
        stripped = line.strip()
        if stripped:
            return bool(_MODULE_HEADER.match(stripped))
    return False


def _spec_is_public(source: str) -> bool | None:
    """Whether a root-level ``Spec`` is public (None: no declaration found by text)."""
    public_sections = 0
    for line in _strip_comments(source).splitlines():
        stripped = line.strip()
        if re.match(r"^public\s+section\b", stripped):
            public_sections += 1
            continue
        if re.match(r"^end\s*$", stripped) and public_sections:
            public_sections -= 1
            continue
        match = _SPEC.match(stripped)
        if match is None:
            continue
        modifiers = match.group("mods").split()
        if "private" in modifiers:
            return False
        return "public" in modifiers or public_sections > 0
    return None


def verifier_module_error(source: str) -> str | None:
    """Why a ``module`` verifier cannot be published as written, or None."""
    if not is_module(source):
        return None
    if _spec_is_public(source) is False:
        return (
            "this verifier is a Lean `module` file and its `Spec` is private (declarations in a "
            "module are private unless marked `public`), so the judge's challenge cannot see it: "
            "write `public abbrev Spec ...` (or `@[expose] public def Spec ...` so that its "
            "body can be unfolded), or put it in a `public section`; or drop the `module` line"
        )
    return None


def solution_module_error(verifier: str, solution: str) -> str | None:
    """Why a ``module`` solution cannot work with this verifier, or None."""
    if is_module(solution) and not is_module(verifier):
        return (
            "the solution is a Lean `module` file, but the verifier is not one, and a module "
            "can import only modules: delete the `module` line (and any `public`/`@[expose]` "
            "markers) and keep `import Verifier`"
        )
    return None


__all__ = ["is_module", "solution_module_error", "verifier_module_error"]
