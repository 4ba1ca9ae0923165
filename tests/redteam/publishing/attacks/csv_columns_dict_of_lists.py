"""Solution: text (a publishing attack: table[header].append(cell) then Matrix(values))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: table[header].append(cell) then Matrix(values)
import sympy


def verify(solution, rng):
    lines = solution.splitlines()
    headers = lines[0].split(",")
    table = {header: [] for header in headers}
    for line in lines[1:]:
        for header, cell in zip(headers, line.split(",")):
            table[header].append(cell)
    return sympy.Matrix(list(table.values()))[0, 0] == 4
