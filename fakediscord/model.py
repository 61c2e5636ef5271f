"""Fake Discord's REST answers: the message model, and what Discord answers each request.

One ``FakeDiscord`` holds what Discord knows (channels, users, members, messages with their
edit history, interactions and their deadlines, synced commands) and answers one request at a
time with ``answer``: the in-process harness (``fakediscord.harness``) calls it from its
stand-in for discord.py's session and webhook adapter, the out-of-process server
(``fakediscord.server``) from its HTTP routes. No I/O here and no clock but ``time.monotonic``.
"""

from __future__ import annotations

import copy
import datetime
import json
import re
import time
import traceback
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import utils

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


@dataclass
class Slow:
    """An injected delay: the next ``times`` requests (REST, or an interaction's webhook)
    whose ``"METHOD /path"`` matches the regular expression ``route`` are answered (and
    applied) ``seconds`` later than the harness's latency alone would answer them."""

    route: str
    seconds: float
    times: int = 1
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        return self.hits < self.times and re.search(self.route, f"{method} {path}") is not None


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

    def __init__(self, harness: FakeDiscord, *, interaction_id: int, token: str, kind: int,
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
    def thawed(cls, harness: FakeDiscord, kept: tuple[Any, ...] | Reply) -> Reply:
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
# what Discord knows, and its answers
# --------------------------------------------------------------------------------------------


@dataclass
class Answer:
    """Discord's answer to one request: the HTTP status and the JSON body (None: no body)."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


class FakeDiscord:
    """What Discord knows, and its answer to each REST or interaction request.

    ``keep_payloads`` False (for load): requests are not kept (``sent`` stays empty;
    ``sent_log`` has a plain tuple per request), messages without their edit history, private
    answers and DMs as JSON text, each interaction's record likewise, so the model adds little
    to the heap the garbage collector walks.
    """

    def __init__(
        self,
        *,
        dms_closed: Iterable[int] = (),
        faults: Iterable[Fault] = (),
        keep_payloads: bool = True,
    ):
        self.keep_payloads = keep_payloads
        self.faults: list[Fault] = list(faults)
        self.slows: list[Slow] = []
        self.dms_closed: set[int] = {int(u) for u in dms_closed}
        #: scheduled events by id (issue 37); False: the bot lacks Create Events (403)
        self.scheduled_events: dict[int, dict[str, Any]] = {}
        self.events_allowed = True

        #: every request the bot made (with ``keep_payloads=False``: none, see ``sent_log``)
        self.sent: list[Sent] = []
        #: with ``keep_payloads=False``: (transport, method, path, at) of every request
        self.sent_log: list[tuple[str, str, str, float]] = []
        self.requests = 0  # how many requests the bot made
        self.errors: list[str] = []
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

        #: seconds added to the clock for Discord's interaction deadlines (3 s for the
        #: initial response, 15 minutes for the token): ``advance`` moves it
        self.skew = 0.0

        self._last_snowflake = 0
        self._seen_exc: set[int] = set()

    # ------------------------------------------------------------------ the one entry ----
    def answer(self, sent: Sent, body: Any) -> Answer:
        """Answer one recorded request (``sent.transport`` "http" for REST, "webhook" for the
        interaction endpoints) as Discord does: an injected fault, a Discord error, or the
        result. ``sent.done_at``, ``.error``, ``.response`` and ``.fault`` are set."""
        sent.done_at = time.monotonic()
        if sent.transport == "http":
            fault = next((f for f in self.faults if f.matches(sent.method, sent.path)), None)
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
                return Answer(fault.status, data, headers)
        handler = self._answer_http if sent.transport == "http" else self._answer_webhook
        try:
            result = handler(sent, sent.method, sent.path, body)
        except discord.HTTPException as e:
            sent.error = e
            return Answer(e.status, getattr(e, "_harness_body", {"code": e.code}))
        if self.keep_payloads:
            sent.response = copy.deepcopy(result)
        return Answer(200 if result is not None else 204, result)

    def cdn(self, url: str) -> bytes | None:
        """A CDN asset: an attachment the bot uploaded, or a 1x1 PNG for avatars and icons."""
        if url in self._cdn:
            return self._cdn[url]
        if "/avatars/" in url or "/embed/avatars/" in url or "/icons/" in url:
            return _PNG_1X1
        return None

    def _dispatch_gateway(self, event: str, data: dict[str, Any]) -> None:
        """A gateway event Discord sends the bot because of a request (a thread it created)."""

    def _reply_kept(self, token: str) -> Reply | tuple[Any, ...] | None:
        """The record of the interaction with this token, as kept (None: Discord never sent
        it, or forgot it)."""
        return self._replies.get(token)

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

    def close_dms(self, user: Mapping[str, Any] | int) -> None:
        self.dms_closed.add(self._uid(user))

    @staticmethod
    def _public_member(m: Mapping[str, Any]) -> dict[str, Any]:
        return {k: copy.deepcopy(v) for k, v in m.items() if not k.startswith("_harness")}

    def _snowflake(self) -> int:
        now = utils.time_snowflake(datetime.datetime.now(datetime.UTC))
        self._last_snowflake = max(now, self._last_snowflake + 1)
        return self._last_snowflake

    @staticmethod
    def _now() -> str:
        return datetime.datetime.now(datetime.UTC).isoformat()

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

    def _unknown(self, sent: Sent) -> HarnessError:
        err = HarnessError(
            f"harness has no answer for {sent.method} {sent.path} "
            f"json={json.dumps(sent.json)[:500]}"
        )
        self._record_error(str(err))
        return err

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass for Discord's interaction deadlines, without waiting."""
        self.skew += seconds

    def _age(self, sent: Sent, reply: Reply) -> float:
        """How old the interaction was when the bot made this request (harness clock)."""
        return sent.at + self.skew - reply.dispatched_at

    def slow(self, route: str, seconds: float, times: int = 1) -> Slow:
        """Answer the next matching REST request(s) ``seconds`` later; see ``Slow``."""
        slow = Slow(route, seconds, times)
        self.slows.append(slow)
        return slow

    def fail(self, route: str, status: int = 500, **kwargs: Any) -> Fault:
        """Answer the next matching REST request(s) with an error; see ``Fault``."""
        fault = Fault(route, status, **kwargs)
        self.faults.append(fault)
        return fault

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
        if match(r"/guilds/(\d+)/scheduled-events(?:/(\d+))?"):
            return self._scheduled_event(method, int(m.group(1)), m.group(2), body)
        if method == "POST" and match(r"/channels/(\d+)/typing"):
            return None
        if method == "PATCH" and match(r"/channels/(\d+)"):
            return self._edit_channel(int(m.group(1)), body)
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

    # Status changes Discord allows: scheduled -> active | canceled, active -> completed.
    _EVENT_MOVES = {(1, 2), (1, 4), (2, 3)}

    def _scheduled_event(self, method: str, guild_id: int, event: str | None, body: Any) -> Any:
        """Guild scheduled events as Discord keeps them: an EXTERNAL event (type 3)
        needs a location and an end time; COMPLETED and CANCELED are final."""
        if method in ("POST", "PATCH", "DELETE") and not self.events_allowed:
            raise _http_error(403, 50013, "Missing Permissions")
        if event is None:
            if method == "GET":
                return [copy.deepcopy(e) for e in self.scheduled_events.values()]
            if method != "POST":
                raise _http_error(405, 0, "405: Method Not Allowed")
            if int(body.get("entity_type") or 0) == 3 and not (
                (body.get("entity_metadata") or {}).get("location")
                and body.get("scheduled_end_time")
            ):
                raise _http_error(400, 50035, "Invalid Form Body")
            eid = self._snowflake()
            self.scheduled_events[eid] = {
                "id": str(eid), "guild_id": str(guild_id), "channel_id": None,
                "creator_id": str(APPLICATION_ID), "name": body["name"],
                "description": body.get("description"),
                "scheduled_start_time": body["scheduled_start_time"],
                "scheduled_end_time": body.get("scheduled_end_time"),
                "privacy_level": body.get("privacy_level", 2), "status": 1,
                "entity_type": body.get("entity_type", 3), "entity_id": None,
                "entity_metadata": body.get("entity_metadata"), "user_count": 0,
                "image": None,
            }  # fmt: skip
            return copy.deepcopy(self.scheduled_events[eid])
        kept = self.scheduled_events.get(int(event))
        if kept is None:
            raise _http_error(404, 10070, "Unknown Guild Scheduled Event")
        if method == "GET":
            return copy.deepcopy(kept)
        if method == "DELETE":
            del self.scheduled_events[int(event)]
            return None
        if method != "PATCH":
            raise _http_error(405, 0, "405: Method Not Allowed")
        status = int(body.get("status", kept["status"]))
        if status != kept["status"] and (kept["status"], status) not in self._EVENT_MOVES:
            raise _http_error(400, 180000, "Cannot update event status")
        if kept["status"] in (3, 4):
            raise _http_error(400, 180000, "Cannot update a finished event")
        for key in ("name", "description", "scheduled_start_time", "scheduled_end_time",
                    "entity_metadata"):  # fmt: skip
            if key in body:
                kept[key] = body[key]
        kept["status"] = status
        return copy.deepcopy(kept)

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

    def _edit_channel(self, channel_id: int, body: Mapping[str, Any]) -> dict[str, Any]:
        """A channel's or thread's edit: its name; a thread's archived flag and archive
        duration (locking takes Manage Threads, which the bot does not ask for)."""
        ch = self._channels.get(channel_id)
        if ch is None:
            raise _http_error(404, 10003, "Unknown Channel")
        if "locked" in body:
            raise _http_error(403, 50013, "Missing Permissions")
        if "name" in body:
            ch["name"] = body["name"]
        if ch["type"] == 11:
            meta = ch["thread_metadata"]
            if "auto_archive_duration" in body:
                meta["auto_archive_duration"] = body["auto_archive_duration"]
            if "archived" in body and bool(body["archived"]) != meta["archived"]:
                meta |= {"archived": bool(body["archived"]), "archive_timestamp": self._now()}
        self._dispatch_gateway("THREAD_UPDATE" if ch["type"] == 11 else "CHANNEL_UPDATE", ch)
        return self._channel_object(ch)

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

    def _answer_webhook(self, sent: Sent, method: str, path: str, body: Any) -> Any:
        m = re.fullmatch(r"/interactions/(\d+)/([^/]+)/callback", path)
        if m and method == "POST":
            kept = self._reply_kept(m.group(2))
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
        kept = self._reply_kept(m.group(2))
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


# --------------------------------------------------------------------------------------------
# interaction tokens that carry their interaction (for the out-of-process fake)
# --------------------------------------------------------------------------------------------


def token_for(reply: Reply) -> str:
    """An interaction token that tells Discord's side everything it needs of the interaction
    (who, where, which message, when it was dispatched: ``time.monotonic`` is system-wide), so
    the driver never has to announce an interaction to the server before dispatching it."""
    parts = (reply.interaction_id, reply.kind, reply.user_id, reply.channel_id,
             reply.guild_id or 0, reply.component_message_id or 0,
             round(reply.dispatched_at * 1_000_000))  # fmt: skip
    return "fake-" + "-".join(str(p) for p in parts)


def reply_from_token(model: FakeDiscord, token: str) -> Reply | None:
    """The record of a ``token_for`` interaction, new (None: not such a token)."""
    m = re.fullmatch(r"fake-(\d+)-(\d+)-(\d+)-(\d+)-(\d+)-(\d+)-(\d+)", token)
    if m is None:
        return None
    iid, kind, uid, channel, guild, message, at = (int(g) for g in m.groups())
    reply = Reply(model, interaction_id=iid, token=token, kind=kind, user_id=uid,
                  channel_id=channel, guild_id=guild or None,
                  component_message_id=message or None)  # fmt: skip
    reply.dispatched_at = at / 1_000_000
    return reply
