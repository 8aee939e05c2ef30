"""Kuhn poker."""
