"""The fake Discord's rate limits answer as Discord documents them: a channel's bucket with
its headers, the global 50 per second, and the interaction endpoints outside it."""

from __future__ import annotations

from fakediscord.ratelimit import GLOBAL_PER_SECOND, RateLimits


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_channels_posts_are_5_per_5_s_with_headers_and_a_user_scoped_429():
    clock = Clock()
    limits = RateLimits(clock=clock)
    answers = [limits.check("POST", "/channels/1/messages") for _ in range(5)]
    assert [a.status for a in answers] == [0] * 5
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["4", "3", "2", "1", "0"]
    assert {a.headers["X-RateLimit-Limit"] for a in answers} == {"5"}
    assert len({a.headers["X-RateLimit-Bucket"] for a in answers}) == 1
    clock.now += 2.0
    sixth = limits.check("POST", "/channels/1/messages")
    assert sixth.status == 429 and sixth.headers["X-RateLimit-Scope"] == "user"
    assert sixth.body is not None and sixth.body["global"] is False
    assert sixth.body["retry_after"] == 3.0  # the bucket resets 5 s after its first post
    assert "Via" in sixth.headers  # what tells discord.py the 429 is Discord's own
    assert limits.check("POST", "/channels/2/messages").status == 0  # another channel
    clock.now += 3.0
    assert limits.check("POST", "/channels/1/messages").headers["X-RateLimit-Remaining"] == "4"


def test_the_global_limit_is_50_a_second_and_the_interaction_endpoints_are_outside_it():
    clock = Clock()
    limits = RateLimits(clock=clock)
    for i in range(GLOBAL_PER_SECOND):
        assert limits.check("PATCH", f"/channels/{i}/messages/9").status == 0
        clock.now += 0.01
    over = limits.check("POST", "/users/@me/channels")
    assert over.status == 429 and over.headers["X-RateLimit-Global"] == "true"
    assert over.headers["X-RateLimit-Scope"] == "global"
    assert over.body is not None and over.body["global"] is True
    assert 0 < float(str(over.body["retry_after"])) <= 1.0
    for path in (
        "/interactions/1/tok/callback",
        "/webhooks/2/tok",
        "/webhooks/2/tok/messages/@original",
    ):
        assert limits.check("POST", path).status == 0
    assert limits.counts["global 429"] == 1 and limits.peak == GLOBAL_PER_SECOND
    clock.now += 1.0  # the window moved on
    assert limits.check("POST", "/users/@me/channels").status == 0
