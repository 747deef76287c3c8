"""Bots: agents that choose moves through the game protocol only."""
