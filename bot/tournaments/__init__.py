"""Sit & Go tournaments: structures, payouts, the level clock and the lifecycle service."""
