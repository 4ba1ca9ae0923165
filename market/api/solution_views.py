"""The solutions endpoints: list, submit (judged asynchronously), detail, polling and waiting."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, overload

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from market import access, selectors
from market.api import serializers as s
from market.api.idempotency import idempotent
from market.api.solution_bodies import solution_body
from market.api.views import (
    IF_NONE_MATCH,
    NOT_MODIFIED,
    ListView,
    _not_modified,
    _params,
    parse_body,
)
from market.models import Solution
from market.services.solutions import submit_solution
from market.verdict_waits import MAX_WAIT_S, is_final, waiting_for_verdict
from verifiers import access as verifier_access


def _solution_etag(solution: Solution, user_id: int) -> str:
    # The reader is part of the tag: the solver and a buyer get different bodies (`is_mine`).
    state = (
        f"{solution.pk}:{user_id}:{solution.status}:{solution.judged_at}:{solution.pending_reason}"
    )
    return '"sol-' + hashlib.sha256(state.encode()).hexdigest()[:24] + '"'


# Both solution reads take ``?wait``; the parameter's own text is the serializer's help_text.
WAIT_DESCRIPTION = (
    f"`?wait=<seconds>` (at most {MAX_WAIT_S}) holds the answer until the verdict instead of "
    "polling: it returns as soon as the solution is accepted or rejected, or with its pending "
    "state when the time is up (a server without a free slot answers at once)."
)
SUBMIT_WAIT_DESCRIPTION = (
    f"With `?wait=<seconds>` (at most {MAX_WAIT_S}) the submission is committed and queued, "
    "then the answer is held until the verdict, as on `GET /solutions/{id}/?wait=`: the body "
    "is the solution with its verdict, or its pending state when the time is up. A replay "
    "(the same text, or the same Idempotency-Key) waits the same way. One request per verdict."
)


# What a waited submission keeps of the submission's own answer (its body and ETag are new).
_KEPT_HEADERS = ("Location", "Idempotent-Replayed")


class SolutionListView(ListView):
    @extend_schema(
        parameters=[s.SolutionFilterSerializer],
        responses=s.SolutionSerializer(many=True),
        summary="My solutions, newest first (without their text)",
    )
    def get(self, request: Request) -> Response:
        params = _params(s.SolutionFilterSerializer, request)
        solutions = selectors.list_user_solutions(
            user=request.user, problem_id=params.get("problem"), status=params.get("status")
        )
        return self.paginated(solutions, s.SolutionSerializer)

    @extend_schema(
        request={
            "application/json": s.SolutionCreateSerializer,
            "multipart/form-data": s.SolutionCreateSerializer,
        },
        parameters=[s.SolutionWaitSerializer],
        responses={202: s.SolutionSerializer},
        summary="Submit a solution (text or file, at most 64 KB); judged asynchronously",
        description=SUBMIT_WAIT_DESCRIPTION,
    )
    def post(self, request: Request) -> Response:
        wait_s = _wait_s(request)  # a bad wait is refused before anything is submitted
        response = self._submit(request)
        if wait_s <= 0 or response.status_code != status.HTTP_202_ACCEPTED:
            return response
        # The submission is committed and its task enqueued (the Idempotency-Key's
        # transaction, if any, has ended): only now wait, outside any transaction. A replay
        # waits the same way; the key stores the answer the submission gave at once. That
        # stored answer may be stale (judged since): a replay reads the solution even when it
        # cannot wait, so it answers the current state as the read would.
        pk = int(response.data["id"])
        if response.has_header("Idempotent-Replayed"):
            solution = _read_when_judged(request, pk, wait_s)
        else:
            solution = _read_when_judged(request, pk, wait_s, known_status=response.data["status"])
        if solution is None:
            return response
        body = solution_body(solution, request=request)
        headers = {h: response[h] for h in _KEPT_HEADERS if response.has_header(h)}
        headers["ETag"] = _solution_etag(solution, request.user.pk)
        return Response(body, status=response.status_code, headers=headers)

    @idempotent
    def _submit(self, request: Request) -> Response:
        data = parse_body(s.SolutionCreateSerializer, request)
        verifier, version = verifier_access.access_verifier_to_submit(
            user=request.user, verifier_id=data["verifier"]
        )
        text = data["file"].read() if "file" in data else data["text"]
        # Without an active version the service says why it takes no solutions.
        target = {"verifier": verifier} if version is None else {"verifier_version": version}
        # Answered from the row it inserted (with its verdict: None for a new one), not re-read.
        solution = submit_solution(solver=request.user, text=text, **target)
        body = solution_body(solution, request=request)
        return Response(
            body,
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": body["url"], "ETag": _solution_etag(solution, request.user.pk)},
        )


def _wait_s(request: Request) -> float:
    return float(_params(s.SolutionWaitSerializer, request).get("wait", 0))


@overload
def _read_when_judged(request: Request, pk: int, wait_s: float) -> Solution: ...
@overload
def _read_when_judged(
    request: Request, pk: int, wait_s: float, *, known_status: str
) -> Solution | None: ...
def _read_when_judged(
    request: Request, pk: int, wait_s: float, *, known_status: str | None = None
) -> Solution | None:
    """The caller's solution ``pk``, read once it is judged or ``wait_s`` is up.

    The wait registers before the first read (market/verdict_waits.py): a verdict committed
    before that read is read, one committed after it is heard. Each read is the access check
    and the verdict in one query. Given ``known_status``, the state the caller already holds (fresh
    from its submission): None when that state is not waited on (final, or no wait slot), so
    the caller's answer stands without a read.
    """
    if known_status is not None and is_final(known_status):
        return None  # judged already: no wait slot, no listener, no read
    multithreaded = bool(request.META.get("wsgi.multithread", False))
    with waiting_for_verdict(solution_id=pk, wait_s=wait_s, multithreaded=multithreaded) as wait:
        if known_status is not None and not wait.pending(known_status):
            return None
        solution = access.access_solution(user=request.user, solution_id=pk)
        while wait.pending(solution.status):
            wait.block()
            solution = access.access_solution(user=request.user, solution_id=pk)
    return solution


def _solution_response(
    request: Request, pk: int, render: Callable[[Solution], dict[str, Any]]
) -> Response:
    """One of the caller's solutions, rendered by ``render``, or 304 when its ETag matches.

    With ``?wait=<s>`` the answer waits until the solution is judged or the time is up; the
    ETag is then that of the state it answers with.
    """
    solution = _read_when_judged(request, pk, _wait_s(request))
    etag = _solution_etag(solution, request.user.pk)
    if (not_modified := _not_modified(request, etag)) is not None:
        return not_modified
    return Response(render(solution), headers={"ETag": etag})


class SolutionDetailView(GenericAPIView):
    @extend_schema(
        parameters=[IF_NONE_MATCH, s.SolutionWaitSerializer],
        responses={200: s.SolutionSerializer, 304: NOT_MODIFIED},
        summary="A solution with its verdict and text (its solver, or a buyer who owns a copy)",
        description=WAIT_DESCRIPTION,
    )
    def get(self, request: Request, pk: int) -> Response:
        return _solution_response(
            request, pk, lambda solution: solution_body(solution, request=request)
        )


class SolutionStatusView(GenericAPIView):
    @extend_schema(
        parameters=[IF_NONE_MATCH, s.SolutionWaitSerializer],
        responses={200: s.SolutionStatusSerializer, 304: NOT_MODIFIED},
        summary="Cheap verdict polling: status and verdict only, with an ETag",
        description=WAIT_DESCRIPTION,
    )
    def get(self, request: Request, pk: int) -> Response:
        return _solution_response(
            request, pk, lambda solution: s.SolutionStatusSerializer(solution).data
        )
