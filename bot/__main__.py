"""``python -m bot``: catch the stop signals first, then run the bot (bot/run.py) or a command.

SIGTERM (``docker stop``) and SIGINT (Ctrl-C) are caught before anything slow is imported.
As PID 1 in a container, Python drops every signal it has no handler for, so a stop that
arrived during the imports, the database check or the migration used to be lost, and
``docker stop`` waited out its grace period and killed the bot (exit 137). Until the event
loop takes the signals over (``run.run_until_signal``), a stop signal raises ``Stopped``
wherever start-up is; nothing has been written by then, and the process exits 0.

Only the standard library's light modules are imported here, at the top.
"""

from __future__ import annotations

import logging
import signal
import sys
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"  # bot/logs.py's TEXT_FORMAT


class Stopped(BaseException):
    """A stop signal before the event loop took the signals over.

    A BaseException, as KeyboardInterrupt is: no ``except Exception`` of a library being
    imported may swallow it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signal = signal.Signals(signum)


def _raise_stopped(signum: int, frame: FrameType | None) -> None:
    # A second signal while this one unwinds gets the default action: Ctrl-C twice
    # forces the exit, as it does for any program.
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    raise Stopped(signum)


def catch_stop_signals() -> None:
    """From now until the event loop's handlers replace it, a stop signal raises Stopped."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, _raise_stopped)


def main() -> int:
    catch_stop_signals()
    command = sys.argv[1:]
    try:
        if command:  # migrate, export, copy-sqlite-to-postgres (bot/operations.py)
            from bot import operations

            # A command keeps Python's usual signals: Ctrl-C is KeyboardInterrupt.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            return operations.run(command)
        # The level is the default until the settings are read (bot/run.py sets it).
        logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
        from bot import run

        return run.main()
    except Stopped as stop:
        if command:
            print(f"stopped by {stop.signal.name}", file=sys.stderr)
            return 128 + stop.signal
        logging.getLogger("bot").info("received %s during start-up: stopped", stop.signal.name)
        return 0


if __name__ == "__main__":
    sys.exit(main())
