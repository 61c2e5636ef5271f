"""Loaded by a child ``python`` whose PYTHONPATH starts with this folder: no network at all.

Every name lookup and every TCP/UDP connection to an address outside 127.0.0.0/8 and ::1
is stopped and written to the file named by ``NETGUARD_LOG`` (one line each), so a test
can prove that the program tried and was stopped. ``NETGUARD_SINK=PORT`` resolves every
outside name to 127.0.0.1:PORT instead of refusing it (a local listener that never
answers: the program waits as on a dead network, until it is stopped).
"""

from __future__ import annotations

import ipaddress
import os
import socket

_LOG = os.environ.get("NETGUARD_LOG", "")
_SINK = os.environ.get("NETGUARD_SINK", "")
_real_getaddrinfo = socket.getaddrinfo
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _note(what: str) -> None:
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as fh:
            fh.write(what + "\n")


def _local(host: object) -> bool:
    if host in (None, "localhost"):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def getaddrinfo(host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
    if _local(host):
        return _real_getaddrinfo(host, port, *args, **kwargs)
    if _SINK:
        _note(f"lookup {host}:{port} -> sink")
        return _real_getaddrinfo("127.0.0.1", int(_SINK), socket.AF_INET, socket.SOCK_STREAM)
    _note(f"lookup {host}:{port} refused")
    raise socket.gaierror(socket.EAI_NONAME, f"netguard: no network in tests ({host})")


def _guard(sock: socket.socket, address: tuple[object, ...] | str) -> None:
    inet = sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple)
    if inet and not _local(address[0]):
        _note(f"connect {address[0]}:{address[1]} refused")
        raise ConnectionRefusedError(f"netguard: no network in tests ({address[0]})")


def connect(sock, address):  # type: ignore[no-untyped-def]
    _guard(sock, address)
    return _real_connect(sock, address)


def connect_ex(sock, address):  # type: ignore[no-untyped-def]
    _guard(sock, address)
    return _real_connect_ex(sock, address)


socket.getaddrinfo = getaddrinfo
socket.socket.connect = connect  # type: ignore[method-assign]
socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
_note("armed")
