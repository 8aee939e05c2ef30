"""Fails while being imported."""

raise RuntimeError("hostile bot failing at import")
