"""parse_math reads a decimal literal's TEXT exactly (issue 25, section 3).

Built from ``repr(float)``, ``0.32500000000000000001`` was exactly 13/40 and
``9007199254740993.0`` was 2**53: a wrong answer ACCEPTED by an honest verifier.
"""

from __future__ import annotations

import fractions

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from formalmarket_verify import ParseError, parse_math

DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=40)


@st.composite
def decimals(draw: st.DrawFn) -> str:
    whole = draw(DIGITS)
    fraction = draw(DIGITS)
    text = f"{whole}.{fraction}"
    if draw(st.booleans()):
        text += f"e{draw(st.integers(-300, 300))}"
    return text


@given(decimals())
def test_a_decimal_literal_is_exactly_the_fraction_of_its_text(text: str) -> None:
    value = parse_math(text)

    assert isinstance(value, sympy.Rational)
    assert fractions.Fraction(int(value.p), int(value.q)) == fractions.Fraction(text)


@st.composite
def spelled_decimals(draw: st.DrawFn) -> str:
    """Every way Python spells a decimal literal: `.5`, `5.`, `1_000.000_1`, `2E-7`, `3e4`."""
    whole = draw(DIGITS | st.just(""))
    fraction = draw(DIGITS | st.just(""))
    exponent = draw(st.none() | st.integers(-400, 400))
    if not whole and not fraction:
        whole = "0"
    if exponent is None or draw(st.booleans()) or not whole:
        text = f"{whole}.{fraction}"
    else:
        text = whole  # 3e4: a decimal literal without a dot
    if exponent is not None:
        text += draw(st.sampled_from("eE")) + str(exponent)
    if draw(st.booleans()) and len(text) > 2 and text[0].isdigit() and text[1].isdigit():
        text = text[0] + "_" + text[1:]
    return text


@given(spelled_decimals(), st.sampled_from(["{}", "-{}", "({})", "x*{}", "({}, 1)"]))
def test_every_spelling_of_a_decimal_is_exact_wherever_it_stands(text: str, shape: str) -> None:
    x = sympy.Symbol("x")
    exact = fractions.Fraction(text)
    number = sympy.Rational(exact.numerator, exact.denominator)
    expected = {
        "{}": number,
        "-{}": -number,
        "({})": number,
        "x*{}": x * number,
        "({}, 1)": (number, sympy.Integer(1)),
    }[shape]

    assert parse_math(shape.format(text), {"x": x}) == expected


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("0.32500000000000000001", sympy.Rational(13, 40)),
        ("9007199254740993.0", sympy.Integer(2) ** 53),
        ("0.1", sympy.Float(0.1)),
    ],
)
def test_a_float_rounding_no_longer_hides_a_wrong_answer(text: str, wrong: object) -> None:
    assert parse_math(text) != wrong
    assert parse_math(text) == sympy.Rational(text)


def test_tiny_and_huge_decimals_are_exact() -> None:
    assert parse_math("0.00001") == sympy.Rational(1, 100000)
    assert parse_math("1e-5") == sympy.Rational(1, 100000)
    assert parse_math("2.5e3 + x", {"x": sympy.Symbol("x")}) == 2500 + sympy.Symbol("x")
    assert parse_math("1_000.5") == sympy.Rational(2001, 2)


@pytest.mark.parametrize("text", ["1e999999999", "0." + "1" * 5000, "1e-99999"])
def test_a_decimal_too_large_for_the_budget_is_refused_before_it_is_built(text: str) -> None:
    with pytest.raises(ParseError):
        parse_math(text, max_length=10_000)
