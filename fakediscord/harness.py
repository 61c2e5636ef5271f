"""End-to-end harness that drives the *real* discord.py the way the gateway does.

Nothing here talks to Discord.  The harness

* logs the bot in through ``Client.login`` (so ``_async_setup_hook`` and ``setup_hook`` run exactly
  as in production) with ``bot.http.request`` / ``bot.http.get_from_cdn`` replaced *on the
  instance* by a recorder that answers like the Discord REST API;
* replaces ``AsyncWebhookAdapter.request`` (the path every interaction response, followup and
  ``@original`` edit goes through) with a recorder that answers like Discord, including the
  ``with_response=1`` callback body discord.py uses to learn the response message id;
* feeds READY / GUILD_CREATE / INTERACTION_CREATE payloads into ``bot._connection.parsers``;
* keeps an in-memory model of every message (per channel, with edit history) so tests can look
  at the *current* state of e.g. the table message after a few button presses;
* turns everything discord.py would only log (``on_error``, ``View.on_error``,
  ``CommandTree.on_error``, unretrieved task exceptions, ERROR records of the ``discord``/project
  loggers), unknown API routes and real network attempts into test failures.

Usage::

    ALICE, BOB = users(2)
    async with DiscordHarness(make_bot(), dms_closed={int(BOB["id"])}) as h:
        await h.connect(GUILD_ID, [TABLE_CHANNEL], [ALICE, make_member(BOB, nick="Bobby")])
        reply = await h.slash(ALICE, TABLE_CHANNEL, "poker start", stakes=10)
        assert not reply.ephemeral
        table = h.messages(TABLE_CHANNEL)[-1]
        await h.click(BOB, table, "poker:join")
        assert "Bob" in h.message(table.id).content
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import copy
import datetime
import io
import json
import logging
import random
import re
import socket
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
import yarl
from discord import app_commands, utils
from discord.ext import commands
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter
from multidict import CIMultiDict

__all__ = [
    "APPLICATION_ID",
    "BOT_USER",
    "DiscordHarness",
    "Fault",
    "HarnessError",
    "Msg",
    "Reply",
    "Sent",
    "make_member",
    "make_user",
    "users",
]

API_BASE = Route.BASE
TOKEN = "harness.fake.token"
APPLICATION_ID = 1100000000000000001
DEFAULT_GUILD_ID = 1200000000000000001

#: Discord's interaction deadlines: the initial response within 3 s (later: 10062 Unknown
#: interaction), then the token for followups and edits for 15 minutes (later: 50027)
INITIAL_RESPONSE_WITHIN = 3.0
TOKEN_LIFETIME = 15 * 60.0

EPHEMERAL = 1 << 6
LOADING = 1 << 7
SUPPRESS_EMBEDS = 1 << 2
COMPONENTS_V2 = 1 << 15

# A 1x1 transparent PNG, served for CDN avatar/asset URLs.
_PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082"
)

MEMBER_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    read_message_history=True,
    embed_links=True,
    attach_files=True,
    add_reactions=True,
    use_external_emojis=True,
    use_application_commands=True,
)
BOT_PERMISSIONS = discord.Permissions(
    MEMBER_PERMISSIONS.value
    | discord.Permissions(manage_messages=True, create_public_threads=True).value
)


# --------------------------------------------------------------------------------------------
# fixtures: users and members
# --------------------------------------------------------------------------------------------


def make_user(
    user_id: int, username: str, global_name: str | None = None, *, bot: bool = False
) -> dict[str, Any]:
    """A Discord user object as the API sends it."""
    return {
        "id": str(user_id),
        "username": username,
        "global_name": global_name,
        "discriminator": "0",
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
    }


def make_member(
    user: Mapping[str, Any],
    *,
    roles: Iterable[int] = (),
    nick: str | None = None,
    permissions: discord.Permissions | int | None = None,
) -> dict[str, Any]:
    """A guild member object (with nested ``user``) as GUILD_CREATE / interactions send it.

    ``permissions`` is harness metadata: the member's computed channel permissions that are put
    into interaction payloads (default: an ordinary member).
    """
    member: dict[str, Any] = {
        "user": dict(user),
        "roles": [str(r) for r in roles],
        "nick": nick,
        "avatar": None,
        "joined_at": "2024-01-01T00:00:00.000000+00:00",
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "pending": False,
        "flags": 0,
        "communication_disabled_until": None,
    }
    if permissions is not None:
        value = permissions.value if isinstance(permissions, discord.Permissions) else permissions
        member["_harness_permissions"] = int(value)
    return member


BOT_USER = make_user(APPLICATION_ID, "LowballBot", bot=True) | {
    "verified": True,
    "flags": 0,
    "mfa_enabled": False,
}

_NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"]


def users(n: int = 6) -> list[dict[str, Any]]:
    """``n`` distinct human users: alice, bob, carol, ... (ids 1300000000000000001...)."""
    out = []
    for i in range(n):
        name = _NAMES[i] if i < len(_NAMES) else f"player{i + 1}"
        out.append(make_user(1300000000000000001 + i, name, name.capitalize()))
    return out


# --------------------------------------------------------------------------------------------
# records
# --------------------------------------------------------------------------------------------


class HarnessError(AssertionError):
    """A failure detected by the harness (bot error, unknown route, network attempt, ...)."""

    def __init__(self, message: str, *, errors: Iterable[str] = (), reply: Reply | None = None):
        errors = list(errors)
        if errors:
            message = message + "\n\n" + "\n\n".join(errors)
        super().__init__(message)
        self.errors = errors
        self.reply = reply


class _FakeResponse:
    """Enough of ``aiohttp.ClientResponse`` for ``discord.HTTPException``."""

    def __init__(self, status: int, reason: str):
        self.status = status
        self.reason = reason
        self.headers: dict[str, str] = {}


def _http_error(status: int, code: int, message: str, errors: dict | None = None) -> Exception:
    reason = {400: "Bad Request", 403: "Forbidden", 404: "Not Found"}.get(status, "Error")
    body: dict[str, Any] = {"code": code, "message": message}
    if errors:
        body["errors"] = errors
    cls = {403: discord.Forbidden, 404: discord.NotFound}.get(status, discord.HTTPException)
    exc = cls(_FakeResponse(status, reason), body)
    exc._harness_body = body  # type: ignore[attr-defined]  # what Discord's REST answer carries
    return exc


@dataclass
class Fault:
    """An injected failure: the next ``times`` requests whose ``"METHOD /path"`` matches the
    regular expression ``route`` are answered with ``status`` (and Discord error ``code``).

    * ``status=429`` answers like Discord's rate limiter (``retry_after`` seconds, a ``Via``
      header), so discord.py's own 429 handling sleeps and retries;
    * ``status`` 500/502/504 are retried by discord.py itself (after 1 s, 3 s, ...); 503 is not;
    * ``timeout=True`` raises ``asyncio.TimeoutError`` as aiohttp does when a request times out;
    * ``status=400, code=30046`` is "maximum number of edits to messages older than 1 hour".

    Faults apply to REST requests (``bot.http``); interaction responses only get latency.
    """

    route: str
    status: int = 500
    code: int = 0
    message: str = "injected by the harness"
    retry_after: float = 0.0
    times: int = 1
    timeout: bool = False
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        return self.hits < self.times and re.search(self.route, f"{method} {path}") is not None


#: the parsed body and files of the REST request discord.py is making in this task
_REQUEST: contextvars.ContextVar[tuple[Any, list[tuple[str, bytes]], Any]] = contextvars.ContextVar(
    "harness_request"
)


class _FakeHTTPResponse:
    """What discord.py reads of an ``aiohttp.ClientResponse``."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str] | None = None):
        self.status = status
        self.reason = {200: "OK", 204: "No Content", 429: "Too Many Requests"}.get(status, "Error")
        self.headers: CIMultiDict[str] = CIMultiDict(headers or {})
        self._text = "" if body is None else json.dumps(body)
        if body is not None:
            self.headers["content-type"] = "application/json"

    async def text(self, encoding: str = "utf-8") -> str:
        return self._text


class _FakeRequest:
    def __init__(self, harness: DiscordHarness, method: str, url: str, params: Any):
        self.harness, self.method, self.url, self.params = harness, method, url, params

    async def __aenter__(self) -> _FakeHTTPResponse:
        return await _traced(
            self.harness,
            self.method,
            self.url,
            lambda: self.harness._serve_http(self.method, self.url, self.params),
        )

    async def __aexit__(self, *exc: Any) -> None:
        return None


class _FakeSession:
    """Stands in for discord.py's ``aiohttp.ClientSession``: every request discord.py makes,
    including its own retries after a 429 or a 5xx, is answered by the harness."""

    closed = False
    closed_at: float | None = None

    def __init__(self, harness: DiscordHarness):
        self.harness = harness

    def request(self, method: str, url: str, **kwargs: Any) -> _FakeRequest:
        return _FakeRequest(self.harness, method, str(url), kwargs.get("params"))

    async def close(self) -> None:
        self.closed, self.closed_at = True, time.monotonic()


async def _traced(harness: DiscordHarness, method: str, url: str, answer: Any) -> Any:
    """Send aiohttp's request-start and request-end trace signals around ``answer()``, as the
    real session does for the bot's ``http_trace`` (discord.py's ``Client(http_trace=...)``)."""
    trace = getattr(harness.bot.http, "http_trace", None)
    if trace is None:
        return await answer()
    if not trace.on_request_start.frozen:
        trace.freeze()
    tracer = aiohttp.tracing.Trace(harness._session, trace, trace.trace_config_ctx())  # type: ignore[arg-type]
    target = yarl.URL(url)
    await tracer.send_request_start(method, target, CIMultiDict())
    try:
        response = await answer()
    except discord.HTTPException as exc:  # the webhook adapter's answer: an error raised
        status = _FakeHTTPResponse(exc.status, None)
        await tracer.send_request_end(method, target, CIMultiDict(), status)  # type: ignore[arg-type]
        raise
    shown = response if isinstance(response, _FakeHTTPResponse) else _FakeHTTPResponse(200, None)
    await tracer.send_request_end(method, target, CIMultiDict(), shown)  # type: ignore[arg-type]
    return response


@dataclass
class Sent:
    """One outbound request the bot made (REST or webhook/interaction)."""

    seq: int
    transport: str  # "http" or "webhook"
    method: str
    path: str  # formatted path without the API base, e.g. /channels/1/messages
    json: Any
    files: list[tuple[str, bytes]]
    params: dict[str, Any] | None
    interaction_token: str | None = None
    #: "public" (others can see it), "ephemeral" (only the invoking user), "dm", or "none"
    visibility: str = "none"
    channel_id: int | None = None
    message_id: int | None = None
    response: Any = None
    error: BaseException | None = None
    #: harness clock (time.monotonic) when the bot made the request, and when it was answered
    at: float = field(default_factory=time.monotonic)
    done_at: float | None = None
    #: the injected fault that answered this request, if any
    fault: Fault | None = None

    @property
    def file_names(self) -> list[str]:
        return [name for name, _ in self.files]

    @property
    def text(self) -> str:
        """Payload JSON plus file names, for substring leak checks."""
        return (
            json.dumps(self.json, ensure_ascii=False, sort_keys=True)
            + " "
            + " ".join(self.file_names)
        )

    def __repr__(self) -> str:
        return f"<Sent #{self.seq} {self.method} {self.path} {self.visibility}>"


def _walk_components(components: Iterable[Mapping[str, Any]]) -> Iterable[dict[str, Any]]:
    for comp in components or ():
        yield comp  # type: ignore[misc]
        yield from _walk_components(comp.get("components") or ())
        for key in ("accessory", "component"):
            if isinstance(comp.get(key), Mapping):
                yield from _walk_components([comp[key]])


class Msg:
    """The harness' view of one Discord message (current state + edit history).

    ``packed`` (the harness's ``keep_payloads=False``, for private answers and DMs): the
    payload is kept as JSON text, which the garbage collector never walks, decoded on each
    read."""

    __slots__ = ("_payload", "_json", "id", "channel_id", "flags", "visible_to",
                 "interaction_token", "_history", "deleted", "files")  # fmt: skip

    def __init__(
        self,
        payload: dict[str, Any],
        *,
        visible_to: int | None,
        interaction: str | None,
        packed: bool = False,
    ):
        self._payload: dict[str, Any] | None = None
        self._json: str | None = "" if packed else None
        self.payload = payload
        self.visible_to = visible_to  # user id for ephemeral messages
        self.interaction_token = interaction
        self._history: list[dict[str, Any]] | None = None  # made at the first edit kept
        self.deleted = False
        self.files: dict[str, bytes] = {}  # attachment filename -> bytes (all versions)

    def frozen(self) -> tuple[Any, ...] | Msg:
        """What the harness keeps: a packed message as a plain tuple of text, numbers and a
        dict of bytes, which the garbage collector stops walking; others as they are."""
        if self._json is None:
            return self
        files = tuple(self.files.items())  # a dict, even empty, would keep the tuple walked
        return (self._json, self.visible_to, self.interaction_token, self.deleted, files)

    @classmethod
    def thawed(cls, kept: tuple[Any, ...] | Msg) -> Msg:
        if isinstance(kept, Msg):
            return kept
        text, visible_to, token, deleted, files = kept
        msg = cls(json.loads(text), visible_to=visible_to, interaction=token, packed=True)
        msg.deleted, msg.files = deleted, dict(files)
        return msg

    @property
    def history(self) -> list[dict[str, Any]]:
        """The payloads this message had before each edit (kept with ``keep_payloads``)."""
        return self._history if self._history is not None else []

    @property
    def payload(self) -> dict[str, Any]:
        if self._json is not None:
            return json.loads(self._json)  # type: ignore[no-any-return]
        assert self._payload is not None
        return self._payload

    @payload.setter
    def payload(self, value: dict[str, Any]) -> None:
        if self._json is not None:
            self._json = json.dumps(value)
        else:
            self._payload = value
        self.id = int(value["id"])
        self.channel_id = int(value["channel_id"])
        self.flags = int(value.get("flags") or 0)

    content = property(lambda self: self.payload.get("content") or "")
    embeds = property(lambda self: self.payload.get("embeds") or [])
    components = property(lambda self: self.payload.get("components") or [])
    ephemeral = property(lambda self: bool(self.flags & EPHEMERAL))
    loading = property(lambda self: bool(self.flags & LOADING))

    @property
    def attachments(self) -> list[str]:
        return [a["filename"] for a in self.payload.get("attachments") or []]

    def attachment_bytes(self, filename: str) -> bytes:
        return self.files[filename]

    def all_components(self) -> list[dict[str, Any]]:
        return list(_walk_components(self.components))

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.all_components() if "custom_id" in c]

    def component(self, custom_id: str) -> dict[str, Any] | None:
        return next((c for c in self.all_components() if c.get("custom_id") == custom_id), None)

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.all_components() if c.get("type") == 2]

    def custom_id_for(self, label: str) -> str:
        """custom_id of the button with this label."""
        for c in self.buttons():
            if c.get("label") == label and "custom_id" in c:
                return c["custom_id"]
        labels = [c.get("label") for c in self.buttons()]
        raise HarnessError(f"no button labelled {label!r} on message {self.id}; have {labels}")

    @property
    def text(self) -> str:
        """Content, embeds, component labels and file names as one string."""
        parts = [self.content, json.dumps(self.embeds, ensure_ascii=False)]
        for comp in self.all_components():
            for key in ("label", "placeholder", "content"):
                if comp.get(key):
                    parts.append(str(comp[key]))
            for opt in comp.get("options") or ():
                parts.append(str(opt.get("label")))
        parts.extend(self.attachments)
        return "\n".join(parts)

    def as_discord(self) -> dict[str, Any]:
        return self.payload if self._json is not None else copy.deepcopy(self.payload)

    def __repr__(self) -> str:
        flags = " ephemeral" if self.ephemeral else ""
        return f"<Msg id={self.id} channel={self.channel_id}{flags} content={self.content[:40]!r}>"


class Reply:
    """Everything recorded for one interaction."""

    __slots__ = ("_h", "interaction_id", "token", "kind", "user_id", "channel_id", "guild_id",
                 "component_message_id", "callback_type", "_callback_json", "original_id",
                 "followup_ids", "choices", "modal", "sent", "dispatched_at", "ack_latency",
                 "first_followup_at", "_first_followup_pending")  # fmt: skip

    def __init__(self, harness: DiscordHarness, *, interaction_id: int, token: str, kind: int,
                 user_id: int, channel_id: int, guild_id: int | None,
                 component_message_id: int | None = None):  # fmt: skip
        self._h = harness
        self.interaction_id = interaction_id
        self.token = token
        self.kind = kind  # interaction type: 2 command, 3 component, 4 autocomplete, 5 modal
        self.user_id = user_id
        self.channel_id = channel_id
        self.guild_id = guild_id
        self.component_message_id = component_message_id
        self.callback_type: int | None = None
        self._callback_json: str | None = None  # text: never walked by the collector
        self.original_id: int | None = None
        self.followup_ids: tuple[int, ...] = ()
        self.choices: list[dict[str, Any]] | None = None
        self.modal: dict[str, Any] | None = None
        #: every request made while this interaction was handled (by ``slash``/``click``)
        self.sent: Sequence[Sent] = ()
        self.dispatched_at = time.monotonic()
        self.ack_latency: float | None = None
        #: harness clock when the bot first posted a followup with this interaction's token
        self.first_followup_at: float | None = None
        self._first_followup_pending = False

    # -- what Discord shows -------------------------------------------------------------------
    @property
    def requests(self) -> list[Sent]:
        """Requests made with this interaction's token (callback, followups, @original)."""
        return [s for s in self._h.sent if s.interaction_token == self.token]

    @property
    def message(self) -> Msg | None:
        """Current state of the original response message (for updates: the clicked message)."""
        return self._h.message(self.original_id) if self.original_id else None

    @property
    def followups(self) -> list[Msg]:
        return [self._h.message(i) for i in self.followup_ids]

    @property
    def answer(self) -> Msg | None:
        """What the user sees as the answer: the original response; for an answer that
        updated the clicked message (callback 6 or 7), their first private followup."""
        if self.callback_type in (6, 7):
            for message_id in self.followup_ids:
                followup = self._h.message(message_id)
                if followup.ephemeral:
                    return followup
        return self.message

    @property
    def updated(self) -> bool:
        """The answer edited the clicked message (callback 7, or 6 and then ``@original``)."""
        return self.callback_type in (6, 7)

    def frozen(self) -> tuple[Any, ...]:
        """Everything but the harness, as a tuple (the harness's load mode keeps this: plain
        numbers and text, which the garbage collector stops walking)."""
        return tuple(getattr(self, name) for name in Reply.__slots__[1:])

    @classmethod
    def thawed(cls, harness: DiscordHarness, kept: tuple[Any, ...] | Reply) -> Reply:
        if isinstance(kept, Reply):
            return kept
        reply = cls.__new__(cls)
        reply._h = harness
        for name, value in zip(Reply.__slots__[1:], kept, strict=True):
            setattr(reply, name, value)
        return reply

    @property
    def callback_data(self) -> dict[str, Any] | None:
        """The data of the bot's initial response (a copy)."""
        return None if self._callback_json is None else json.loads(self._callback_json)

    @property
    def deferred(self) -> bool:
        return self.callback_type in (5, 6)

    def _field(self, name: str, default: Any) -> Any:
        msg = self.answer
        if msg is not None:
            return getattr(msg, name)
        data = self.callback_data or {}
        return data.get(name, default) or default

    content = property(lambda self: self._field("content", ""))
    embeds = property(lambda self: self._field("embeds", []))
    components = property(lambda self: self._field("components", []))

    @property
    def flags(self) -> int:
        msg = self.answer
        if msg is not None:
            return msg.flags
        return int((self.callback_data or {}).get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def attachments(self) -> list[str]:
        msg = self.answer
        return msg.attachments if msg is not None else []

    def __repr__(self) -> str:
        return (
            f"<Reply interaction={self.interaction_id} callback={self.callback_type} "
            f"ephemeral={self.ephemeral} content={self.content[:40]!r} "
            f"followups={len(self.followup_ids)}>"
        )


# --------------------------------------------------------------------------------------------
# message validation (the limits Discord enforces with 400 Invalid Form Body)
# --------------------------------------------------------------------------------------------


def _validate_message(p: Mapping[str, Any]) -> None:
    errors: dict[str, Any] = {}

    def err(path: str, msg: str) -> None:
        errors.setdefault(path, {"_errors": []})["_errors"].append(
            {"code": "HARNESS_INVALID", "message": msg}
        )

    flags = int(p.get("flags") or 0)
    content = p.get("content") or ""
    embeds = p.get("embeds") or []
    components = p.get("components") or []
    if len(content) > 2000:
        err("content", f"Must be 2000 or fewer in length (got {len(content)}).")
    if len(embeds) > 10:
        err("embeds", "Must be 10 or fewer in length.")
    total = 0
    for i, e in enumerate(embeds):
        for key, limit in (("title", 256), ("description", 4096)):
            total += len(e.get(key) or "")
            if len(e.get(key) or "") > limit:
                err(f"embeds.{i}.{key}", f"Must be {limit} or fewer in length.")
        if len(e.get("fields") or []) > 25:
            err(f"embeds.{i}.fields", "Must be 25 or fewer in length.")
        for j, f in enumerate(e.get("fields") or []):
            name, value = f.get("name") or "", f.get("value") or ""
            total += len(name) + len(value)
            if not name or len(name) > 256:
                err(f"embeds.{i}.fields.{j}.name", "Must be between 1 and 256 in length.")
            if not value or len(value) > 1024:
                err(f"embeds.{i}.fields.{j}.value", "Must be between 1 and 1024 in length.")
        footer = (e.get("footer") or {}).get("text") or ""
        author = (e.get("author") or {}).get("name") or ""
        total += len(footer) + len(author)
        if len(footer) > 2048:
            err(f"embeds.{i}.footer.text", "Must be 2048 or fewer in length.")
        if len(author) > 256:
            err(f"embeds.{i}.author.name", "Must be 256 or fewer in length.")
    if total > 6000:
        err("embeds", "Embed size exceeds maximum size of 6000")
    seen: set[str] = set()
    for comp in _walk_components(components):
        cid = comp.get("custom_id")
        if cid is not None:
            if len(cid) > 100:
                err("components", f"custom_id {cid!r} longer than 100")
            if cid in seen:
                err("components", f"Component custom id cannot be duplicated: {cid!r}")
            seen.add(cid)
        if comp.get("type") == 2:
            if comp.get("style") == 5:
                if not comp.get("url"):
                    err("components", "link button without url")
            elif comp.get("style") != 6 and not cid:
                err("components", "button without custom_id")
            if len(comp.get("label") or "") > 80:
                err("components", f"button label longer than 80: {comp.get('label')!r}")
        if comp.get("type") == 3:
            opts = comp.get("options") or []
            if not 1 <= len(opts) <= 25:
                err("components", f"select {cid!r} must have 1..25 options")
            for o in opts:
                if len(o.get("label") or "") > 100 or len(str(o.get("value") or "")) > 100:
                    err("components", f"select option too long: {o!r}")
    if flags & COMPONENTS_V2:
        if content or embeds:
            err("content", "content/embeds cannot be used with IS_COMPONENTS_V2")
    else:
        if len(components) > 5:
            err("components", "Must be 5 or fewer in length.")
        for i, row in enumerate(components):
            if row.get("type") != 1:
                err(f"components.{i}", "top-level components must be action rows")
                continue
            kids = row.get("components") or []
            selects = [c for c in kids if c.get("type") in (3, 5, 6, 7, 8)]
            if not kids or len(kids) > 5 or (selects and len(kids) != 1):
                err(f"components.{i}", "action row needs 1..5 buttons or exactly one select")
    if len(p.get("attachments") or []) > 10:
        err("attachments", "Must be 10 or fewer in length.")
    if errors:
        raise _http_error(400, 50035, "Invalid Form Body", errors)
    if not (content or embeds or components or p.get("attachments") or p.get("poll")) and not (
        flags & LOADING
    ):
        raise _http_error(400, 50006, "Cannot send an empty message")


# --------------------------------------------------------------------------------------------
# task idleness: what "the bot finished handling this" means
# --------------------------------------------------------------------------------------------


def _idle_codes() -> set[Any]:
    codes = {
        asyncio.tasks.wait_for.__code__,
        asyncio.tasks._wait.__code__,  # type: ignore[attr-defined]
        asyncio.Event.wait.__code__,
        asyncio.Condition.wait.__code__,
        asyncio.Lock.acquire.__code__,
        asyncio.Semaphore.acquire.__code__,
        asyncio.Queue.get.__code__,
        asyncio.Queue.put.__code__,
        asyncio.Queue.join.__code__,
    }
    with contextlib.suppress(AttributeError):
        codes.add(discord.ui.view.BaseView.wait.__code__)
    return codes


_IDLE_CODES = _idle_codes()


def _coro_chain(task: asyncio.Task) -> list[Any]:
    chain = []
    obj: Any = task.get_coro()
    while obj is not None and (hasattr(obj, "cr_frame") or hasattr(obj, "gi_frame")):
        chain.append(obj)
        obj = getattr(obj, "cr_await", None) or getattr(obj, "gi_yieldfrom", None)
    return chain


def _code_of(obj: Any) -> Any:
    return getattr(obj, "cr_code", None) or getattr(obj, "gi_code", None)


# --------------------------------------------------------------------------------------------
# the harness
# --------------------------------------------------------------------------------------------


class _CollectingHandler(logging.Handler):
    def __init__(self, harness: DiscordHarness):
        super().__init__(level=logging.ERROR)
        self.harness = harness

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        self.harness._record_error(f"logged by {record.name}: {record.getMessage()}", exc)


class _FakeGateway:
    """Stands in for ``bot.ws`` (``DiscordWebSocket``) after READY."""

    def __init__(self, harness: DiscordHarness):
        self._harness = harness
        self.latency = 0.0
        self.open = True  # until the bot closes it
        self.closed_at: float | None = None
        self.shard_id = None

    def is_ratelimited(self) -> bool:
        return False

    async def close(self, code: int = 1000) -> None:
        self.open = False
        self.closed_at = time.monotonic()

    async def change_presence(self, *, activity=None, status=None, since=0.0) -> None:
        self._harness.presence.append({"activity": activity, "status": status})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        self._harness._record_error(f"bot used unsupported gateway feature ws.{name}")
        raise AttributeError(f"harness gateway does not support {name!r}")


_ACTIVE: list[DiscordHarness] = []


class DiscordHarness:
    """Async context manager driving a ``commands.Bot`` without any network.

    Parameters
    ----------
    bot:
        A fresh, never started ``commands.Bot``.
    dms_closed:
        User ids whose DMs are closed (sending to them raises ``Forbidden`` 50007).
    settle_timeout:
        Seconds to wait for the bot to become idle after an event before failing.
    error_loggers:
        Logger names whose ERROR records become test failures.
    short_timer:
        Sleeps shorter than this many seconds count as "still working" when settling; longer
        ones (turn timers, view timeouts) count as idle.
    auto_sync:
        If the bot did not sync its command tree during setup, sync it globally once (like a
        deploy step) so that the schema used to build slash payloads exists.
    latency:
        Seconds every request (REST and interaction responses) takes before Discord answers it:
        a number, or ``(low, high)`` for a uniform random delay drawn from ``latency_seed``.
        Discord applies the request when it answers. Change it any time with ``h.latency = ...``.
    faults:
        Injected failures (see ``Fault``); add more any time with ``h.fail(...)``.
    keep_payloads:
        False (for load, e.g. bench/discord.py): requests are not kept (``sent`` stays
        empty; ``sent_log`` has a plain tuple per request), messages without their edit
        history, private answers and DMs as JSON text, and each interaction's answer
        likewise, so the harness adds little to the heap the garbage collector walks in the
        bot's process.

    REST requests go through discord.py's real ``HTTPClient.request`` (its rate-limit buckets,
    429 handling and 5xx retries) with a stand-in for its aiohttp session. The harness sends no
    rate-limit headers, so discord.py keeps one request in flight per bucket.
    """

    def __init__(
        self,
        bot: commands.Bot,
        *,
        dms_closed: Iterable[int] = (),
        settle_timeout: float = 10.0,
        error_loggers: Iterable[str] = ("discord", "bot", "cogs"),
        auto_sync: bool = True,
        short_timer: float = 1.0,
        latency: float | tuple[float, float] = 0.0,
        latency_seed: int = 0,
        faults: Iterable[Fault] = (),
        keep_payloads: bool = True,
    ):
        self.bot = bot
        self.keep_payloads = keep_payloads
        self.latency = latency
        self._latency_rng = random.Random(latency_seed)
        self.faults: list[Fault] = list(faults)
        self._session = _FakeSession(self)
        self.short_timer = short_timer
        self.settle_timeout = settle_timeout
        self.auto_sync = auto_sync
        self.error_loggers = tuple(error_loggers)
        self.dms_closed: set[int] = {int(u) for u in dms_closed}

        #: every request the bot made (with ``keep_payloads=False``: none, see ``sent_log``)
        self.sent: list[Sent] = []
        #: with ``keep_payloads=False``: (transport, method, path, at) of every request
        self.sent_log: list[tuple[str, str, str, float]] = []
        self.requests = 0  # how many requests the bot made
        self.errors: list[str] = []
        self.presence: list[dict[str, Any]] = []
        #: scope (None = global, else guild id) -> the command JSON the bot PUT
        self.synced: dict[int | None, list[dict[str, Any]]] = {}
        self._synced_ids: dict[int | None, list[dict[str, Any]]] = {}

        #: message id -> Msg, or a packed one's ``Msg.frozen()`` (read with ``message()``)
        self._msgs: dict[int, Msg | tuple[Any, ...]] = {}
        self._channel_msgs: dict[int, list[int]] = {}
        self._channels: dict[int, dict[str, Any]] = {}
        self._dm_channel_of: dict[int, int] = {}
        self._users: dict[int, dict[str, Any]] = {APPLICATION_ID: dict(BOT_USER)}
        self._members: dict[int, dict[str, Any]] = {}
        self._roles: dict[int, dict[str, Any]] = {}  # guild roles besides @everyone
        self._cdn: dict[str, bytes] = {}
        #: interaction token -> Reply (with ``keep_payloads=False``: its ``frozen()`` tuple;
        #: read with ``reply_for``)
        self._replies: dict[str, Reply | tuple[Any, ...]] = {}
        self._guild_id: int | None = None
        self._guild_name = "Harness Guild"
        #: the server's preferred locale, and each user's client locale (default en-US)
        self.guild_locale = "en-US"
        self.locales: dict[int, str] = {}
        self._connect_args: tuple | None = None
        self._logged_in = False

        #: seconds added to the harness's clock for Discord's interaction deadlines (3 s for
        #: the initial response, 15 minutes for the token): ``advance`` moves it
        self.skew = 0.0

        self._last_snowflake = 0
        self._tasks: list[asyncio.Task] = []
        self._prune_at = 1000
        self._seen_exc: set[int] = set()
        self._undo: list[Any] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    # ---------------------------------------------------------------- context management ----
    async def __aenter__(self) -> DiscordHarness:
        if _ACTIVE:
            raise HarnessError("only one DiscordHarness may be active at a time; use restart()")
        _ACTIVE.append(self)
        self._loop = loop = asyncio.get_running_loop()
        try:
            self._install_task_tracking(loop)
            self._install_network_guard()
            self._install_webhook_recorder()
            self._install_log_capture()
            self._attach(self.bot)
        except BaseException:
            self._uninstall()
            raise
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        try:
            await self._shutdown_bot()
        finally:
            self._uninstall()
        if exc_type is None and self.errors:
            errors, self.errors = self.errors, []
            raise HarnessError("errors were collected during the test", errors=errors)

    def _uninstall(self) -> None:
        while self._undo:
            with contextlib.suppress(Exception):
                self._undo.pop()()
        if self in _ACTIVE:
            _ACTIVE.remove(self)

    def _patch(self, target: Any, name: str, value: Any) -> None:
        had = name in vars(target) if isinstance(target, type) else hasattr(target, name)
        old = getattr(target, name, None)

        def undo() -> None:
            if had:
                setattr(target, name, old)
            else:
                delattr(target, name)

        setattr(target, name, value)
        self._undo.append(undo)

    def _install_task_tracking(self, loop: asyncio.AbstractEventLoop) -> None:
        previous = loop.get_task_factory()
        tasks = self._tasks

        def factory(loop, coro, **kwargs):
            if previous is not None:
                task = previous(loop, coro, **kwargs)
            else:
                task = asyncio.Task(coro, loop=loop, **kwargs)
            tasks.append(task)
            return task

        loop.set_task_factory(factory)
        self._undo.append(lambda: loop.set_task_factory(previous))

        old_handler = loop.get_exception_handler()

        def handler(loop, context):
            self._record_error(f"asyncio: {context.get('message')}", context.get("exception"))

        loop.set_exception_handler(handler)
        self._undo.append(lambda: loop.set_exception_handler(old_handler))

    def _install_network_guard(self) -> None:
        harness = self

        def refuse(what: str) -> HarnessError:
            err = HarnessError(f"real network attempt blocked: {what}")
            harness._record_error(str(err))
            return err

        async def session_request(session, method, url, *args, **kwargs):
            raise refuse(f"aiohttp {method} {url}")

        async def create_connection(loop, *args, **kwargs):
            raise refuse(f"loop.create_connection{args[1:3]!r}")

        real_connect = socket.socket.connect
        real_connect_ex = socket.socket.connect_ex

        def connect(sock, address):
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                raise refuse(f"socket.connect({address!r})")
            return real_connect(sock, address)

        def connect_ex(sock, address):
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                raise refuse(f"socket.connect_ex({address!r})")
            return real_connect_ex(sock, address)

        self._patch(aiohttp.ClientSession, "_request", session_request)
        self._patch(asyncio.BaseEventLoop, "create_connection", create_connection)
        self._patch(socket.socket, "connect", connect)
        self._patch(socket.socket, "connect_ex", connect_ex)

    def _install_webhook_recorder(self) -> None:
        harness = self

        async def request(adapter, route, session=None, *, payload=None, multipart=None,
                          files=None, params=None, **_):  # fmt: skip
            return await harness._webhook_request(route, payload, multipart, files, params)

        self._patch(AsyncWebhookAdapter, "request", request)

    def _install_log_capture(self) -> None:
        handler = _CollectingHandler(self)
        for name in self.error_loggers:
            logger = logging.getLogger(name)
            logger.addHandler(handler)
            self._undo.append(lambda logger=logger: logger.removeHandler(handler))

    # ------------------------------------------------------------------------- errors ----
    def _record_error(self, what: str, exc: BaseException | None = None) -> None:
        if exc is not None:
            related = {id(exc), id(exc.__cause__), id(getattr(exc, "original", None))}
            related.discard(id(None))
            if related & self._seen_exc:
                self._seen_exc |= related
                return
            self._seen_exc |= related
            tb = "".join(traceback.format_exception(exc))
            self.errors.append(f"{what}\n{tb}")
        else:
            self.errors.append(what)

    def take_errors(self) -> list[str]:
        """Return and clear the collected errors (for tests that expect some)."""
        errors, self.errors = self.errors, []
        return errors

    def assert_no_errors(self) -> None:
        if self.errors:
            errors, self.errors = self.errors, []
            raise HarnessError("errors were collected", errors=errors)

    # ----------------------------------------------------------------------- bot setup ----
    def _attach(self, bot: commands.Bot) -> None:
        self.bot = bot
        self._logged_in = False
        http = bot.http
        http.token = TOKEN
        http.request = self._http_request  # type: ignore[method-assign]
        http.get_from_cdn = self._get_from_cdn  # type: ignore[method-assign]

        original_on_error = bot.on_error
        harness = self

        async def on_error(event_method: str, /, *args: Any, **kwargs: Any) -> None:
            harness._record_error(f"exception in event {event_method!r}", sys.exc_info()[1])
            await original_on_error(event_method, *args, **kwargs)

        bot.on_error = on_error  # type: ignore[method-assign]

    def _wrap_tree_on_error(self) -> None:
        tree = self.bot.tree
        original = tree.on_error
        harness = self
        bugs = (
            app_commands.CommandInvokeError,
            app_commands.CommandNotFound,
            app_commands.CommandSignatureMismatch,
        )

        async def on_error(interaction: discord.Interaction, error: Exception, /) -> None:
            if isinstance(error, bugs) or not isinstance(error, app_commands.AppCommandError):
                name = interaction.command.qualified_name if interaction.command else "?"
                harness._record_error(f"exception in app command {name!r}", error)
            await original(interaction, error)

        tree.on_error = on_error  # type: ignore[method-assign]

    async def _login(self) -> None:
        # Client.login: _async_setup_hook, static_login (GET /users/@me), application_info,
        # setup_hook -- all real, with requests answered by the recorder.
        await self.bot.login(TOKEN)
        if self.auto_sync and not self.synced:
            await self.bot.tree.sync()
        self._wrap_tree_on_error()
        self._logged_in = True

    async def connect(
        self,
        guild_id: int = DEFAULT_GUILD_ID,
        channel_ids: Iterable[int] | Mapping[int, str] = (),
        members: Iterable[Mapping[str, Any]] = (),
        *,
        guild_name: str = "Harness Guild",
        preferred_locale: str = "en-US",
    ) -> None:
        """Log in (running ``setup_hook``), then feed READY + GUILD_CREATE and wait for ready."""
        self.guild_locale = preferred_locale
        channel_ids = (
            dict(channel_ids)
            if isinstance(channel_ids, Mapping)
            else {int(c): f"channel-{i}" for i, c in enumerate(channel_ids)}
        )
        members = [dict(m) for m in members]
        self._connect_args = (guild_id, channel_ids, members, guild_name)
        self._guild_id = int(guild_id)
        self._guild_name = guild_name
        for i, (cid, name) in enumerate(channel_ids.items()):
            self._channels[int(cid)] = {
                "id": str(cid),
                "type": 0,
                "guild_id": str(guild_id),
                "name": name,
                "position": i,
                "permission_overwrites": [],
                "nsfw": False,
                "topic": None,
                "parent_id": None,
                "rate_limit_per_user": 0,
                "last_message_id": None,
            }
            self._channel_msgs.setdefault(int(cid), [])
        for m in members:
            self.add_member(m)

        if not self._logged_in:
            await self._login()

        bot = self.bot
        state = bot._connection
        state.guild_ready_timeout = min(state.guild_ready_timeout, 0.05)
        bot.ws = _FakeGateway(self)  # type: ignore[assignment]
        state.parsers["READY"](self._ready_payload())
        state.parsers["GUILD_CREATE"](self._guild_payload())
        try:
            await asyncio.wait_for(bot.wait_until_ready(), timeout=self.settle_timeout)
        except TimeoutError as e:
            raise HarnessError("bot never became ready") from e
        await self.settle()
        self._raise_errors("connect")

    async def restart(self, new_bot: commands.Bot) -> None:
        """Close the current bot and bring ``new_bot`` up against the same Discord state.

        Stored messages survive, so persistent views registered by the new bot's ``setup_hook``
        receive clicks on messages sent by the old one.
        """
        await self._shutdown_bot()
        self._attach(new_bot)
        if self._connect_args is not None:
            guild_id, channels, members, name = self._connect_args
            await self.connect(
                guild_id, channels, members, guild_name=name, preferred_locale=self.guild_locale
            )

    async def _shutdown_bot(self) -> None:
        bot = self.bot
        with contextlib.suppress(Exception):
            await bot.close()
        current = asyncio.current_task()
        leftovers = [t for t in self._tasks if not t.done() and t is not current]
        leftovers = [t for t in leftovers if not self._is_harness_task(t)]
        for t in leftovers:
            t.cancel()
        if leftovers:
            await asyncio.wait(leftovers, timeout=5)
        self._check_task_exceptions()
        self._tasks[:] = [t for t in self._tasks if not t.done()]

    def add_member(self, member_or_user: Mapping[str, Any]) -> dict[str, Any]:
        m = dict(member_or_user)
        if "user" not in m:
            m = make_member(m)
        uid = int(m["user"]["id"])
        self._users[uid] = dict(m["user"])
        self._members[uid] = m
        return m

    def add_role(self, role_id: int, name: str, permissions: int = 0) -> dict[str, Any]:
        """A guild role (sent in GUILD_CREATE, so call before ``connect``); give it to members
        with ``make_member(user, roles=[role_id])``."""
        role = {
            "id": str(role_id),
            "name": name,
            "permissions": str(permissions),
            "position": len(self._roles) + 1,
            "color": 0,
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }
        self._roles[int(role_id)] = role
        return role

    def set_locale(self, user: Mapping[str, Any] | int, locale: str) -> None:
        """The language of this user's Discord client, sent with their interactions."""
        self.locales[self._uid(user)] = locale

    # ------------------------------------------------------------------------ threads ----
    def _thread(self, parent_id: int, name: str, owner_id: int) -> dict[str, Any]:
        parent = self._channels.get(int(parent_id))
        if parent is None or parent["type"] != 0:
            raise _http_error(404, 10003, "Unknown Channel")
        tid = self._snowflake()
        thread = {
            "id": str(tid),
            "type": 11,
            "guild_id": parent["guild_id"],
            "parent_id": str(parent_id),
            "owner_id": str(owner_id),
            "name": name,
            "last_message_id": None,
            "message_count": 0,
            "member_count": 1,
            "rate_limit_per_user": 0,
            "flags": 0,
            "total_message_sent": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": 1440,
                "archive_timestamp": self._now(),
                "locked": False,
            },
        }
        self._channels[tid] = thread
        self._channel_msgs[tid] = []
        return thread

    def _dispatch_gateway(self, event: str, data: dict[str, Any]) -> None:
        self.bot._connection.parsers[event](copy.deepcopy(data))

    async def add_thread(self, parent_id: int, name: str, owner: Mapping[str, Any] | int) -> int:
        """A public thread someone created in ``parent_id`` (THREAD_CREATE reaches the bot)."""
        thread = self._thread(parent_id, name, self._uid(owner))
        self._dispatch_gateway("THREAD_CREATE", thread | {"newly_created": True})
        await self.settle()
        self._raise_errors("creating a thread")
        return int(thread["id"])

    def threads(self, parent_id: int) -> list[dict[str, Any]]:
        """Threads (live or archived) of a channel, oldest first."""
        return [
            dict(c)
            for c in self._channels.values()
            if c["type"] == 11 and int(c["parent_id"]) == int(parent_id)
        ]

    async def archive_thread(self, thread_id: int, *, bot_down: bool = False) -> None:
        """Archive a thread (as a moderator or Discord's inactivity timer does): THREAD_UPDATE.
        ``bot_down``: while the bot is not connected, so no event reaches it."""
        thread = self._channels[int(thread_id)]
        thread["thread_metadata"] |= {"archived": True, "archive_timestamp": self._now()}
        if bot_down:
            return
        self._dispatch_gateway("THREAD_UPDATE", thread)
        await self.settle()
        self._raise_errors("archiving a thread")

    async def delete_thread(self, thread_id: int) -> None:
        """Delete a thread and its messages: THREAD_DELETE (id, guild, parent and type only)."""
        thread = self._channels.pop(int(thread_id))
        for mid in self._channel_msgs.get(int(thread_id), []):
            msg = self.message(mid)
            msg.deleted = True
            self._keep(msg)
        keys = ("id", "guild_id", "parent_id", "type")
        self._dispatch_gateway("THREAD_DELETE", {k: thread[k] for k in keys})
        await self.settle()
        self._raise_errors("deleting a thread")

    async def delete_channel(self, channel_id: int) -> None:
        """Delete a text channel and its messages: CHANNEL_DELETE."""
        channel = self._channels.pop(int(channel_id))
        for mid in self._channel_msgs.get(int(channel_id), []):
            msg = self.message(mid)
            msg.deleted = True
            self._keep(msg)
        self._dispatch_gateway("CHANNEL_DELETE", channel)
        await self.settle()
        self._raise_errors("deleting a channel")

    async def remove_bot_from_guild(self) -> None:
        """The server removes (kicks) the bot: GUILD_DELETE."""
        self._dispatch_gateway("GUILD_DELETE", {"id": str(self._guild_id)})
        await self.settle()
        self._raise_errors("removing the bot")

    def close_dms(self, user: Mapping[str, Any] | int) -> None:
        self.dms_closed.add(self._uid(user))

    # ---------------------------------------------------------------- gateway payloads ----
    def _ready_payload(self) -> dict[str, Any]:
        return {
            "v": 10,
            "user": dict(BOT_USER),
            "guilds": [{"id": str(self._guild_id), "unavailable": True}],
            "session_id": "harness-session",
            "resume_gateway_url": "wss://gateway.invalid",
            "application": {"id": str(APPLICATION_ID), "flags": 0},
            "user_settings": {},
            "relationships": [],
            "private_channels": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "_trace": ["harness"],
        }

    def _bot_member(self) -> dict[str, Any]:
        return make_member(BOT_USER)

    def _guild_payload(self) -> dict[str, Any]:
        gid = self._guild_id
        members = [self._public_member(m) for m in self._members.values()]
        members.append(self._bot_member())
        return {
            "id": str(gid),
            "name": self._guild_name,
            "icon": None,
            "owner_id": str(next(iter(self._members), APPLICATION_ID)),
            "unavailable": False,
            "large": False,
            "member_count": len(members),
            "joined_at": "2024-01-01T00:00:00.000000+00:00",
            "roles": [
                {
                    "id": str(gid),
                    "name": "@everyone",
                    "permissions": str(MEMBER_PERMISSIONS.value),
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                },
                *(dict(r) for r in self._roles.values()),
            ],
            "channels": [dict(c) for c in self._channels.values() if c["type"] == 0],
            "members": members,
            "threads": [],
            "voice_states": [],
            "presences": [],
            "emojis": [],
            "stickers": [],
            "features": [],
            "preferred_locale": self.guild_locale,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "system_channel_flags": 0,
        }

    @staticmethod
    def _public_member(m: Mapping[str, Any]) -> dict[str, Any]:
        return {k: copy.deepcopy(v) for k, v in m.items() if not k.startswith("_harness")}

    # ---------------------------------------------------------------------- snowflakes ----
    def _snowflake(self) -> int:
        now = utils.time_snowflake(datetime.datetime.now(datetime.UTC))
        self._last_snowflake = max(now, self._last_snowflake + 1)
        return self._last_snowflake

    @staticmethod
    def _now() -> str:
        return datetime.datetime.now(datetime.UTC).isoformat()

    # ------------------------------------------------------------------ public lookups ----
    def message(self, message_id: int) -> Msg:
        try:
            return Msg.thawed(self._msgs[int(message_id)])
        except KeyError:
            raise HarnessError(f"unknown message {message_id}") from None

    def messages(self, channel_id: int, *, include_ephemeral: bool = True) -> list[Msg]:
        """Current (non-deleted) messages of a channel, oldest first."""
        out = [self.message(i) for i in self._channel_msgs.get(int(channel_id), [])]
        return [m for m in out if not m.deleted and (include_ephemeral or not m.ephemeral)]

    def dms(self, user: Mapping[str, Any] | int) -> list[Msg]:
        """Messages the bot sent to this user's DM channel."""
        cid = self._dm_channel_of.get(self._uid(user))
        return self.messages(cid) if cid is not None else []

    def public_payloads(self) -> list[Sent]:
        """Every outbound message payload that others could see (not ephemeral, not a DM)."""
        return [s for s in self.sent if s.visibility == "public"]

    def public_text(self) -> str:
        """All public payloads as one string (handy for ``assert secret not in ...``)."""
        return "\n".join(s.text for s in self.public_payloads())

    def command_schema(self, guild_id: int | None = None) -> list[dict[str, Any]]:
        """Synced commands visible in a guild (guild-scoped + global), as the bot sent them."""
        out = list(self.synced.get(guild_id, [])) if guild_id is not None else []
        return out + list(self.synced.get(None, []))

    def reply_for(self, token: str) -> Reply:
        """The interaction's record as it is now (with ``keep_payloads=False`` the Reply that
        ``send_slash``/``send_click`` returned is not updated: read it again here)."""
        return Reply.thawed(self, self._replies[token])

    def replies(self) -> list[Reply]:
        """Every interaction sent so far, oldest first."""
        return [Reply.thawed(self, kept) for kept in self._replies.values()]

    def _keep_reply(self, reply: Reply) -> None:
        self._replies[reply.token] = reply if self.keep_payloads else reply.frozen()

    # ------------------------------------------------------------------- interactions ----
    def _uid(self, user: Mapping[str, Any] | int) -> int:
        if isinstance(user, Mapping):
            uid = int(user["user"]["id"]) if "user" in user else int(user["id"])
            if uid not in self._users:
                self._users[uid] = dict(user.get("user", user))
            return uid
        return int(user)

    def _user_payload(self, uid: int) -> dict[str, Any]:
        try:
            return dict(self._users[uid])
        except KeyError:
            raise HarnessError(f"unknown user {uid}; pass a user dict or add_member()") from None

    def _member_payload(self, uid: int, *, with_user: bool = True) -> dict[str, Any]:
        m = self._members.get(uid)
        if m is None:
            m = self.add_member(self._user_payload(uid))
        perms = m.get("_harness_permissions", MEMBER_PERMISSIONS.value)
        out = self._public_member(m)
        out["permissions"] = str(perms)
        if not with_user:
            out.pop("user", None)
        return out

    def _interaction_payload(
        self,
        itype: int,
        user: Mapping[str, Any] | int,
        channel_id: int,
        data: dict[str, Any],
        message: Msg | None = None,
    ) -> tuple[dict[str, Any], Reply]:
        uid = self._uid(user)
        channel_id = int(channel_id)
        channel = self._channels.get(channel_id)
        if channel is None:
            raise HarnessError(f"unknown channel {channel_id}; pass it to connect()")
        iid = self._snowflake()
        token = f"interactiontoken{iid}"
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(APPLICATION_ID),
            "type": itype,
            "data": data,
            "token": token,
            "version": 1,
            "locale": self.locales.get(uid, "en-US"),
            "app_permissions": str(BOT_PERMISSIONS.value),
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "channel_id": str(channel_id),
        }
        guild_id = int(channel["guild_id"]) if channel.get("guild_id") else None
        if guild_id is not None:
            payload["guild_id"] = str(guild_id)
            payload["guild_locale"] = self.guild_locale
            payload["guild"] = {"id": str(guild_id), "locale": self.guild_locale, "features": []}
            payload["member"] = self._member_payload(uid)
            payload["context"] = 0
            payload["authorizing_integration_owners"] = {"0": str(guild_id)}
            if channel["type"] == 11:
                keys: tuple[str, ...] = ("id", "type", "guild_id", "name", "parent_id", "owner_id")
                extra = {"thread_metadata": dict(channel["thread_metadata"])}
            else:
                keys, extra = ("id", "type", "guild_id", "name", "position", "nsfw"), {}
            payload["channel"] = (
                {k: channel[k] for k in keys}
                | extra
                | {"permissions": payload["member"]["permissions"], "flags": 0}
            )
        else:
            payload["user"] = self._user_payload(uid)
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": "0"}
            payload["channel"] = {
                "id": str(channel_id),
                "type": 1,
                "flags": 0,
                "recipients": [self._user_payload(channel["recipient"])],
            }
        if message is not None:
            payload["message"] = message.as_discord()
        reply = Reply(
            self,
            interaction_id=iid,
            token=token,
            kind=itype,
            user_id=uid,
            channel_id=channel_id,
            guild_id=guild_id,
            component_message_id=message.id if message is not None else None,
        )
        return payload, reply

    async def _dispatch(
        self, payload: dict[str, Any], reply: Reply, expect_response: bool
    ) -> Reply:
        start = len(self.sent)
        try:
            self._dispatch_now(payload, reply)
            await self.settle()
        finally:
            reply = self.reply_for(reply.token)
            reply.sent = self.sent[start:]
        self._raise_errors("handling interaction", reply)
        if expect_response and reply.callback_type is None:
            raise HarnessError(
                "the bot never acknowledged the interaction "
                "(Discord would show 'This interaction failed')",
                reply=reply,
            )
        return reply

    def _dispatch_now(self, payload: dict[str, Any], reply: Reply) -> Reply:
        """Hand the interaction to the gateway parser (the bot's handlers start as tasks)."""
        self._raise_errors("before dispatch")
        reply.dispatched_at = time.monotonic()
        self._keep_reply(reply)
        self.bot._connection.parsers["INTERACTION_CREATE"](payload)
        return reply

    def _forget_done_tasks(self) -> None:
        """Without settling, keep the tracked task list short (and still report crashes)."""
        if len(self._tasks) > self._prune_at:
            self._check_task_exceptions()
            self._tasks[:] = [t for t in self._tasks if not t.done()]
            self._prune_at = max(1000, 2 * len(self._tasks))

    def send_slash(
        self, user: Mapping[str, Any] | int, channel_id: int, command: str, /, **options: Any
    ) -> Reply:
        """Like ``slash``, but return the moment the bot has the interaction, without waiting
        for it to settle: for load, with many interactions in flight at once. The answer
        lands on the Reply later (``callback_type``, ``ack_latency``, ``message``); bot errors
        are collected as usual and raised by the next dispatch or ``settle``."""
        data = self._command_data(channel_id, command, options, focused=None)
        payload, reply = self._interaction_payload(2, user, channel_id, data)
        self._forget_done_tasks()
        return self._dispatch_now(payload, reply)

    def send_click(
        self, user: Mapping[str, Any] | int, message: Msg | Reply | int, custom_id: str
    ) -> Reply:
        """Like ``click``, without waiting for the bot to settle (see ``send_slash``)."""
        payload, reply = self._click_payload(user, message, custom_id)
        self._forget_done_tasks()
        return self._dispatch_now(payload, reply)

    def _raise_errors(self, when: str, reply: Reply | None = None) -> None:
        if self.errors:
            errors, self.errors = self.errors, []
            raise HarnessError(f"bot errors while {when}", errors=errors, reply=reply)

    async def slash(
        self,
        user: Mapping[str, Any] | int,
        channel_id: int,
        command: str,
        /,
        **options: Any,
    ) -> Reply:
        """Invoke ``/command`` (e.g. ``"poker start"``) with typed options, like a user would."""
        data = self._command_data(channel_id, command, options, focused=None)
        payload, reply = self._interaction_payload(2, user, channel_id, data)
        return await self._dispatch(payload, reply, expect_response=True)

    async def autocomplete(
        self,
        user: Mapping[str, Any] | int,
        channel_id: int,
        command: str,
        focused_option: str,
        value: Any,
        /,
        **other_options: Any,
    ) -> list[dict[str, Any]]:
        """Type into ``focused_option`` and return the choices the bot offers."""
        options = dict(other_options)
        options[focused_option] = value
        data = self._command_data(channel_id, command, options, focused=focused_option)
        payload, reply = self._interaction_payload(4, user, channel_id, data)
        await self._dispatch(payload, reply, expect_response=True)
        if reply.callback_type != 8:
            raise HarnessError(f"autocomplete answered with callback type {reply.callback_type}")
        return list(reply.choices or [])

    def _message_arg(self, message: Msg | Reply | int) -> Msg:
        if isinstance(message, Reply):
            if message.message is None:
                raise HarnessError(f"{message!r} has no message")
            return message.message
        if isinstance(message, Msg):
            return self.message(message.id)
        return self.message(int(message))

    def _component_check(self, uid: int, msg: Msg, custom_id: str, ctype: int) -> dict:
        if msg.deleted:
            raise HarnessError(f"message {msg.id} was deleted")
        if msg.visible_to is not None and msg.visible_to != uid:
            raise HarnessError(f"user {uid} cannot see ephemeral message {msg.id}")
        comp = msg.component(custom_id)
        if comp is None:
            raise HarnessError(
                f"custom_id {custom_id!r} is not on message {msg.id}; it has {msg.custom_ids()}"
            )
        if comp.get("type") != ctype:
            raise HarnessError(f"component {custom_id!r} has type {comp.get('type')}, not {ctype}")
        if comp.get("disabled"):
            raise HarnessError(f"component {custom_id!r} is disabled and cannot be used")
        return comp

    async def click(
        self,
        user: Mapping[str, Any] | int,
        message: Msg | Reply | int,
        custom_id: str,
        *,
        expect_response: bool = True,
    ) -> Reply:
        """Press the button ``custom_id`` on the stored message."""
        payload, reply = self._click_payload(user, message, custom_id)
        return await self._dispatch(payload, reply, expect_response)

    def _click_payload(
        self, user: Mapping[str, Any] | int, message: Msg | Reply | int, custom_id: str
    ) -> tuple[dict[str, Any], Reply]:
        uid = self._uid(user)
        msg = self._message_arg(message)
        self._component_check(uid, msg, custom_id, 2)
        data = {"custom_id": custom_id, "component_type": 2}
        return self._interaction_payload(3, uid, msg.channel_id, data, message=msg)

    async def select(
        self,
        user: Mapping[str, Any] | int,
        message: Msg | Reply | int,
        custom_id: str,
        values: Iterable[str],
        *,
        expect_response: bool = True,
    ) -> Reply:
        """Choose ``values`` in the string select ``custom_id`` on the stored message."""
        uid = self._uid(user)
        msg = self._message_arg(message)
        comp = self._component_check(uid, msg, custom_id, 3)
        values = [str(v) for v in values]
        allowed = [str(o["value"]) for o in comp.get("options") or []]
        if bad := [v for v in values if v not in allowed]:
            raise HarnessError(f"values {bad} not among options {allowed} of {custom_id!r}")
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise HarnessError(f"select {custom_id!r} needs {lo}..{hi} values, got {len(values)}")
        data = {"custom_id": custom_id, "component_type": 3, "values": values}
        payload, reply = self._interaction_payload(3, uid, msg.channel_id, data, message=msg)
        return await self._dispatch(payload, reply, expect_response)

    # ------------------------------------------------------- command payload from schema ----
    def _command_data(
        self, channel_id: int, command: str, options: dict[str, Any], focused: str | None
    ) -> dict[str, Any]:
        parts = command.split()
        if not parts:
            raise HarnessError("empty command")
        channel = self._channels.get(int(channel_id)) or {}
        guild_id = int(channel["guild_id"]) if channel.get("guild_id") else None
        found = None
        for scope in ([guild_id] if guild_id is not None else []) + [None]:
            for cmd, with_id in zip(
                self.synced.get(scope, []), self._synced_ids.get(scope, []), strict=True
            ):
                if cmd["name"] == parts[0] and cmd.get("type", 1) == 1:
                    found = (scope, cmd, with_id)
                    break
            if found:
                break
        if found is None:
            names = [c["name"] for c in self.command_schema(guild_id)]
            raise HarnessError(f"/{parts[0]} was not synced; synced commands: {names}")
        scope, cmd, with_id = found

        node = cmd
        resolved: dict[str, dict[str, Any]] = {}
        # walk subcommand groups / subcommands
        path_nodes = []
        for part in parts[1:]:
            subs = [o for o in node.get("options") or [] if o.get("type") in (1, 2)]
            nxt = next((o for o in subs if o["name"] == part), None)
            if nxt is None:
                raise HarnessError(
                    f"/{command}: {part!r} is not a subcommand of {node['name']!r}; "
                    f"have {[o['name'] for o in subs]}"
                )
            path_nodes.append(nxt)
            node = nxt
        if any(o.get("type") in (1, 2) for o in node.get("options") or []):
            raise HarnessError(f"/{command} is a group; name a subcommand")
        leaf_options = self._leaf_options(node, options, focused, resolved, guild_id)
        nested: list[dict[str, Any]] = leaf_options
        for sub in reversed(path_nodes):
            nested = [{"type": sub["type"], "name": sub["name"], "options": nested}]
        data: dict[str, Any] = {
            "id": with_id["id"],
            "name": cmd["name"],
            "type": 1,
            "options": nested,
        }
        if scope is not None:
            data["guild_id"] = str(scope)
        if resolved:
            data["resolved"] = resolved
        return data

    def _leaf_options(
        self,
        node: Mapping[str, Any],
        given: dict[str, Any],
        focused: str | None,
        resolved: dict[str, dict[str, Any]],
        guild_id: int | None,
    ) -> list[dict[str, Any]]:
        declared = [o for o in node.get("options") or [] if o.get("type") not in (1, 2)]
        by_name = {o["name"]: o for o in declared}
        unknown = sorted(set(given) - set(by_name))
        if unknown:
            raise HarnessError(
                f"option(s) {unknown} are not declared by /{node['name']}; "
                f"declared: {sorted(by_name)}"
            )
        if focused is None:
            missing = [o["name"] for o in declared if o.get("required") and o["name"] not in given]
            if missing:
                raise HarnessError(f"/{node['name']}: missing required option(s) {missing}")
        out = []
        for opt in declared:
            if opt["name"] not in given:
                continue
            value = given[opt["name"]]
            if opt["name"] == focused:
                if not opt.get("autocomplete"):
                    raise HarnessError(f"option {opt['name']!r} has no autocomplete")
                out.append({"type": opt["type"], "name": opt["name"], "value": str(value),
                            "focused": True})  # fmt: skip
                continue
            out.append(
                {
                    "type": opt["type"],
                    "name": opt["name"],
                    "value": self._encode_option(opt, value, resolved, guild_id),
                }
            )
        return out

    def _encode_option(
        self,
        opt: Mapping[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        guild_id: int | None,
    ) -> Any:
        t, name = opt["type"], opt["name"]

        def bad(why: str) -> HarnessError:
            return HarnessError(f"option {name!r} (type {t}): {why}; got {value!r}")

        if t == 3:
            if not isinstance(value, str):
                raise bad("expected str")
            if not opt.get("min_length", 0) <= len(value) <= opt.get("max_length", 6000):
                raise bad("length out of range")
        elif t == 4:
            if isinstance(value, bool) or not isinstance(value, int):
                raise bad("expected int")
        elif t == 10:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise bad("expected number")
        elif t == 5:
            if not isinstance(value, bool):
                raise bad("expected bool")
        elif t in (6, 9):
            uid = self._uid(value)
            user = self._user_payload(uid)
            resolved.setdefault("users", {})[str(uid)] = user
            if guild_id is not None and uid in self._members:
                member = self._member_payload(uid, with_user=False)
                resolved.setdefault("members", {})[str(uid)] = member
            return str(uid)
        elif t == 7:
            cid = int(value)
            ch = self._channels.get(cid)
            if ch is None:
                raise bad("unknown channel")
            resolved.setdefault("channels", {})[str(cid)] = {
                "id": str(cid),
                "type": ch["type"],
                "name": ch.get("name"),
                "permissions": str(MEMBER_PERMISSIONS.value),
            }
            return str(cid)
        elif t == 8:
            rid = int(value["id"]) if isinstance(value, Mapping) else int(value)
            role = self._roles.get(rid)
            if role is None:
                raise bad("unknown role; add_role() it first")
            resolved.setdefault("roles", {})[str(rid)] = dict(role)
            return str(rid)
        else:
            raise bad("option type not supported by the harness")
        if t in (4, 10):
            if "min_value" in opt and value < opt["min_value"]:
                raise bad(f"below min_value {opt['min_value']}")
            if "max_value" in opt and value > opt["max_value"]:
                raise bad(f"above max_value {opt['max_value']}")
        if opt.get("choices") and value not in [c["value"] for c in opt["choices"]]:
            raise bad(f"not one of the choices {[c['value'] for c in opt['choices']]}")
        return value

    # ------------------------------------------------------------------------ settling ----
    def _is_harness_task(self, task: asyncio.Task) -> bool:
        """A task driving the harness (e.g. ``gather(h.slash(...), h.slash(...))``)."""
        chain = _coro_chain(task)
        if not chain:
            return False
        outer = _code_of(chain[0])
        if outer is not None and outer.co_filename == __file__:
            return True
        return any(_code_of(obj) is DiscordHarness.settle.__code__ for obj in chain)

    def _timer_futures(self) -> dict[int, float]:
        """id(future) -> deadline, for futures a pending loop timer will resolve."""
        loop = asyncio.get_running_loop()
        out: dict[int, float] = {}
        for handle in getattr(loop, "_scheduled", ()):
            if not handle.cancelled():
                for arg in getattr(handle, "_args", None) or ():
                    out[id(arg)] = handle.when()
        return out

    def _is_idle(self, task: asyncio.Task, timers: dict[int, float]) -> bool:
        chain = _coro_chain(task)
        if not chain:
            return False
        inner = chain[-1]
        if _code_of(inner) in _IDLE_CODES:
            return True
        awaited = getattr(task, "_fut_waiter", None)  # the future the task is blocked on
        if awaited is not None and id(awaited) in timers:
            # long sleeps (turn timers, view timeouts) are idle; short pauses are waited for
            return timers[id(awaited)] - asyncio.get_running_loop().time() > self.short_timer
        return False

    def _busy_tasks(self) -> list[asyncio.Task]:
        current = asyncio.current_task()
        timers = self._timer_futures()
        busy = []
        for t in self._tasks:
            if t.done() or t is current or self._is_harness_task(t):
                continue
            if not self._is_idle(t, timers):
                busy.append(t)
        return busy

    def _check_task_exceptions(self) -> None:
        for t in self._tasks:
            if t.done() and not t.cancelled() and getattr(t, "_log_traceback", False):
                exc = t.exception()  # marks it retrieved
                self._record_error(f"unhandled exception in task {t.get_name()!r}", exc)

    async def settle(self, timeout: float | None = None) -> None:
        """Run the loop until every task the bot started is finished or idle.

        Idle = sleeping on a timer due later than ``short_timer`` or waiting on an asyncio
        Event/Queue/Lock/Condition,
        ``wait_for`` or ``View.wait``.  Anything else (including thread/executor work) is waited
        for, up to ``timeout`` seconds.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.settle_timeout if timeout is None else timeout)
        quiet = 0
        while True:
            busy = self._busy_tasks()
            if not busy:
                quiet += 1
                if quiet >= 3:
                    break
                await asyncio.sleep(0)
                continue
            quiet = 0
            if loop.time() > deadline:
                stacks = []
                for t in busy:
                    buf = io.StringIO()
                    t.print_stack(file=buf)
                    stacks.append(f"{t!r}\n{buf.getvalue()}")
                raise HarnessError("bot still busy after settle timeout", errors=stacks)
            await asyncio.wait(busy, timeout=0.02, return_when=asyncio.FIRST_COMPLETED)
        self._check_task_exceptions()
        self._tasks[:] = [t for t in self._tasks if not t.done()]

    # -------------------------------------------------------------- recording helpers ----
    def _record(self, transport, method, path, body, files, params, token=None) -> Sent:
        sent = Sent(
            seq=self.requests,
            transport=transport,
            method=method,
            path=path,
            json=copy.deepcopy(body) if self.keep_payloads else None,
            files=files,
            params=dict(params) if params else None,
            interaction_token=token,
        )
        self.requests += 1
        if self.keep_payloads:
            self.sent.append(sent)
        else:  # a plain tuple of strings and numbers: the collector stops walking it
            self.sent_log.append((transport, method, path, sent.at))
        return sent

    @staticmethod
    def _read_files(files: Iterable[discord.File] | None) -> list[tuple[str, bytes]]:
        out = []
        for f in files or ():
            f.reset(seek=True)
            data = f.fp.read()
            f.reset(seek=True)
            out.append((f.filename, data))
        return out

    @staticmethod
    def _body(payload: Any, form: Iterable[Mapping[str, Any]] | None) -> Any:
        if form:
            for part in form:
                if part.get("name") == "payload_json":
                    return json.loads(part["value"])
        return payload

    def _unknown(self, sent: Sent) -> HarnessError:
        err = HarnessError(
            f"harness has no answer for {sent.method} {sent.path} "
            f"json={json.dumps(sent.json)[:500]}"
        )
        self._record_error(str(err))
        return err

    # ------------------------------------------------------------------ REST recorder ----
    async def _http_request(
        self,
        route: Route,
        *,
        files: Iterable[discord.File] | None = None,
        form: Iterable[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> Any:
        http = self.bot.http
        real = getattr(http, "_HTTPClient__session", None)
        if real is not self._session:
            if isinstance(real, aiohttp.ClientSession):
                await real.close()  # created by static_login; it never connected
            http._HTTPClient__session = self._session  # type: ignore[attr-defined]
        body = self._body(kwargs.get("json"), form)
        _REQUEST.set((body, self._read_files(files), kwargs.get("params")))
        return await discord.http.HTTPClient.request(http, route, files=files, form=form, **kwargs)

    async def _serve_http(self, method: str, url: str, params: Any) -> _FakeHTTPResponse:
        """One attempt of a REST request, as discord.py's session would make it."""
        path = url[len(API_BASE) :]
        body, files, _ = _REQUEST.get((None, [], None))
        sent = self._record("http", method, path, body, files, params)
        await self._delay()
        fault = next((f for f in self.faults if f.matches(method, path)), None)
        sent.done_at = time.monotonic()
        if fault is not None:
            fault.hits += 1
            sent.fault = fault
            if fault.timeout:
                sent.error = TimeoutError()
                raise sent.error
            data: dict[str, Any] = {"code": fault.code, "message": fault.message}
            headers = {}
            if fault.status == 429:
                data |= {"retry_after": fault.retry_after, "global": False}
                headers = {"Via": "1.1 google"}
            sent.error = HarnessError(f"injected {fault.status} {fault.code}")
            return _FakeHTTPResponse(fault.status, data, headers)
        try:
            result = self._answer_http(sent, method, path, body)
        except discord.HTTPException as e:
            sent.error = e
            return _FakeHTTPResponse(e.status, getattr(e, "_harness_body", {"code": e.code}))
        if self.keep_payloads:
            sent.response = copy.deepcopy(result)
        return _FakeHTTPResponse(200 if result is not None else 204, result)

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass for Discord's interaction deadlines, without waiting."""
        self.skew += seconds

    def _age(self, sent: Sent, reply: Reply) -> float:
        """How old the interaction was when the bot made this request (harness clock)."""
        return sent.at + self.skew - reply.dispatched_at

    def fail(self, route: str, status: int = 500, **kwargs: Any) -> Fault:
        """Answer the next matching REST request(s) with an error; see ``Fault``."""
        fault = Fault(route, status, **kwargs)
        self.faults.append(fault)
        return fault

    async def _delay(self) -> None:
        latency = self.latency
        if isinstance(latency, tuple):
            latency = self._latency_rng.uniform(*latency)
        await asyncio.sleep(latency)  # a real request always yields to the loop

    async def _answered(self, sent: Sent, answer: Callable[[], Any]) -> Any:
        """Answer a recorded request like Discord, keeping the answer or error on it."""
        await self._delay()
        sent.done_at = time.monotonic()
        try:
            result = answer()
        except BaseException as e:
            sent.error = e
            raise
        if self.keep_payloads:
            sent.response = copy.deepcopy(result)
        return result

    def _answer_http(self, sent: Sent, method: str, path: str, body: Any) -> Any:
        m = None

        def match(pattern: str) -> bool:
            nonlocal m
            m = re.fullmatch(pattern, path)
            return m is not None

        if method == "GET" and path == "/users/@me":
            return dict(BOT_USER)
        if method == "GET" and path == "/oauth2/applications/@me":
            return self._app_info()
        if match(r"/applications/(\d+)/commands") or match(
            r"/applications/(\d+)/guilds/(\d+)/commands"
        ):
            scope = int(m.group(2)) if m.lastindex == 2 else None
            if method == "PUT":
                return self._bulk_overwrite(scope, body)
            if method == "GET":
                return copy.deepcopy(self._synced_ids.get(scope, []))
        if method == "POST" and path == "/users/@me/channels":
            return self._dm_channel(int(body["recipient_id"]))
        if method == "POST" and match(r"/channels/(\d+)/threads"):
            if int(body.get("type") or 11) != 11:
                raise self._unknown(sent)
            thread = self._thread(int(m.group(1)), body["name"], APPLICATION_ID)
            sent.channel_id = int(thread["id"])
            self._dispatch_gateway("THREAD_CREATE", thread | {"newly_created": True})
            return copy.deepcopy(thread)
        if method == "POST" and match(r"/channels/(\d+)/messages"):
            return self._channel_send(sent, int(m.group(1)), body)
        if match(r"/channels/(\d+)/messages/(\d+)"):
            msg = self._channel_message(int(m.group(1)), int(m.group(2)))
            ch = self._channels[msg.channel_id]
            if method != "GET" and ch["type"] == 11 and ch["thread_metadata"]["archived"]:
                raise _http_error(400, 50083, "Thread is archived")
            if method == "GET":
                return msg.as_discord()
            if method == "PATCH":
                return self._edit(sent, msg, body, sent.files)
            if method == "DELETE":
                self._delete(sent, msg)
                return None
        if method == "POST" and match(r"/channels/(\d+)/typing"):
            return None
        if method == "DELETE" and match(r"/channels/(\d+)"):
            ch = self._channels.pop(int(m.group(1)), None)
            if ch is None:
                raise _http_error(404, 10003, "Unknown Channel")
            return self._channel_object(ch)
        if method == "GET" and match(r"/channels/(\d+)"):
            ch = self._channels.get(int(m.group(1)))
            if ch is None:
                raise _http_error(404, 10003, "Unknown Channel")
            return self._channel_object(ch)
        if method == "GET" and match(r"/users/(\d+)"):
            uid = int(m.group(1))
            if uid not in self._users:
                raise _http_error(404, 10013, "Unknown User")
            return dict(self._users[uid])
        if method == "GET" and match(r"/guilds/(\d+)/members/(\d+)"):
            uid = int(m.group(2))
            if uid not in self._members:
                raise _http_error(404, 10007, "Unknown Member")
            member = self._member_payload(uid)
            member.pop("permissions", None)
            return member
        raise self._unknown(sent)

    def _app_info(self) -> dict[str, Any]:
        return {
            "id": str(APPLICATION_ID),
            "name": BOT_USER["username"],
            "description": "",
            "icon": None,
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": make_user(1399999999999999999, "owner"),
            "verify_key": "0" * 64,
            "flags": 0,
            "interactions_endpoint_url": None,
            "bot": dict(BOT_USER),
        }

    def _bulk_overwrite(self, scope: int | None, body: list[dict[str, Any]]) -> list[dict]:
        previous = {c["name"]: c["id"] for c in self._synced_ids.get(scope, [])}
        self.synced[scope] = copy.deepcopy(body)
        echoed = []
        for cmd in body:
            c = copy.deepcopy(cmd)
            c["id"] = previous.get(cmd["name"]) or str(self._snowflake())
            c["application_id"] = str(APPLICATION_ID)
            c["version"] = str(self._snowflake())
            c.setdefault("type", 1)
            c.setdefault("description", "")
            c.setdefault("options", [])
            c.setdefault("default_member_permissions", None)
            c.setdefault("nsfw", False)
            if scope is not None:
                c["guild_id"] = str(scope)
            echoed.append(c)
        self._synced_ids[scope] = echoed
        return copy.deepcopy(echoed)

    def _channel_object(self, ch: Mapping[str, Any]) -> dict[str, Any]:
        if ch["type"] == 1:
            return {
                "id": ch["id"],
                "type": 1,
                "last_message_id": None,
                "flags": 0,
                "recipients": [self._user_payload(ch["recipient"])],
            }
        return dict(ch)

    def _dm_channel(self, uid: int) -> dict[str, Any]:
        if uid not in self._users:
            raise _http_error(400, 50035, "Invalid Form Body")
        cid = self._dm_channel_of.get(uid)
        if cid is None:
            cid = self._snowflake()
            self._dm_channel_of[uid] = cid
            self._channels[cid] = {"id": str(cid), "type": 1, "recipient": uid}
            self._channel_msgs[cid] = []
        return self._channel_object(self._channels[cid])

    def _channel_message(self, channel_id: int, message_id: int) -> Msg:
        kept = self._msgs.get(message_id)
        msg = None if kept is None else Msg.thawed(kept)
        # ephemeral messages cannot be reached through channel routes
        if msg is None or msg.deleted or msg.channel_id != channel_id or msg.ephemeral:
            raise _http_error(404, 10008, "Unknown Message")
        return msg

    def _channel_send(self, sent: Sent, channel_id: int, body: Mapping[str, Any]) -> dict:
        ch = self._channels.get(channel_id)
        if ch is None:
            raise _http_error(404, 10003, "Unknown Channel")
        if ch["type"] == 11 and ch["thread_metadata"]["archived"]:
            raise _http_error(400, 50083, "Thread is archived")
        if ch["type"] == 1 and ch["recipient"] in self.dms_closed:
            raise _http_error(403, 50007, "Cannot send messages to this user")
        body = dict(body)
        if int(body.get("flags") or 0) & EPHEMERAL:
            raise _http_error(400, 50035, "Invalid Form Body: ephemeral outside interactions")
        msg = self._create(sent, channel_id, body, sent.files)
        return msg.as_discord()

    # ------------------------------------------------------------------ message model ----
    def _attachments(
        self, msg_channel: int, body: Mapping[str, Any], files: list[tuple[str, bytes]],
        existing: list[dict[str, Any]],
    ) -> tuple[list[dict[str, Any]], dict[str, bytes]]:  # fmt: skip
        by_id = {int(a["id"]): a for a in existing}
        entries = body.get("attachments")
        if entries is None:
            entries = [{"id": i, "filename": n} for i, (n, _) in enumerate(files)]
        out, blobs = [], {}
        for entry in entries:
            aid = int(entry["id"])
            if aid in by_id:
                out.append(by_id[aid])
                continue
            if aid >= len(files):
                raise _http_error(400, 50035, f"Invalid Form Body: unknown attachment {aid}")
            name, data = files[aid]
            new_id = self._snowflake()
            url = f"https://cdn.discordapp.com/attachments/{msg_channel}/{new_id}/{name}"
            self._cdn[url] = data
            blobs[name] = data
            out.append(
                {
                    "id": str(new_id),
                    "filename": entry.get("filename") or name,
                    "size": len(data),
                    "url": url,
                    "proxy_url": url.replace("cdn.discordapp.com", "media.discordapp.net"),
                    "content_type": "image/png" if name.endswith(".png") else None,
                    **({"description": entry["description"]} if entry.get("description") else {}),
                }
            )
        return out, blobs

    def _create(
        self,
        sent: Sent,
        channel_id: int,
        body: Mapping[str, Any],
        files: list[tuple[str, bytes]],
        *,
        reply: Reply | None = None,
        flags: int | None = None,
    ) -> Msg:
        mid = self._snowflake()
        ch = self._channels[channel_id]
        attachments, blobs = self._attachments(channel_id, body, files, [])
        payload: dict[str, Any] = {
            "id": str(mid),
            "channel_id": str(channel_id),
            "type": 0,
            "content": body.get("content") or "",
            "author": dict(BOT_USER),
            "attachments": attachments,
            "embeds": copy.deepcopy(body.get("embeds") or []),
            "components": copy.deepcopy(body.get("components") or []),
            "flags": int(body.get("flags") or 0) if flags is None else flags,
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": bool(body.get("tts")),
            "timestamp": self._now(),
            "edited_timestamp": None,
        }
        if ch.get("guild_id"):
            payload["guild_id"] = ch["guild_id"]
        if reply is not None:
            payload["type"] = 20 if reply.kind == 2 else 19 if reply.kind == 3 else 0
            payload["webhook_id"] = str(APPLICATION_ID)
            payload["application_id"] = str(APPLICATION_ID)
            payload["interaction_metadata"] = {
                "id": str(reply.interaction_id),
                "type": reply.kind,
                "user": self._user_payload(reply.user_id),
                "authorizing_integration_owners": {"0": str(reply.guild_id or 0)},
            }
        _validate_message(payload)
        visible_to = reply.user_id if (payload["flags"] & EPHEMERAL and reply) else None
        msg = Msg(
            payload,
            visible_to=visible_to,
            interaction=reply.token if reply else None,
            # for load: private answers and DMs (thousands, rarely read again) as text; the
            # public messages (one per table, read and edited all the time) as they are
            packed=not self.keep_payloads and (visible_to is not None or ch["type"] == 1),
        )
        msg.files.update(blobs)
        self._keep(msg)
        self._channel_msgs.setdefault(channel_id, []).append(mid)
        if ch["type"] == 0:
            ch["last_message_id"] = str(mid)
        self._mark(sent, msg)
        return msg

    def _edit(
        self, sent: Sent, msg: Msg, body: Mapping[str, Any], files: list[tuple[str, bytes]]
    ) -> dict[str, Any]:
        new = msg.as_discord()  # a copy
        if "content" in body:
            new["content"] = body["content"] or ""
        for key in ("embeds", "components"):
            if key in body:
                new[key] = copy.deepcopy(body[key] or [])
        if "attachments" in body or files:
            new["attachments"], blobs = self._attachments(
                msg.channel_id, body, files, msg.payload.get("attachments") or []
            )
            msg.files.update(blobs)
        flags = msg.flags & ~LOADING
        if body.get("flags") is not None:
            editable = SUPPRESS_EMBEDS | COMPONENTS_V2
            flags = (flags & ~editable) | (int(body["flags"]) & editable)
        new["flags"] = flags
        new["edited_timestamp"] = self._now()
        _validate_message(new)
        if self.keep_payloads:
            if msg._history is None:
                msg._history = []
            msg._history.append(msg.payload)
        msg.payload = new
        self._keep(msg)
        self._mark(sent, msg)
        return msg.as_discord()

    def _delete(self, sent: Sent, msg: Msg) -> None:
        msg.deleted = True
        self._keep(msg)
        sent.channel_id, sent.message_id = msg.channel_id, msg.id

    def _keep(self, msg: Msg) -> None:
        """Store a message after a change (a packed one as its plain tuple)."""
        self._msgs[msg.id] = msg.frozen()

    def _mark(self, sent: Sent, msg: Msg) -> None:
        sent.channel_id, sent.message_id = msg.channel_id, msg.id
        if self._channels[msg.channel_id]["type"] == 1:
            sent.visibility = "dm"
        elif msg.ephemeral:
            sent.visibility = "ephemeral"
        else:
            sent.visibility = "public"

    async def _get_from_cdn(self, url: str) -> bytes:
        self._record("http", "GET", url, None, [], None)
        await asyncio.sleep(0)
        if url in self._cdn:
            return self._cdn[url]
        if "/avatars/" in url or "/embed/avatars/" in url or "/icons/" in url:
            return _PNG_1X1
        err = HarnessError(f"harness has no CDN asset for {url}")
        self._record_error(str(err))
        raise err

    # --------------------------------------------------------------- webhook recorder ----
    async def _webhook_request(self, route, payload, multipart, files, params) -> Any:
        path = route.url[len(API_BASE) :]
        body = self._body(payload, multipart)
        token = route.webhook_token
        sent = self._record(
            "webhook", route.method, path, body, self._read_files(files), params, token=token
        )
        return await _traced(
            self,
            route.method,
            route.url,
            lambda: self._answered(
                sent, lambda: self._answer_webhook(sent, route.method, path, body)
            ),
        )

    def _answer_webhook(self, sent: Sent, method: str, path: str, body: Any) -> Any:
        m = re.fullmatch(r"/interactions/(\d+)/([^/]+)/callback", path)
        if m and method == "POST":
            kept = self._replies.get(m.group(2))
            reply = None if kept is None else Reply.thawed(self, kept)
            if reply is None or reply.interaction_id != int(m.group(1)):
                raise _http_error(404, 10062, "Unknown interaction")
            if reply.callback_type is None and self._age(sent, reply) > INITIAL_RESPONSE_WITHIN:
                raise _http_error(404, 10062, "Unknown interaction")  # too late: Discord forgot it
            try:
                return self._callback(sent, reply, body)
            finally:
                self._keep_reply(reply)
        m = re.fullmatch(r"/webhooks/(\d+)/([^/]+)(?:/messages/(@original|\d+))?", path)
        if m is None or int(m.group(1)) != APPLICATION_ID:
            raise self._unknown(sent)
        kept = self._replies.get(m.group(2))
        if kept is None:
            raise _http_error(401, 50027, "Invalid Webhook Token")
        reply = Reply.thawed(self, kept)
        if self._age(sent, reply) > TOKEN_LIFETIME:
            raise _http_error(401, 50027, "Invalid Webhook Token")
        target = m.group(3)
        if target is None:
            if method == "POST":
                try:
                    return self._followup(sent, reply, body)
                finally:
                    self._keep_reply(reply)
            raise self._unknown(sent)
        if reply.callback_type is None:
            raise _http_error(404, 10015, "Unknown Webhook")
        if target == "@original":
            if reply.original_id is None:
                raise _http_error(404, 10008, "Unknown Message")
            msg = self.message(reply.original_id)
        else:
            if int(target) not in [reply.original_id, *reply.followup_ids]:
                raise _http_error(404, 10008, "Unknown Message")
            msg = self.message(int(target))
        if msg.deleted:
            raise _http_error(404, 10008, "Unknown Message")
        if method == "GET":
            self._mark(sent, msg)
            sent.visibility = "none"
            return msg.as_discord()
        if method == "PATCH":
            return self._edit(sent, msg, body, sent.files)
        if method == "DELETE":
            self._delete(sent, msg)
            return None
        raise self._unknown(sent)

    _ALLOWED_CALLBACKS = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}

    def _callback(self, sent: Sent, reply: Reply, body: Mapping[str, Any]) -> dict[str, Any]:
        ctype = int(body["type"])
        data = body.get("data") or {}
        if reply.callback_type is not None:
            raise _http_error(400, 40060, "Interaction has already been acknowledged.")
        if ctype not in self._ALLOWED_CALLBACKS.get(reply.kind, set()):
            raise _http_error(400, 50035, f"Invalid interaction response type {ctype}")
        message: Msg | None = None
        if ctype == 4:
            message = self._create(sent, reply.channel_id, data, sent.files, reply=reply)
            reply.original_id = message.id
        elif ctype == 5:
            flags = LOADING | (int(data.get("flags") or 0) & EPHEMERAL)
            message = self._create(sent, reply.channel_id, {}, [], reply=reply, flags=flags)
            reply.original_id = message.id
            reply._first_followup_pending = True
        elif ctype in (6, 7):
            reply.original_id = reply.component_message_id
            message = self.message(reply.component_message_id)
            if ctype == 7:
                self._edit(sent, message, data, sent.files)
        elif ctype == 8:
            reply.choices = list(data.get("choices") or [])
            if len(reply.choices) > 25:
                raise _http_error(400, 50035, "Invalid Form Body: more than 25 choices")
            sent.visibility = "ephemeral"
        elif ctype == 9:
            reply.modal = dict(data)
            sent.visibility = "ephemeral"
        reply.callback_type = ctype
        reply._callback_json = json.dumps(data)
        reply.ack_latency = sent.at - reply.dispatched_at  # when the bot sent it
        interaction: dict[str, Any] = {
            "id": str(reply.interaction_id),
            "type": reply.kind,
            "response_message_id": str(reply.original_id) if reply.original_id else None,
            "response_message_loading": ctype == 5,
            "response_message_ephemeral": bool(message and message.ephemeral),
        }
        out: dict[str, Any] = {"interaction": interaction}
        if ctype not in (8, 9):
            out["resource"] = {"type": ctype}
            if message is not None and ctype != 6:
                out["resource"]["message"] = message.as_discord()
        return out

    def _followup(self, sent: Sent, reply: Reply, body: Mapping[str, Any]) -> dict[str, Any]:
        if reply.callback_type is None:
            raise _http_error(404, 10015, "Unknown Webhook")
        if reply.first_followup_at is None:
            reply.first_followup_at = sent.at
        if reply._first_followup_pending:
            # The first followup after a "thinking" defer replaces the loading message and keeps
            # the defer's ephemerality (the followup's own ephemeral flag is ignored).
            reply._first_followup_pending = False
            original = self.message(reply.original_id)
            if original.loading and not original.deleted:
                payload = self._edit(sent, original, body, sent.files)
                return payload
        msg = self._create(sent, reply.channel_id, body, sent.files, reply=reply)
        reply.followup_ids += (msg.id,)
        return msg.as_discord()
