"""OPTIONS answers without introspecting serializers.

DRF's ``SimpleMetadata`` describes a view's POST/PUT input by calling ``view.get_serializer()``,
which these views (explicit serializers per method, no ``serializer_class``) do not have: an
OPTIONS request was a 500. The OpenAPI schema at /api/schema/ is where inputs are described.
"""

from __future__ import annotations

from typing import Any

from rest_framework.metadata import BaseMetadata
from rest_framework.request import Request


class Metadata(BaseMetadata):
    def determine_metadata(self, request: Request, view: Any) -> dict[str, Any]:
        return {
            "name": view.get_view_name(),
            "description": view.get_view_description(),
            "renders": [renderer.media_type for renderer in view.renderer_classes],
            "parses": [parser.media_type for parser in view.parser_classes],
            "schema": "/api/schema/",
        }
