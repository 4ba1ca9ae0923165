"""Module state, properties and hooks carry the solution's data (issue 25, section 2).

Text stored into module state (or a mutable default) and read back by code that runs where no
call is written -- a property getter, a descriptor, ``__str__``/``_sympystr`` called by a
library, a metaclass ``__getattr__`` -- is the solution's data where it comes out. Each attack
below hands it to ``sympy.Matrix`` (which sympifies strings: a sink only the taint analysis
sees) on its last line; each honest case keeps the same shapes over constants and publishes.
"""

from __future__ import annotations

import textwrap

import pytest

from judge.python import static_check


def _src(body: str) -> str:
    return '"""Format: text."""\nimport sympy\n' + textwrap.dedent(body).lstrip("\n")


_SINK = "    return sympy.Matrix([[{value}]])[0, 0] == 4\n"

# name -> verifier body (the sink is its last line)
ATTACKS: dict[str, str] = {
    "property reads module state": (
        "STATE = {}\nclass Box:\n    @property\n    def t(self):\n        return STATE['s']\n"
        "def verify(solution, rng):\n    STATE['s'] = solution\n" + _SINK.format(value="Box().t")
    ),
    "_sympystr hook": (
        "STATE = []\nclass Hook:\n    def _sympystr(self, printer):\n        return STATE[0]\n"
        "def verify(solution, rng):\n    STATE.append(solution)\n"
        + _SINK.format(value="sympy.sstr(Hook())")
    ),
    "descriptor __get__": (
        "STATE = []\nclass Desc:\n    def __get__(self, obj, owner):\n        return STATE[0]\n"
        "class Box:\n    t = Desc()\n"
        "def verify(solution, rng):\n    STATE.append(solution)\n" + _SINK.format(value="Box().t")
    ),
    "metaclass __getattr__": (
        "STATE = []\nclass Meta(type):\n    def __getattr__(cls, name):\n        return STATE[0]\n"
        "class Box(metaclass=Meta):\n    pass\n"
        "def verify(solution, rng):\n    STATE.append(solution)\n"
        + _SINK.format(value="Box.anything")
    ),
    "property(getter) of a module function": (
        "STATE = []\ndef getter(self):\n    return STATE[0]\nclass Box:\n    t = property(getter)\n"
        "def verify(solution, rng):\n    STATE.append(solution)\n" + _SINK.format(value="Box().t")
    ),
    "class attribute is the state": (
        "STATE = {}\nclass Box:\n    ref = STATE\n"
        "def verify(solution, rng):\n    STATE['s'] = solution\n"
        + _SINK.format(value="Box.ref['s']")
    ),
    "mutable default read by a later call": (
        "def keep(text=None, memo={}):\n    if text is not None:\n        memo['t'] = text\n"
        "    return memo.get('t', '')\n"
        "def verify(solution, rng):\n    keep(solution)\n" + _SINK.format(value="keep()")
    ),
    "default bound to state": (
        "STATE = {}\ndef read(d=STATE):\n    return d['s']\n"
        "def verify(solution, rng):\n    STATE['s'] = solution\n" + _SINK.format(value="read()")
    ),
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_state_read_back_by_unwritten_calls_is_the_solutions_data(name: str) -> None:
    source = _src(ATTACKS[name])
    sink = len(source.splitlines())

    report = static_check(source)

    assert report.ok is False
    assert any(flow.line == sink for flow in report.injection_flows), report.errors


HONEST = {
    "a property, a hook and a descriptor over constants": """
        N = 4
        class Desc:
            def __get__(self, obj, owner):
                return N
        class Box:
            d = Desc()
            @property
            def t(self):
                return N
            def _sympystr(self, printer):
                return "box"
        def verify(solution, rng):
            n = int(solution)
            return sympy.Matrix([[Box().t, Box().d]])[0, 0] == n and sympy.sstr(Box()) == "box"
        """,
    "module state holding parsed numbers": """
        SEEN = []
        class Last:
            @property
            def value(self):
                return SEEN[-1]
        def verify(solution, rng):
            SEEN.append(int(solution))
            return sympy.Matrix([[Last().value]])[0, 0] == 4
        """,
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_state_holding_no_text_publishes(name: str) -> None:
    report = static_check(_src(HONEST[name]))

    assert (report.ok, report.errors) == (True, ())
