"""``{% activity_badge %}``: the header's unread count (then kept live by htmx polling)."""

from __future__ import annotations

from typing import Any

from django import template

from activity.selectors import count_unread

register = template.Library()


@register.inclusion_tag("activity/_badge.html", takes_context=True)
def activity_badge(context: dict[str, Any]) -> dict[str, Any]:
    from activity.views import badge_poll_s

    user = context.get("user")
    unread = count_unread(user_id=user.pk) if user is not None and user.is_authenticated else 0
    return {"activity_unread": unread, "activity_poll_s": badge_poll_s()}
