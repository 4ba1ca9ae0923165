"""Writes of the payments app, by topic. Import from the topic modules."""
