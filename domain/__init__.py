"""Neutral building blocks that every app may import (and that import none of the apps):
the base errors (errors.py) and model instances from raw statements' rows (rows.py)."""
