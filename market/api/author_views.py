"""API views for authors: draft problems and verifiers, dry runs, publishing, retiring.

Each calls one function of :mod:`verifiers.services.publishing` (the same functions the author
pages call) after fetching the object through an ``access_own_*`` fetcher.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from market import access, selectors
from market.api import serializers as s
from market.api.idempotency import idempotent
from market.api.views import ListView, parse_body
from market.services import problems as problem_services
from market.services import verifier_authoring
from verifiers import access as verifier_access
from verifiers import selectors as verifier_selectors
from verifiers.services import dry_runs


def _problem_body(problem_id: int) -> dict[str, object]:
    problem = selectors.get_author_problem(problem_id=problem_id)
    return s.AuthorProblemSerializer(problem).data  # type: ignore[return-value]


def _verifier_body(verifier_id: int) -> dict[str, object]:
    verifier = verifier_selectors.get_author_verifier(verifier_id=verifier_id)
    return s.AuthorVerifierSerializer(verifier).data  # type: ignore[return-value]


class AuthorProblemListView(ListView):
    @extend_schema(
        responses=s.AuthorProblemSerializer(many=True), summary="My problems, in every state"
    )
    def get(self, request: Request) -> Response:
        problems = selectors.list_author_problems(author=request.user)
        return self.paginated(problems, s.AuthorProblemSerializer)

    @extend_schema(
        request=s.ProblemCreateSerializer,
        responses={201: s.AuthorProblemSerializer},
        summary="Create a draft problem",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = parse_body(s.ProblemCreateSerializer, request)
        problem = problem_services.create_problem(author=request.user, **data)
        return Response(_problem_body(problem.pk), status=status.HTTP_201_CREATED)


class AuthorProblemDetailView(GenericAPIView):
    @extend_schema(responses=s.AuthorProblemSerializer, summary="One of my problems")
    def get(self, request: Request, pk: int) -> Response:
        problem = access.access_own_problem(user=request.user, problem_id=pk)
        return Response(_problem_body(problem.pk))

    @extend_schema(
        request=s.ProblemUpdateSerializer,
        responses=s.AuthorProblemSerializer,
        summary="Edit my draft problem",
    )
    @idempotent
    def patch(self, request: Request, pk: int) -> Response:
        problem = access.access_own_problem(user=request.user, problem_id=pk)
        data = parse_body(s.ProblemUpdateSerializer, request)
        problem_services.update_problem(author=request.user, problem=problem, **data)
        return Response(_problem_body(problem.pk))


class AuthorProblemPublishView(GenericAPIView):
    @extend_schema(
        request=None,
        responses=s.AuthorProblemSerializer,
        summary="Publish my draft problem with its draft verifiers",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        problem = access.access_own_problem(user=request.user, problem_id=pk)
        problem_services.publish_problem(author=request.user, problem=problem)
        return Response(_problem_body(problem.pk))


class AuthorProblemRetireView(GenericAPIView):
    @extend_schema(
        request=None,
        responses=s.AuthorProblemSerializer,
        summary="Retire my published problem: no new solutions or orders; existing ones stay "
        "valid (a draft: 409, it stays private)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        problem = access.access_own_problem(user=request.user, problem_id=pk)
        problem_services.retire_problem(author=request.user, problem=problem)
        return Response(_problem_body(problem.pk))


class AuthorVerifierCreateView(GenericAPIView):
    @extend_schema(
        request=s.VerifierCreateSerializer,
        responses={201: s.AuthorVerifierSerializer},
        summary="Add a draft verifier to my problem",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        problem = access.access_own_problem(user=request.user, problem_id=pk)
        data = parse_body(s.VerifierCreateSerializer, request)
        verifier = verifier_authoring.create_verifier(author=request.user, problem=problem, **data)
        return Response(_verifier_body(verifier.pk), status=status.HTTP_201_CREATED)


class AuthorVerifierDetailView(GenericAPIView):
    @extend_schema(responses=s.AuthorVerifierSerializer, summary="One of my verifiers")
    def get(self, request: Request, pk: int) -> Response:
        verifier = verifier_access.access_own_verifier(user=request.user, verifier_id=pk)
        return Response(_verifier_body(verifier.pk))

    @extend_schema(
        request=s.VerifierUpdateSerializer,
        responses=s.AuthorVerifierSerializer,
        summary="Edit my verifier's draft (a published one gets a new version on publish)",
        description="Source, budget, Lean project and samples are the draft: the live version "
        "changes only on publish. `name` and `is_source_public` are not versioned: they apply "
        "at once, so making the source public shows the published version's source now.",
    )
    @idempotent
    def patch(self, request: Request, pk: int) -> Response:
        verifier = verifier_access.access_own_verifier(user=request.user, verifier_id=pk)
        data = parse_body(s.VerifierUpdateSerializer, request)
        verifier_authoring.update_verifier(author=request.user, verifier=verifier, **data)
        return Response(_verifier_body(verifier.pk))


class AuthorDryRunView(ListView):
    @extend_schema(responses=s.DryRunSerializer(many=True), summary="My verifier's dry runs")
    def get(self, request: Request, pk: int) -> Response:
        verifier = verifier_access.access_own_verifier(user=request.user, verifier_id=pk)
        return self.paginated(
            verifier_selectors.list_dry_runs(verifier=verifier), s.DryRunSerializer
        )

    @extend_schema(
        request=None,
        responses={202: s.DryRunSerializer},
        summary="Queue a dry run of the draft against its reference and wrong samples",
        parameters=[
            OpenApiParameter(
                "Location",
                str,
                OpenApiParameter.HEADER,
                response=[202],
                description="The dry run's URL (also `url` in the body): poll it.",
            )
        ],
        description="A judge worker judges it: the answer is 202 with the dry run (status "
        "`pending`) and its `url` (also in `Location`); poll that URL until `status` is "
        "`done`. Asking again while a dry run of the same draft is pending or running "
        "returns that one.",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        verifier = verifier_access.access_own_verifier(user=request.user, verifier_id=pk)
        dry_run = dry_runs.request_dry_run(author=request.user, verifier=verifier)
        body = s.DryRunSerializer(dry_run).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})


class AuthorDryRunDetailView(GenericAPIView):
    @extend_schema(
        responses=s.DryRunSerializer,
        summary="One of my dry runs (poll it until `status` is `done`)",
    )
    def get(self, request: Request, pk: int) -> Response:
        dry_run = verifier_access.access_own_dry_run(user=request.user, dry_run_id=pk)
        return Response(s.DryRunSerializer(dry_run).data)


class AuthorVerifierPublishView(GenericAPIView):
    @extend_schema(
        request=None,
        responses={201: s.VerifierVersionSerializer},
        summary="Publish the draft as a new immutable version (needs a passing dry run)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        verifier = verifier_access.access_own_verifier(user=request.user, verifier_id=pk)
        version = verifier_authoring.publish_verifier(author=request.user, verifier=verifier)
        return Response(s.VerifierVersionSerializer(version).data, status=status.HTTP_201_CREATED)


class AuthorVerifierRetireView(GenericAPIView):
    @extend_schema(
        request=None,
        responses=s.AuthorVerifierSerializer,
        summary="Retire my published verifier: no new submissions; solutions and asks stay "
        "valid (a never-published draft: 409)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        verifier = verifier_access.access_own_verifier(user=request.user, verifier_id=pk)
        verifier = verifier_authoring.retire_verifier(author=request.user, verifier=verifier)
        return Response(_verifier_body(verifier.pk))
