"""A solution's body on its two hot endpoints (the submission and the read), without DRF.

``SolutionSerializer`` is the shape (the schema and the list render with it); this builds the
same dict for one solution by hand. Per verdict a client gets this body twice (issue 29), and
a serializer instance deep-copies its declared fields and walks them generically: in
bench/profile_solutions_http.py the serializer was ~4.8 ms of a pair's ~75 ms profiled.
tests/api/test_verdict_round_trips.py holds the two equal, field by field.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from rest_framework.request import Request

from market.api.serializers.fields import datetime_text
from market.api.serializers.market import verdict_data
from market.models import Solution


def solution_body(solution: Solution, *, request: Request) -> dict[str, Any]:
    """``SolutionSerializer(solution, context={"request": request, "include_text": True}).data``.

    Precondition: the caller may read the text (access_solution or the solver's own
    submission); the solution's verifier version and verdict are loaded.
    """
    version = solution.verifier_version
    path = reverse("api:solution-detail", kwargs={"pk": solution.pk})
    return {
        "id": solution.pk,
        "url": request.build_absolute_uri(path),
        "problem": solution.problem_id,
        "verifier": version.verifier_id,
        "verifier_version": solution.verifier_version_id,
        "verifier_version_number": version.number,
        "status": str(solution.status),
        "pending_reason": solution.pending_reason,
        "sha256": solution.sha256,
        "size_bytes": solution.size_bytes,
        "created_at": datetime_text(solution.created_at),
        "judged_at": datetime_text(solution.judged_at),
        "verdict": verdict_data(solution),
        "is_mine": solution.solver_id == request.user.pk,
        "text": solution.text,
    }
