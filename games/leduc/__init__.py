"""Leduc hold'em."""
