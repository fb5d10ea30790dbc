"""Protocols of niehuang (being written)."""
