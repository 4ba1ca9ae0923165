"""Template filters of the web pages: money, safe Markdown, the trade-price chart, starters,
links to the site's help pages."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import markdown as markdown_lib
import nh3
from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from market.charts import render_price_chart
from market.money import format_minor
from market.starters import starter_solution

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
def price_chart(trades: Sequence[object], currency: str = "DEMO") -> SafeString:
    """The recent trade prices as an SVG chart with axes, labels and a tooltip per trade."""
    return render_price_chart(trades, currency)


@register.filter
def get_item(mapping: Mapping[Any, Any] | None, key: Any) -> Any:
    """``states|get_item:solution.pk``: a dict lookup by a variable key (None when absent)."""
    return (mapping or {}).get(key)


@register.filter
def lean_starter(source: str) -> str:
    """A starting Lean solution for a verifier ``source``: ``import Verifier`` (plus the
    verifier's own imports) and an ``answer`` of the right shape for ``Spec``."""
    return starter_solution(source or "")


@register.filter
def with_draft_languages(problems: Iterable[Any]) -> list[Any]:
    """An author's own problems with ``languages`` set, draft verifiers included."""
    from market.page_selectors import attach_languages

    return attach_languages(problems, include_drafts=True)


# Repository paths that a message may name, and the page of this site that explains each.
SITE_PAGES_FOR_PATHS = {
    "judge/python/safe_parse.py": "/docs/verifiers/",
    "docs/python-judge.md": "/docs/verifiers/",
    "docs/lean-judge.md": "/help/verifiers/#lean",
    "docs/verifiers.md": "/help/verifiers/",
}


@register.filter
def site_links(text: object) -> SafeString:
    """Escape ``text``, then turn the repository paths it names into links to the page of this
    site that explains them (a solver or author has the site, not the repository)."""
    html = str(conditional_escape(text))
    for repo_path, url in SITE_PAGES_FOR_PATHS.items():
        label = "the safe parser recipe" if repo_path.endswith("safe_parse.py") else "the guide"
        html = html.replace(repo_path, f'<a href="{url}">{label}</a>')
    return mark_safe(html)  # noqa: S308 - escaped above; only our constant links added


@register.simple_tag(takes_context=True)
def page_url(context: dict[str, Any], param: str, number: int) -> str:
    """The current URL's query with ``param`` set to ``number`` (other tables keep their page)."""
    query = context["request"].GET.copy()
    query[param] = str(number)
    return "?" + query.urlencode()
