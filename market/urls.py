"""Web pages (server-rendered, htmx for the live parts)."""

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, path

from market.payments import views as payments_views
from market.views import account, author, help, problems, trading

urlpatterns: list[URLPattern | URLResolver] = [
    path("", problems.home, name="home"),
    path("problems/", problems.problem_list, name="problem-list"),
    path("problems/<slug:slug>/", problems.problem_detail, name="problem-detail"),
    path(
        "problems/<slug:slug>/my-solutions/",
        problems.my_solutions_fragment,
        name="problem-my-solutions",
    ),
    path("problems/<slug:slug>/book/", problems.book_fragment, name="problem-book"),
    path("problems/<slug:slug>/submit/", trading.submit, name="problem-submit"),
    path("problems/<slug:slug>/bid/", trading.bid, name="problem-bid"),
    path("solutions/<int:solution_id>/sell/", trading.sell, name="solution-sell"),
    path("orders/<int:order_id>/cancel/", trading.cancel, name="order-cancel"),
    path("help/verifiers/", help.verifiers_guide, name="help-verifiers"),
    path("favicon.ico", help.favicon, name="favicon"),
    path("account/", account.account, name="account"),
    path("account/earnings/", payments_views.earnings, name="account-earnings"),
    path("signup/", account.signup, name="signup"),
    # Password guessing is bounded by django-axes (market/login_guard.py), on every path.
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("author/", author.author_home, name="author-home"),
    path("author/problems/new/", author.problem_new, name="author-problem-new"),
    path("author/problems/<int:problem_id>/", author.problem_edit, name="author-problem"),
    path(
        "author/problems/<int:problem_id>/verifiers/new/",
        author.verifier_new,
        name="author-verifier-new",
    ),
    path("author/verifiers/<int:verifier_id>/", author.verifier_edit, name="author-verifier"),
    path(
        "author/verifiers/<int:verifier_id>/dry-run/",
        author.verifier_dry_run,
        name="author-verifier-dry-run",
    ),
    path(
        "author/verifiers/<int:verifier_id>/dry-run/panel/",
        author.verifier_dry_run_panel,
        name="author-verifier-dry-run-panel",
    ),
    path(
        "author/verifiers/<int:verifier_id>/publish/",
        author.verifier_publish,
        name="author-verifier-publish",
    ),
    path(
        "author/problems/<int:problem_id>/publish/",
        author.problem_publish,
        name="author-problem-publish",
    ),
]
