"""Protocols of ohkwak (being written)."""
