"""Protocols of guo2013 (being written)."""
