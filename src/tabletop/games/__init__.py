"""The rules engines, one package per game; each registers itself on import."""
