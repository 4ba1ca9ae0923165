"""Writes of the verifiers app (the publishing workflow)."""
