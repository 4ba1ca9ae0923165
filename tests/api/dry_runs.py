"""Dry runs through the API: 202 with the dry run's URL, judged as the worker does, polled."""

from __future__ import annotations

from typing import Any

from verifiers.services.dry_runs import perform_dry_run


def judge_requested_dry_run(client: Any, response: Any) -> dict[str, Any]:
    """Check the 202 answer, judge the dry run with the task's service, return the polled body."""
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] in ("pending", "running")
    assert response["Location"] == body["url"] == f"/api/v1/author/dry-runs/{body['id']}/"
    perform_dry_run(dry_run_id=body["id"])
    polled = client.get(body["url"])
    assert polled.status_code == 200, polled.content
    assert polled.json()["status"] == "done"
    return polled.json()  # type: ignore[no-any-return]
