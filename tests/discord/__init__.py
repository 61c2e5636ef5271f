"""The real bot through the real discord.py and the fake Discord (fakediscord/harness.py)."""
