"""Unknown API URLs answer in the API's error format, whatever DEBUG says."""

import pytest


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
def test_unknown_api_url_is_a_json_404(client, settings, debug):
    settings.DEBUG = debug
    response = client.get("/api/v1/no-such-endpoint/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "error": {"code": "not-found", "message": "no such endpoint", "fields": {}}
    }


@pytest.mark.django_db
def test_unknown_api_url_answers_a_post_without_csrf_token_in_json():
    from django.test import Client

    response = Client(enforce_csrf_checks=True).patch("/api/v1/author/problems/9" * 3 + "/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not-found"
