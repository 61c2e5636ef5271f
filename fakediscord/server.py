"""The fake Discord's REST side in its own process: an aiohttp.web server on the loopback.

    python -m fakediscord.server --port 0 [--latency LOW HIGH] [--seed N] [--light]

prints ``port N`` once it listens, then serves until its parent process ends. Under
``/api/v10`` it answers what discord.py asks of Discord's REST API (messages with multipart
attachments, DM channels, interaction callbacks with ``with_response``, followups and
``@original`` edits, command sync, the application and the bot user) with the model of
``fakediscord.model`` and Discord's rate limits of ``fakediscord.ratelimit``. Under
``/_fake`` a small control API lets the driver (``fakediscord.remote``) give it the guild's
channels and members and read what Discord would show: messages, interaction records, the
request log and the rate-limit counts.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import copy
import json
import os
import random
import re
import socket
import sys
import time
from typing import Any

from aiohttp import web

from fakediscord.model import FakeDiscord, Fault, Msg, Reply, reply_from_token
from fakediscord.ratelimit import RateLimits, exempt

API = "/api/v10"


class ServedDiscord(FakeDiscord):
    """The model as the server keeps it: interactions come from their tokens, gateway events
    the bot's requests cause wait for the driver to collect them."""

    def __init__(self, *, keep_payloads: bool = True) -> None:
        super().__init__(keep_payloads=keep_payloads)
        self.gateway_events: list[tuple[str, dict[str, Any]]] = []

    def _dispatch_gateway(self, event: str, data: dict[str, Any]) -> None:
        self.gateway_events.append((event, copy.deepcopy(data)))

    def _reply_kept(self, token: str) -> Reply | tuple[Any, ...] | None:
        kept = self._replies.get(token)
        if kept is None:
            reply = reply_from_token(self, token)
            if reply is not None:
                self._keep_reply(reply)
                kept = self._replies[token]
        return kept


def message_record(msg: Msg, *, files: bool = False) -> dict[str, Any]:
    """A message as the control API sends it (``remote.message_of`` reads it back)."""
    out: dict[str, Any] = {
        "payload": msg.payload,
        "visible_to": msg.visible_to,
        "interaction_token": msg.interaction_token,
        "deleted": msg.deleted,
        "history": msg.history,
        "packed": msg._json is not None,
    }
    if files:
        out["files"] = {name: base64.b64encode(data).decode() for name, data in msg.files.items()}
    return out


class Server:
    """The HTTP side: routes, request parsing, latency and the rate limiter."""

    def __init__(
        self, *, latency: tuple[float, float] = (0.0, 0.0), seed: int = 0, light: bool = False
    ) -> None:
        self.model = ServedDiscord(keep_payloads=not light)
        self.limits = RateLimits()
        self.latency = latency
        self.rng = random.Random(seed)
        #: (transport, method, path, arrival time, status) of every request that reached it
        self.log: list[tuple[str, str, str, float, int]] = []
        self.app = web.Application(client_max_size=64 * 1024 * 1024)
        self.app.router.add_route("*", API + "/{tail:.*}", self.rest)
        control = [
            ("POST", "/_fake/state", self.set_state),
            ("POST", "/_fake/advance", self.advance),
            ("GET", "/_fake/message/{id}", self.get_message),
            ("GET", "/_fake/messages", self.get_messages),
            ("GET", "/_fake/dms/{uid}", self.get_dm_channel),
            ("GET", "/_fake/channel/{id}", self.get_channel),
            ("GET", "/_fake/reply/{token}", self.get_reply),
            ("POST", "/_fake/replies", self.get_replies),
            ("GET", "/_fake/synced", self.get_synced),
            ("GET", "/_fake/log", self.get_log),
            ("GET", "/_fake/stats", self.get_stats),
            ("POST", "/_fake/drain", self.drain),
        ]
        for method, path, handler in control:
            self.app.router.add_route(method, path, handler)

    # ------------------------------------------------------------------------ REST ----
    @staticmethod
    async def _body(request: web.Request) -> tuple[Any, list[tuple[str, bytes]]]:
        """The JSON payload and the attached files (in ``files[n]`` order)."""
        if request.content_type.startswith("multipart/"):
            payload: Any = None
            files: list[tuple[int, str, bytes]] = []
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                name = part.name or ""  # type: ignore[union-attr]
                data = await part.read()  # type: ignore[union-attr]
                if name == "payload_json":
                    payload = json.loads(data)
                elif m := re.fullmatch(r"files\[(\d+)\]", name):
                    files.append((int(m.group(1)), part.filename or name, bytes(data)))  # type: ignore[union-attr]
            return payload, [(n, d) for _, n, d in sorted(files)]
        raw = await request.read()
        return (json.loads(raw) if raw else None), []

    async def rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        method = request.method
        arrived = time.monotonic()
        transport = "webhook" if exempt(path) else "http"
        body, files = await self._body(request)
        verdict = self.limits.check(method, path)
        if verdict.status:
            self.log.append((transport, method, path, arrived, verdict.status))
            return _json(verdict.body, verdict.status, verdict.headers)
        token = None
        if m := re.match(r"/(?:interactions|webhooks)/\d+/([^/]+)", path):
            token = m.group(1)
        sent = self.model._record(
            transport, method, path, body, files, dict(request.query) or None, token
        )
        low, high = self.latency
        await asyncio.sleep(self.rng.uniform(low, high) if high else 0)
        try:
            answer = self.model.answer(sent, body)
        except TimeoutError:
            answer_status, answer_body, headers = 504, {"code": 0, "message": "timeout"}, {}
        except AssertionError as e:  # an unknown route: the model recorded the error
            answer_status, answer_body, headers = 404, {"code": 0, "message": str(e)[:300]}, {}
        else:
            answer_status, answer_body, headers = answer.status, answer.body, answer.headers
        self.log.append((transport, method, path, arrived, answer_status))
        headers = verdict.headers | headers
        if answer_body is None:
            return web.Response(status=answer_status, headers=headers)
        return _json(answer_body, answer_status, headers)

    # --------------------------------------------------------------------- control ----
    async def set_state(self, request: web.Request) -> web.Response:
        """Channels, users, members, roles, closed DMs, faults and latency, as the driver
        knows them (merged into what the server has)."""
        state = await request.json()
        model = self.model
        if state.get("guild_id") is not None:
            model._guild_id = int(state["guild_id"])
        for cid, channel in (state.get("channels") or {}).items():
            known = model._channels.get(int(cid))
            model._channels[int(cid)] = channel | (
                {"last_message_id": known.get("last_message_id")} if known else {}
            )
            model._channel_msgs.setdefault(int(cid), [])
        for uid, user in (state.get("users") or {}).items():
            model._users[int(uid)] = user
        for uid, member in (state.get("members") or {}).items():
            model._members[int(uid)] = member
        for rid, role in (state.get("roles") or {}).items():
            model._roles[int(rid)] = role
        if "events_allowed" in state:
            model.events_allowed = bool(state["events_allowed"])
        if "dms_closed" in state:
            model.dms_closed = {int(u) for u in state["dms_closed"]}
        if "faults" in state:
            model.faults = [Fault(**f) for f in state["faults"]]
        if "latency" in state:
            self.latency = (float(state["latency"][0]), float(state["latency"][1]))
        return web.json_response({"ok": True})

    async def advance(self, request: web.Request) -> web.Response:
        self.model.advance(float((await request.json())["seconds"]))
        return web.json_response({"skew": self.model.skew})

    async def get_message(self, request: web.Request) -> web.Response:
        kept = self.model._msgs.get(int(request.match_info["id"]))
        if kept is None:
            return web.json_response(None, status=404)
        msg = Msg.thawed(kept)
        return web.json_response(message_record(msg, files="files" in request.query))

    async def get_messages(self, request: web.Request) -> web.Response:
        channel = int(request.query["channel"])
        ids = self.model._channel_msgs.get(channel, [])
        return web.json_response([message_record(self.model.message(i)) for i in ids])

    async def get_channel(self, request: web.Request) -> web.Response:
        channel = self.model._channels.get(int(request.match_info["id"]))
        return web.json_response(channel, status=200 if channel is not None else 404)

    async def get_dm_channel(self, request: web.Request) -> web.Response:
        return web.json_response(self.model._dm_channel_of.get(int(request.match_info["uid"])))

    async def get_reply(self, request: web.Request) -> web.Response:
        kept = self.model._replies.get(request.match_info["token"])
        if kept is None:
            return web.json_response(None, status=404)
        return web.json_response(_reply_record(self.model, kept))

    async def get_replies(self, request: web.Request) -> web.Response:
        tokens = (await request.json()).get("tokens")
        replies = self.model._replies
        wanted = tokens if tokens is not None else list(replies)
        return web.json_response(
            {t: _reply_record(self.model, replies[t]) for t in wanted if t in replies}
        )

    async def get_synced(self, request: web.Request) -> web.Response:
        model = self.model
        return web.json_response(
            {
                "synced": {"" if k is None else str(k): v for k, v in model.synced.items()},
                "ids": {"" if k is None else str(k): v for k, v in model._synced_ids.items()},
            }
        )

    async def get_log(self, request: web.Request) -> web.Response:
        since = int(request.query.get("since", 0))
        return web.json_response(self.log[since:])

    async def get_stats(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"counts": dict(self.limits.counts), "peak": self.limits.peak, "log": len(self.log)}
        )

    async def drain(self, request: web.Request) -> web.Response:
        """The errors the model recorded and the gateway events it caused, since last time."""
        errors, self.model.errors = self.model.errors, []
        events, self.model.gateway_events = self.model.gateway_events, []
        return web.json_response({"errors": errors, "events": events})


def _json(body: Any, status: int, headers: dict[str, str]) -> web.Response:
    # exactly "application/json", as Discord sends it: discord.py decodes nothing else
    headers = headers | {"Content-Type": "application/json"}
    return web.Response(body=json.dumps(body).encode(), status=status, headers=headers)


def _reply_record(model: FakeDiscord, kept: Reply | tuple[Any, ...]) -> list[Any]:
    frozen = list(Reply.thawed(model, kept).frozen())
    frozen[Reply.__slots__.index("sent") - 1] = []
    return frozen


async def serve(args: argparse.Namespace) -> None:
    server = Server(latency=tuple(args.latency), seed=args.seed, light=args.light)
    runner = web.AppRunner(server.app, access_log=None, handle_signals=True)
    await runner.setup()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    await web.SockSite(runner, sock, backlog=1024).start()
    print(f"port {sock.getsockname()[1]}", flush=True)
    parent = os.getppid()
    try:
        while os.getppid() == parent:  # the driver's process ended: so does Discord
            await asyncio.sleep(0.5)
    finally:
        await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: any free port (printed)")
    parser.add_argument(
        "--latency", type=float, nargs=2, default=(0.0, 0.0), metavar=("LOW", "HIGH"),
        help="seconds before each request is answered (uniform between LOW and HIGH)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="for the latency draws")
    parser.add_argument(
        "--light", action="store_true", help="keep no edit history or request bodies (load)"
    )
    args = parser.parse_args()
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
