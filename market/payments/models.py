"""Models of the payments app."""
