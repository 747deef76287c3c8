"""Game-agnostic core: protocol, outcome, errors, registry and records (standard library only)."""
