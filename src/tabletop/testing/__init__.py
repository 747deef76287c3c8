"""Test helpers every game uses: the protocol conformance check and golden playthroughs."""
