"""REST API of the payments app (mounted at /payments/api/; see urls.py)."""
