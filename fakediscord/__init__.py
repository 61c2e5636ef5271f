"""A fake Discord for the tests and the benchmarks (a development package: not installed
with the bot). ``fakediscord.harness`` drives the real discord.py without any network;
``fakediscord.poker`` builds this project's bot on it and plays tables through it."""
