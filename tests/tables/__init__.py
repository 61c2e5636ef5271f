"""The table manager on real databases: steps, timers, restarts, kills, practice, shards."""
