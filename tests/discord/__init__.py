"""The real bot through the real discord.py and the fake Discord (tests/harness.py)."""
