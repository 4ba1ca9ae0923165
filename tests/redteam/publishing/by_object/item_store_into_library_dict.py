"""Solution: a number (variant: a library's settings dict held in a name, then stored into)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: SETTINGS = StrPrinter._default_settings; SETTINGS[key] = value
# solution: 17
import sympy
import sympy.printing.str

SETTINGS = sympy.printing.str.StrPrinter._default_settings


def verify(solution, rng):
    SETTINGS["order"] = "none"  # sink
    return str(sympy.Integer(int(solution))) == "17"
