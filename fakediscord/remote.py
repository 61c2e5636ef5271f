"""The harness against the out-of-process fake Discord: the bot talks real HTTP to a child server.

``RemoteHarness`` is a ``DiscordHarness`` whose REST side is ``python -m fakediscord.server``
in its own process. discord.py is pointed at it through ``discord.http.Route.BASE`` (which its
webhook adapter, the path of every interaction response, followup and ``@original`` edit,
uses too) and talks to it with its own aiohttp session and real JSON, so discord.py's
rate-limit handling meets Discord's headers and 429s. The gateway side stays in this process:
READY, GUILD_CREATE and INTERACTION_CREATE are fed to ``bot._connection.parsers`` as a
websocket frame would be. Reads of what Discord shows (``message``, ``messages``,
``reply_for``) ask the server's control API; ``fetch_message``/``fetch_reply``/``fetch_log`` do
so without blocking the loop (for the benchmark).

    async with RemoteHarness(make_bot(path)) as h:
        await h.connect(GUILD, [TABLE], PLAYERS)
        reply = await h.slash(ALICE, TABLE, "a6-draw open")
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import json
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import aiohttp
from discord.ext import commands
from discord.http import Route

from fakediscord.harness import _ACTIVE, TOKEN, DiscordHarness
from fakediscord.model import HarnessError, Msg, Reply, token_for

__all__ = ["FakeDiscordServer", "RemoteHarness"]


class FakeDiscordServer:
    """``python -m fakediscord.server`` as a child process on a free loopback port."""

    def __init__(
        self,
        *,
        latency: tuple[float, float] = (0.0, 0.0),
        seed: int = 0,
        light: bool = False,
        cpus: set[int] | None = None,
    ) -> None:
        self.latency, self.seed, self.light = latency, seed, light
        self.cpus = cpus  # the CPUs the server may run on (None: any)
        self.port: int | None = None
        self._proc: asyncio.subprocess.Process | None = None

    @property
    def pid(self) -> int:
        assert self._proc is not None, "the server is not running"
        return self._proc.pid

    @property
    def url(self) -> str:
        assert self.port is not None, "the server is not running"
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        args = ["-m", "fakediscord.server", "--port", "0", "--seed", str(self.seed)]
        args += ["--latency", str(self.latency[0]), str(self.latency[1])]
        if self.light:
            args.append("--light")
        root = str(Path(__file__).resolve().parent.parent)  # where fakediscord is importable
        path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable, *args, stdout=asyncio.subprocess.PIPE,
            env=os.environ | {"PYTHONPATH": path},
        )  # fmt: skip
        assert self._proc.stdout is not None
        if self.cpus:  # e.g. a core of its own, as Discord is on other machines
            os.sched_setaffinity(self._proc.pid, self.cpus)
        line = await asyncio.wait_for(self._proc.stdout.readline(), timeout=30)
        if not line.startswith(b"port "):
            raise RuntimeError(f"the fake Discord server did not start: {line!r}")
        self.port = int(line.split()[1])

    async def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.returncode is not None:
            return
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), timeout=10)
        except TimeoutError:
            proc.kill()
            await proc.wait()


def message_of(record: Mapping[str, Any]) -> Msg:
    """A message as the control API sent it (``server.message_record``)."""
    msg = Msg(
        record["payload"],
        visible_to=record["visible_to"],
        interaction=record["interaction_token"],
        packed=False,
    )
    msg.deleted = record["deleted"]
    if record["history"]:
        msg._history = list(record["history"])
    msg.files = {n: base64.b64decode(d) for n, d in (record.get("files") or {}).items()}
    return msg


class RemoteHarness(DiscordHarness):
    """``DiscordHarness`` with the REST side in a child process (see the module docstring).

    ``latency`` and ``faults`` apply on the server; ``sent`` stays empty here (the server's
    request log is ``fetch_log``); ``limits()`` has the rate limiter's counts.
    """

    def __init__(
        self,
        bot: commands.Bot,
        *,
        latency: float | tuple[float, float] = 0.0,
        latency_seed: int = 0,
        keep_payloads: bool = True,
        server_cpus: set[int] | None = None,
        **kwargs: Any,
    ) -> None:
        self._control: aiohttp.ClientSession | None = None
        self._running = False
        super().__init__(bot, latency_seed=latency_seed, keep_payloads=keep_payloads, **kwargs)
        self.server = FakeDiscordServer(
            seed=latency_seed, light=not keep_payloads, cpus=server_cpus
        )
        self.latency = latency

    # ------------------------------------------------------------- the control API ----
    @property  # type: ignore[override]
    def latency(self) -> float | tuple[float, float]:
        return self._latency

    @latency.setter
    def latency(self, value: float | tuple[float, float]) -> None:
        self._latency = value
        if getattr(self, "_running", False):
            self._post_now("/_fake/state", {"latency": self._latency_pair()})

    def _latency_pair(self) -> list[float]:
        value = self._latency
        low, high = value if isinstance(value, tuple) else (value, value)
        return [float(low), float(high)]

    def _call_now(self, method: str, path: str, body: Any = None) -> Any:
        """A blocking control call (for the synchronous reads the tests make)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.server.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as e:
            if e.code == 404:
                return None
            raise

    def _post_now(self, path: str, body: Any) -> Any:
        return self._call_now("POST", path, body)

    async def _call(self, method: str, path: str, body: Any = None) -> Any:
        assert self._control is not None
        async with self._control.request(method, self.server.url + path, json=body) as answer:
            if answer.status == 404:
                return None
            answer.raise_for_status()
            return await answer.json()

    def _state(self) -> dict[str, Any]:
        return {
            "guild_id": self._guild_id,
            "channels": {str(k): v for k, v in self._channels.items() if v.get("type") != 1},
            "users": {str(k): v for k, v in self._users.items()},
            "members": {str(k): v for k, v in self._members.items()},
            "roles": {str(k): v for k, v in self._roles.items()},
            "dms_closed": sorted(self.dms_closed),
            "faults": [dataclasses.asdict(f) for f in self.faults],
            "latency": self._latency_pair(),
        }

    def _push_now(self) -> None:
        if self._running:
            self._post_now("/_fake/state", self._state())

    # ------------------------------------------------------------------- lifecycle ----
    async def __aenter__(self) -> RemoteHarness:
        if _ACTIVE:
            raise HarnessError("only one DiscordHarness may be active at a time")
        _ACTIVE.append(self)
        self._loop = loop = asyncio.get_running_loop()
        try:
            await self.server.start()
            self._control = aiohttp.ClientSession()
            self._running = True
            self._patch(Route, "BASE", self.server.url + "/api/v10")
            self._install_task_tracking(loop)
            self._install_log_capture()
            self._attach(self.bot)
        except BaseException:
            await self._close_server()
            self._uninstall()
            raise
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            await self._shutdown_bot()
            with contextlib.suppress(Exception):
                await self._drain()
        finally:
            await self._close_server()
            self._uninstall()
        if exc_type is None and self.errors:
            errors, self.errors = self.errors, []
            raise HarnessError("errors were collected during the test", errors=errors)

    async def _close_server(self) -> None:
        self._running = False
        if self._control is not None:
            await self._control.close()
            self._control = None
        await self.server.stop()

    def _attach(self, bot: commands.Bot) -> None:
        super()._attach(bot)
        # the real request path: no recorder in front of discord.py's session
        del bot.http.request
        del bot.http.get_from_cdn

    async def _login(self) -> None:
        await self._call("POST", "/_fake/state", self._state())
        await self.bot.login(TOKEN)
        synced = await self._call("GET", "/_fake/synced")
        if self.auto_sync and not synced["synced"]:
            await self.bot.tree.sync()
            synced = await self._call("GET", "/_fake/synced")
        self.synced = {(int(k) if k else None): v for k, v in synced["synced"].items()}
        self._synced_ids = {(int(k) if k else None): v for k, v in synced["ids"].items()}
        self._wrap_tree_on_error()
        self._logged_in = True

    # ------------------------------------------------- what the driver changes here ----
    def add_member(self, member_or_user: Mapping[str, Any]) -> dict[str, Any]:
        member = super().add_member(member_or_user)
        if self._logged_in:  # before, the login gives the server everyone at once
            self._push_now()
        return member

    def close_dms(self, user: Mapping[str, Any] | int) -> None:
        super().close_dms(user)
        self._push_now()

    def advance(self, seconds: float) -> None:
        super().advance(seconds)
        self._post_now("/_fake/advance", {"seconds": seconds})

    def fail(self, route: str, status: int = 500, **kwargs: Any) -> Any:
        fault = super().fail(route, status, **kwargs)
        self._push_now()
        return fault

    def _interaction_payload(self, itype: int, user: Any, channel_id: int,
                             data: dict[str, Any], message: Msg | None = None
                             ) -> tuple[dict[str, Any], Reply]:  # fmt: skip
        if int(channel_id) not in self._channels:  # a DM channel the bot opened on the server
            channel = self._call_now("GET", f"/_fake/channel/{int(channel_id)}")
            if channel is not None:
                self._channels[int(channel_id)] = channel
        payload, reply = super()._interaction_payload(itype, user, channel_id, data, message)
        reply.dispatched_at = time.monotonic()  # the token carries it to the server
        reply.token = payload["token"] = token_for(reply)
        return payload, reply

    def send_click(
        self, user: Mapping[str, Any] | int, message: Msg | Reply | int, custom_id: str
    ) -> Reply:
        """Like ``click`` without settling; a ``Msg`` (say, just read with ``fetch_message``)
        is clicked as it is given, without reading it again (which would block the loop)."""
        if not isinstance(message, Msg):
            return super().send_click(user, message, custom_id)
        uid = self._uid(user)
        self._component_check(uid, message, custom_id, 2)
        data = {"custom_id": custom_id, "component_type": 2}
        payload, reply = self._interaction_payload(3, uid, message.channel_id, data, message)
        self._forget_done_tasks()
        return self._dispatch_now(payload, reply)

    def _dispatch_now(self, payload: dict[str, Any], reply: Reply) -> Reply:
        self._raise_errors("before dispatch")
        self._keep_reply(reply)  # until the server has its own record of it
        self.bot._connection.parsers["INTERACTION_CREATE"](payload)
        return reply

    async def settle(self, timeout: float | None = None) -> None:
        await super().settle(timeout)
        while await self._drain():
            await super().settle(timeout)

    async def _drain(self) -> bool:
        """Take the server's recorded errors, and feed the gateway events it caused."""
        drained = await self._call("POST", "/_fake/drain", {})
        for error in drained["errors"]:
            self._record_error(f"fake Discord server: {error}")
        for event, data in drained["events"]:
            self._dispatch_gateway(event, data)
        return bool(drained["events"])

    # ---------------------------------------------------------- what Discord shows ----
    def message(self, message_id: int) -> Msg:
        record = self._call_now("GET", f"/_fake/message/{int(message_id)}?files=1")
        if record is None:
            raise HarnessError(f"unknown message {message_id}")
        return message_of(record)

    def messages(self, channel_id: int, *, include_ephemeral: bool = True) -> list[Msg]:
        records = self._call_now("GET", f"/_fake/messages?channel={int(channel_id)}")
        out = [message_of(r) for r in records or ()]
        return [m for m in out if not m.deleted and (include_ephemeral or not m.ephemeral)]

    def dms(self, user: Mapping[str, Any] | int) -> list[Msg]:
        cid = self._call_now("GET", f"/_fake/dms/{self._uid(user)}")
        return self.messages(cid) if cid is not None else []

    def _thaw(self, record: list[Any] | None, token: str) -> Reply:
        if record is None:  # the bot never answered it: Discord has no record
            return super().reply_for(token)
        record[Reply.__slots__.index("followup_ids") - 1] = tuple(
            record[Reply.__slots__.index("followup_ids") - 1]
        )
        return Reply.thawed(self, tuple(record))

    def reply_for(self, token: str) -> Reply:
        return self._thaw(self._call_now("GET", f"/_fake/reply/{token}"), token)

    def replies(self) -> list[Reply]:
        records = self._call_now("POST", "/_fake/replies", {})
        return [self._thaw(r, t) for t, r in records.items()]

    async def fetch_message(self, message_id: int) -> Msg:
        record = await self._call("GET", f"/_fake/message/{int(message_id)}")
        if record is None:
            raise HarnessError(f"unknown message {message_id}")
        return message_of(record)

    async def fetch_reply(self, token: str) -> Reply:
        return self._thaw(await self._call("GET", f"/_fake/reply/{token}"), token)

    async def fetch_replies(self, tokens: Iterable[str]) -> list[Reply]:
        tokens = list(tokens)
        records = await self._call("POST", "/_fake/replies", {"tokens": tokens})
        return [self._thaw(records.get(t), t) for t in tokens]

    async def fetch_log(self, since: int = 0) -> list[tuple[str, str, str, float, int]]:
        return [tuple(e) for e in await self._call("GET", f"/_fake/log?since={since}")]  # type: ignore[misc]

    async def limits(self) -> dict[str, Any]:
        """The rate limiter's counts (``global 429``, ``route 429``, ``limited``, ``exempt``)
        and ``peak``: the most global-limited requests it let through within one second."""
        return await self._call("GET", "/_fake/stats")  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"<RemoteHarness {self.server.url if self.server.port else '(stopped)'}>"
