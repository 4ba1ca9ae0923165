"""The lean judge."""
