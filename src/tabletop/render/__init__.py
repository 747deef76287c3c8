"""Shared rendering helpers: the SVG builder and colour themes."""
