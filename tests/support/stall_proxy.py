"""A TCP proxy on 127.0.0.1 to the test PostgreSQL's Unix socket that can go silent.

``stall()`` makes the connections open at that moment stop forwarding, in one or both
directions, without closing either side: to both ends it looks like a half-open TCP
connection (the network or the server vanished without a reset). Bytes read meanwhile
are held, and an end that closes is not told to the other, until ``heal()``. With
``new=True`` connections opened later are stalled from the start too (nothing gets
through at all). Loopback only: the proxy listens on 127.0.0.1 and forwards to the
socket ``scripts/with-postgres.sh`` made.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

POLL = 0.005  # seconds between looks at a stalled direction


@dataclass
class Link:
    """One proxied connection: which directions are stalled."""

    to_server: bool = False
    to_client: bool = False
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    writers: list[asyncio.StreamWriter] = field(default_factory=list)


class StallProxy:
    def __init__(self, socket_path: str) -> None:
        self.socket_path = socket_path
        self.links: list[Link] = []
        self.stall_new = False
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def stall(self, *, to_server: bool = True, to_client: bool = True, new: bool = False) -> None:
        for link in self.links:
            link.to_server |= to_server
            link.to_client |= to_client
        self.stall_new = new

    def heal(self) -> None:
        self.stall_new = False
        for link in self.links:
            link.to_server = link.to_client = False

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        link = Link(to_server=self.stall_new, to_client=self.stall_new)
        self.links.append(link)
        server_r, server_w = await asyncio.open_unix_connection(self.socket_path)
        link.writers += [client_w, server_w]
        link.tasks += [
            asyncio.create_task(self._pump(client_r, server_w, link, "to_server")),
            asyncio.create_task(self._pump(server_r, client_w, link, "to_client")),
        ]

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, link: Link, way: str
    ) -> None:
        with contextlib.suppress(ConnectionError):
            while True:
                data = await reader.read(65536)
                while getattr(link, way):  # silent: hold what came, EOF included
                    await asyncio.sleep(POLL)
                if not data:
                    break
                writer.write(data)
                await writer.drain()
        writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for link in self.links:
            for task in link.tasks:
                task.cancel()
            for writer in link.writers:
                writer.close()
        await asyncio.gather(
            *(t for link in self.links for t in link.tasks), return_exceptions=True
        )


def through(url: str, port: int) -> str:
    """``url`` (a Unix-socket URL of the test server) sent to 127.0.0.1:``port`` instead."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "host"]
    netloc = parts.netloc.split("@", 1)[0] + f"@127.0.0.1:{port}"
    return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query)))


def socket_of(url: str) -> str:
    """The Unix socket file of a ``?host=/dir`` URL (PostgreSQL's default port)."""
    host = dict(parse_qsl(urlsplit(url).query))["host"]
    port = urlsplit(url).port or 5432
    return f"{host}/.s.PGSQL.{port}"


@contextlib.asynccontextmanager
async def stall_proxy(url: str) -> AsyncIterator[tuple[str, StallProxy]]:
    """A running proxy to ``url``'s server, and ``url`` through it."""
    proxy = StallProxy(socket_of(url))
    await proxy.start()
    try:
        yield through(url, proxy.port), proxy
    finally:
        await proxy.close()
