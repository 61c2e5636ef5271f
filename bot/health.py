"""``python -m bot.health``: ask the running bot's ``/healthz`` (the container's HEALTHCHECK).

Reads the same settings as the bot (environment, ``.env``): the port is ``METRICS_PORT``,
the address ``METRICS_HOST`` (an any-address bind is asked on the loopback). Exit 0 and the
answer's line when healthy; else exit 1 and one line saying why. ``--ready`` asks
``/readyz`` instead. Only the standard library talks HTTP here, never through a proxy.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
import urllib.error
import urllib.request

from bot.settings import SettingsError, load_settings


def url_of(host: str, port: int, path: str) -> str:
    """The URL to probe a bot bound to ``host``: any-address binds are asked locally."""
    address = ipaddress.ip_address(host)
    if address.is_unspecified:
        address = ipaddress.ip_address("::1" if address.version == 6 else "127.0.0.1")
    shown = f"[{address}]" if address.version == 6 else str(address)
    return f"http://{shown}:{port}{path}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.health", description=__doc__)
    parser.add_argument("--ready", action="store_true", help="ask /readyz instead of /healthz")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait (5)")
    args = parser.parse_args(argv)
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if settings.metrics_port is None:
        print("error: METRICS_PORT is not set: the bot serves no health endpoint", file=sys.stderr)
        return 1
    path = "/readyz" if args.ready else "/healthz"
    url = url_of(settings.metrics_host, settings.metrics_port, path)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=args.timeout) as response:
            print(response.read().decode(errors="replace").strip())
            return 0
    except urllib.error.HTTPError as exc:
        print(exc.read().decode(errors="replace").strip() or f"HTTP {exc.code}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        print(f"error: no answer from {url} ({reason})", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
