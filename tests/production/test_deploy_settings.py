"""The production settings (DEBUG off) pass `check --deploy` and send the security headers."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
)


def production_env(**overrides: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "STRIPE_", "PYTEST", "COV_"))
    }
    env.update(
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="market.example",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    env.update(overrides)
    return env


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_is_clean_with_production_settings():
    result = _run("manage.py", "check", "--deploy", "--fail-level", "WARNING", env=production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_settings_refuse_to_start_without_a_secret_key():
    env = production_env()
    del env["DJANGO_SECRET_KEY"]
    result = _run("manage.py", "check", env=env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_production_settings_refuse_to_start_without_redis():
    # Rate limits and lockouts must be shared by every web process.
    env = production_env()
    del env["REDIS_URL"]
    result = _run("manage.py", "check", env=env)
    assert result.returncode != 0
    assert "REDIS_URL is required when DJANGO_DEBUG=0" in result.stderr


def test_settings_refuse_a_database_that_is_not_postgresql(tmp_path):
    # SQLite left the product (issue 26): the engine and the ledger's guards are PL/pgSQL.
    env = production_env(DATABASE_URL=f"sqlite:///{tmp_path / 'market.sqlite3'}")
    result = _run("manage.py", "check", env=env)
    assert result.returncode != 0
    assert "DATABASE_URL must name a PostgreSQL database" in result.stderr
    assert not (tmp_path / "market.sqlite3").exists()


PRINT_SETTINGS = """
import django, json
django.setup()
from django.conf import settings as s
print(json.dumps({
    "debug": s.DEBUG,
    "ssl_redirect": s.SECURE_SSL_REDIRECT,
    "proxy_header": list(s.SECURE_PROXY_SSL_HEADER or []),
    "hsts": s.SECURE_HSTS_SECONDS,
    "session_secure": s.SESSION_COOKIE_SECURE,
    "csrf_secure": s.CSRF_COOKIE_SECURE,
    "session_httponly": s.SESSION_COOKIE_HTTPONLY,
    "csrf_httponly": s.CSRF_COOKIE_HTTPONLY,
    "storage": s.STORAGES["staticfiles"]["BACKEND"],
    "backends": s.AUTHENTICATION_BACKENDS,
}))
"""


def test_without_debug_the_tls_settings_are_on_by_default():
    import json

    result = _run("-c", PRINT_SETTINGS, env=production_env())
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "debug": False,
        "ssl_redirect": True,
        "proxy_header": ["HTTP_X_FORWARDED_PROTO", "https"],
        "hsts": 31536000,
        "session_secure": True,
        "csrf_secure": True,
        "session_httponly": True,
        "csrf_httponly": True,
        "storage": "whitenoise.storage.CompressedManifestStaticFilesStorage",
        "backends": [
            "market.login_guard.LoginGuardBackend",
            "django.contrib.auth.backends.ModelBackend",
        ],
    }


def directives(policy: str) -> set[str]:
    return {part.strip() for part in policy.split(";")}


def test_pages_and_the_api_send_the_content_security_policy(db):
    client = Client()
    for url in ("/", "/problems/", "/api/v1/problems/", "/api/docs/", "/no-such-page/"):
        response = client.get(url)
        assert directives(response["Content-Security-Policy"]) == directives(CSP), url
        assert response["X-Frame-Options"] == "DENY"
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["Referrer-Policy"] == "same-origin"


def test_the_api_docs_load_their_script_from_a_file(db):
    body = Client().get("/api/docs/").content.decode()
    assert "<style" not in body
    assert "<script>" not in body
    assert '<script src="/api/docs/?script="></script>' in body
    script = Client().get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()
