"""The price chart of a problem's recent trades: a server-rendered SVG with axes, labels and a
tooltip per trade (an SVG ``<title>``, which browsers show on hover; ``static/js/chart.js``
also shows it under the chart on focus or tap). No script or style inside: the page's
Content-Security-Policy allows neither inline."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from market.money import format_minor

WIDTH, HEIGHT = 400, 190
LEFT, RIGHT, TOP, BOTTOM = 64, 10, 14, 34  # room for the price labels and the time labels
PAD = 8  # inside the plot, so a dot on the edge is not clipped


def _price_label(minor: int, currency: str) -> str:
    return format_minor(minor, currency).rsplit(" ", 1)[0]


def _when(trade: object) -> str:
    created = trade.created_at  # type: ignore[attr-defined]
    return timezone.localtime(created).strftime("%m-%d %H:%M:%S") if created else ""


def render_price_chart(trades: Sequence[object], currency: str) -> SafeString:
    """Oldest trade on the left; one dot per trade; nothing for fewer than two trades."""
    ordered = list(reversed(list(trades)))
    if len(ordered) < 2:
        return mark_safe("")  # noqa: S308 - constant
    prices = [int(t.price_minor) for t in ordered]  # type: ignore[attr-defined]
    low, high = min(prices), max(prices)
    span = (high - low) or 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = (plot_w - 2 * PAD) / (len(prices) - 1)

    def y_of(price: int) -> float:
        if high == low:
            return plot_h / 2
        return plot_h - PAD - (price - low) * (plot_h - 2 * PAD) / span

    points = [(f"{PAD + i * step:.1f}", f"{y_of(p):.1f}") for i, p in enumerate(prices)]
    polyline = " ".join(f"{x},{y}" for x, y in points)
    tips = [
        f"{_when(t)} · {format_minor(p, currency)}" for t, p in zip(ordered, prices, strict=True)
    ]
    dots = format_html_join(
        "",
        '<circle class="point" cx="{}" cy="{}" r="4" tabindex="0" data-tip="{}">'
        "<title>{}</title></circle>",
        ((x, y, tip, tip) for (x, y), tip in zip(points, tips, strict=True)),
    )
    ticks = sorted({low, high, (low + high) // 2}) if high != low else [low]
    y_axis = format_html_join(
        "",
        '<line class="grid-line" x1="0" x2="{}" y1="{}" y2="{}"></line>'
        '<text class="label" x="-6" y="{}" text-anchor="end" dominant-baseline="middle">{}</text>',
        ((plot_w, *[f"{y_of(t):.1f}"] * 3, _price_label(t, currency)) for t in ticks),
    )
    first, last = _when(ordered[0]), _when(ordered[-1])
    return format_html(
        '<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="{aria}">'
        '<g transform="translate({left},{top})">{y_axis}'
        '<line class="axis" x1="0" x2="0" y1="0" y2="{ph}"></line>'
        '<line class="axis" x1="0" x2="{pw}" y1="{ph}" y2="{ph}"></line>'
        '<text class="label" x="0" y="{lx}" text-anchor="start">{first}</text>'
        '<text class="label" x="{pw}" y="{lx}" text-anchor="end">{last}</text>'
        '<text class="label" x="{mid}" y="{lx}" text-anchor="middle">older → newer</text>'
        '<polyline class="line" points="{polyline}"></polyline>{dots}</g>'
        '<text class="label" x="4" y="10">{currency}</text></svg>',
        w=WIDTH,
        h=HEIGHT,
        aria=(
            f"Prices of the last {len(prices)} trades, from {format_minor(low, currency)} "
            f"to {format_minor(high, currency)}, latest {format_minor(prices[-1], currency)}"
        ),
        left=LEFT,
        top=TOP,
        y_axis=y_axis,
        ph=plot_h,
        pw=plot_w,
        lx=plot_h + 20,
        mid=plot_w // 2,
        first=first,
        last=last,
        polyline=polyline,
        dots=dots,
        currency=currency,
    )
