"""Template filters of the web pages: money, safe Markdown, a small trade-price chart."""

from __future__ import annotations

from collections.abc import Sequence

import markdown as markdown_lib
import nh3
from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from market.money import format_minor

register = template.Library()


@register.filter
def money(minor: int | None, currency: str = "DEMO") -> str:
    """``1234|money:"DEMO"`` renders ``12.34 DEMO``; None renders an en dash."""
    if minor is None:
        return "–"
    return format_minor(int(minor), currency)


@register.filter
def markdown(text: str) -> SafeString:
    """Render an author's Markdown, then clean the HTML with nh3 (no scripts, no handlers)."""
    html = markdown_lib.markdown(text or "", extensions=["fenced_code", "tables", "sane_lists"])
    # nh3 drops every tag and attribute outside its allowlist, including on* handlers,
    # javascript: URLs and <script>/<style>; rel="noopener noreferrer" goes on links.
    return mark_safe(nh3.clean(html))  # noqa: S308 - cleaned by nh3 just above


@register.simple_tag
def price_chart(trades: Sequence[object], width: int = 300, height: int = 80) -> SafeString:
    """An inline SVG line of the recent trade prices, oldest on the left."""
    prices = [int(t.price_minor) for t in reversed(list(trades))]  # type: ignore[attr-defined]
    if len(prices) < 2:
        return mark_safe("")  # noqa: S308 - constant
    low, high = min(prices), max(prices)
    span = (high - low) or 1
    pad = 8
    step = (width - 2 * pad) / (len(prices) - 1)
    points = [
        (pad + i * step, height - pad - (p - low) * (height - 2 * pad) / span)
        for i, p in enumerate(prices)
    ]
    # Coordinates are formatted before format_html, which escapes its arguments to strings.
    coordinates = [(f"{x:.1f}", f"{y:.1f}") for x, y in points]
    polyline = " ".join(f"{x},{y}" for x, y in coordinates)
    dots = format_html_join(
        "", '<circle cx="{}" cy="{}" r="2.5" fill="#2952cc"></circle>', coordinates
    )
    return format_html(
        '<svg class="chart" viewBox="0 0 {} {}" role="img" aria-label="Recent trade prices, '
        'from {} to {} (minor units)" preserveAspectRatio="none">'
        '<polyline fill="none" stroke="#2952cc" stroke-width="2" points="{}"></polyline>{}</svg>',
        width,
        height,
        low,
        high,
        polyline,
        dots,
    )
