"""Neutral building blocks that every app may import (and that import none of the apps)."""
