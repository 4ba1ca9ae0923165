"""Models of the api app."""
