"""The verifier's `-- judge: allow NAME[, NAME...]` line: parsing and policy.

Only the verifier's first line counts, and it must be exactly

    -- judge: allow NAME[, NAME...]

with ASCII Lean identifiers. A first line that *looks* like a judge directive but is not exactly
that line (inside a block comment, after a byte-order mark, with look-alike letters, misspelt) is
a publishing error rather than silently ignored: an author who meant to widen the allowlist must
learn at publishing time that it did not happen. A directive-looking text on any *other* line (a
doc comment that quotes the syntax, a string literal) is only a WARNING: it changes nothing, the
verifier publishes with the standard axioms (plus its first line's), and the author is told so.

Policy on the pinned toolchain (Lean >= 4.35, see docs/lean-judge.md): `Lean.ofReduceBool`,
`Lean.ofReduceNat` and `Lean.trustCompiler` no longer exist in Lean 4.35.0 (removed by lean4
PR 14953), so the example allow line of seed 004 is obsolete; anything naming a `_native` axiom
cannot be honoured either, because every `native_decide` produces its own fresh axiom that no
kernel can check, that Comparator cannot permit (a permitted axiom must exist identically in the
challenge), and whose name a solution can imitate. Those names are a publishing error. `sorryAx`
can never be allowed.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata

STANDARD_AXIOMS: tuple[str, ...] = ("propext", "Classical.choice", "Quot.sound")

MAX_ALLOWED_NAMES = 16
MAX_NAME_LENGTH = 200

_PREFIX = "-- judge: allow "
# The exact grammar. Names are checked one by one afterwards for clearer messages.
_STRICT_LINE = re.compile(r"^-- judge: allow (?P<names>\S.*?)\s*$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_']*(\.[A-Za-z_][A-Za-z0-9_']*)*$")
# Anything that reads as a judge directive once look-alike letters are folded to ASCII.
_LOOSE_DIRECTIVE = re.compile(r"--\s*judge\s*:", re.IGNORECASE)
_LOOSE_ALLOW = re.compile(r"judge\s*:\s*allow", re.IGNORECASE)

# Letters from other scripts that render like ASCII letters (a small, targeted table: NFKC
# already folds fullwidth and mathematical alphanumerics).
_CONFUSABLES = str.maketrans(
    {
        "а": "a",
        "е": "e",
        "о": "o",
        "р": "p",
        "с": "c",
        "у": "y",
        "х": "x",
        "і": "i",
        "ј": "j",
        "ѕ": "s",
        "ԁ": "d",
        "ԛ": "q",
        "һ": "h",
        "ӏ": "l",
        "ɡ": "g",
        "ɩ": "i",
        "ο": "o",
        "α": "a",
        "ν": "v",
        "ⅼ": "l",
        "А": "A",
        "Е": "E",
        "О": "O",
        "Р": "P",
        "С": "C",
        "Х": "X",
        "Ј": "J",
        "Ѕ": "S",
        "І": "I",
        "Ο": "O",
        "Α": "A",
        "\u00a0": " ",
        "\u2011": "-",
        "\u2010": "-",
        "\u2212": "-",
        "\uff1a": ":",
    }
)

# Names that can never be widened into the allowlist, with the reason shown to the author.
_REFUSED_NAMES: dict[str, str] = {
    "sorryAx": "`sorryAx` is what `sorry` elaborates to; it can never be allowed",
    **{
        name: (
            f"`{name}` no longer exists in Lean 4.35.0 (removed by lean4 PR 14953), so it "
            "cannot be allowed (the example allow line of seed 004 is obsolete); "
            "`native_decide` is rejected on this judge: prove it with `decide`"
        )
        for name in ("Lean.ofReduceBool", "Lean.ofReduceNat", "Lean.trustCompiler")
    },
}


@dataclasses.dataclass(frozen=True, slots=True)
class AllowParse:
    """The result of reading a verifier's allow line.

    ``widened`` lists the extra names in the order written (deduplicated, standard axioms
    dropped); ``errors`` is empty exactly when the verifier's directives are valid;
    ``warnings`` name directive-looking text after the first line (it changes nothing).
    """

    widened: tuple[str, ...]
    errors: tuple[str, ...]
    warnings: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def permitted_axioms(self) -> tuple[str, ...]:
        return STANDARD_AXIOMS + self.widened


def _skeleton(text: str) -> str:
    """Fold compatibility forms and common look-alike letters to ASCII for *detection* only."""
    return unicodedata.normalize("NFKC", text).translate(_CONFUSABLES)


def _first_non_ascii(text: str) -> str | None:
    for char in text:
        if ord(char) > 0x7F:
            name = unicodedata.name(char, "UNKNOWN")
            return f"U+{ord(char):04X} {name}"
    return None


def _name_error(name: str) -> str | None:
    if not name:
        return "an empty name in the allow line (check the commas)"
    if len(name) > MAX_NAME_LENGTH:
        return f"an allowed name is longer than {MAX_NAME_LENGTH} characters"
    odd = _first_non_ascii(name)
    if odd is not None:
        return (
            f"`{name}` is not an ASCII Lean identifier (it contains {odd}); allowed axiom "
            "names must be written in ASCII"
        )
    if not _IDENTIFIER.match(name):
        return f"`{name}` is not a Lean identifier such as `Foo.bar`"
    if "_root_" in name.split("."):
        # Lean resolves `_root_.X` to `X`, Comparator's `String.toName` keeps it literally: a
        # refused name must not come back this way, and no axiom needs it. Write the full name.
        return f"`{name}`: write the axiom's full name without `_root_`"
    if name in _REFUSED_NAMES:
        return _REFUSED_NAMES[name]
    if any(part.startswith("_native") for part in name.split(".")):
        return (
            f"`{name}` names a native-computation axiom; those are produced fresh for each "
            "`native_decide` and cannot be allowed on the pinned toolchain"
        )
    return None


def parse_allow_line(source: str) -> AllowParse:
    """Read the widening of the axiom allowlist from a verifier's source; never raises."""
    errors: list[str] = []
    if source.startswith("\ufeff"):
        return AllowParse(
            (),
            (
                "the verifier starts with a byte-order mark (U+FEFF); save it as UTF-8 "
                "without BOM so that its first line can be read exactly",
            ),
        )
    lines = source.split("\n")
    first = lines[0].removesuffix("\r")

    # Directives anywhere but the first line never count; say so, but publish (a doc comment
    # or a string may quote the syntax).
    warnings: list[str] = []
    for number, raw in enumerate(lines[1:], start=2):
        if _LOOSE_ALLOW.search(_skeleton(raw)) or _LOOSE_DIRECTIVE.search(_skeleton(raw)):
            warnings.append(
                f"line {number} looks like a `-- judge:` directive but only the verifier's "
                "first line counts: it is ignored (move it to line 1 if you meant it)"
            )

    widened: list[str] = []
    folded_first = _skeleton(first)
    looks_like_directive = bool(
        _LOOSE_DIRECTIVE.search(folded_first) or _LOOSE_ALLOW.search(folded_first)
    )
    if looks_like_directive:
        if first.lstrip().startswith("/-"):
            errors.append(
                "the judge directive on line 1 is inside a block comment; write it as a line "
                "comment: `-- judge: allow NAME[, NAME...]`"
            )
        elif _STRICT_LINE.match(folded_first) and not first[: len(_PREFIX)].isascii():
            odd = _first_non_ascii(first[: len(_PREFIX)])
            errors.append(
                f"line 1 is a judge directive written with look-alike characters ({odd}); "
                "write it in ASCII: `-- judge: allow NAME[, NAME...]`"
            )
        else:
            match = _STRICT_LINE.match(first)
            if match is None:
                errors.append(
                    "line 1 is a malformed judge directive; the exact form is "
                    "`-- judge: allow NAME[, NAME...]` starting in the first column"
                )
            else:
                names = [part.strip() for part in match.group("names").split(",")]
                if len(names) > MAX_ALLOWED_NAMES:
                    errors.append(f"the allow line lists more than {MAX_ALLOWED_NAMES} names")
                for name in names:
                    problem = _name_error(name)
                    if problem is not None:
                        errors.append(problem)
                    elif name in widened:
                        errors.append(f"`{name}` is listed twice in the allow line")
                    elif name not in STANDARD_AXIOMS:
                        widened.append(name)
    if errors:
        return AllowParse((), tuple(errors), tuple(warnings))
    return AllowParse(tuple(widened), (), tuple(warnings))
