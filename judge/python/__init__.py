"""The python judge."""
