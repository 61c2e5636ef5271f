"""A fake Discord for the tests and the benchmarks (a development package: not installed
with the bot). ``fakediscord.model`` is what Discord knows and answers; ``fakediscord.harness``
drives the real discord.py with it in the bot's process, without any network;
``fakediscord.server`` serves it over HTTP in its own process, with Discord's rate limits
(``fakediscord.ratelimit``), and ``fakediscord.remote`` drives the bot against that server;
``fakediscord.poker`` builds this project's bot and plays tables through either."""
