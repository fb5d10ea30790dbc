"""Protocols of zhangtong2019 (being written)."""
