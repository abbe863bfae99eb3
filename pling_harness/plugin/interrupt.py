"""A stopped run keeps what it found: SIGINT and SIGTERM end the run the way pytest's own
Ctrl-C does, so the session finish hooks still run and JUnit, JSON and HTML reports are
written for the checks that ran (the rest are reported "not run").

The first signal lets the check that is running finish (its browser closed, its servers
stopped, its outcome true), then the session stops as interrupted. A second one, later than
`SAME_STOP_WINDOW_S`, stops the check at once (KeyboardInterrupt where it is); once the
session is finishing (browser closing, reports being written) signals are let pass, and
`check` kills a pytest that has not ended `STOP_GRACE_S` after its signal. A terminal's
Ctrl-C reaches both `pling-tutorial check` and its pytest, and `check` passes it on too: two
copies of one stop a moment apart, so a signal inside that window is the same stop.

SIGTERM's default is to die on the spot (no report, the browser left to itself); and SIGINT
is handled even when pytest started with it ignored (a background job of a shell).
"""

from __future__ import annotations

import signal
import threading
import time
from types import FrameType

import pytest

PLUGIN_NAME = "pling-stop-on-signal"
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
SAME_STOP_WINDOW_S = 1.0
INTERRUPTED_BY = "interrupted by "
"""How `Session.shouldstop` and the KeyboardInterrupt of a stop begin (the report reads it)."""


def interrupted_reason(stop: BaseException) -> str | None:
    """The reason a report states for a run stopped by a signal or Ctrl-C, from the
    KeyboardInterrupt pytest ended with, or by `pytest.exit` (naming its message); None for a
    plugin's own early stop (a `session.shouldstop` such as --pling-stop-at-kill's), which
    is no interruption."""
    text = str(stop)
    if text.startswith(INTERRUPTED_BY):
        return text
    if isinstance(stop, pytest.Session.Interrupted):
        return None
    if isinstance(stop, pytest.exit.Exception):
        # `pytest.exit(...)`: a plugin refused the run (a page that cannot be checked); its
        # message says why, not a Ctrl-C nobody pressed.
        return f"{INTERRUPTED_BY}pytest.exit ({stop.msg})"
    return INTERRUPTED_BY + "KeyboardInterrupt"


class StopOnSignal:
    """Installs the handlers for the session and puts the previous ones back after it."""

    def __init__(self) -> None:
        self._session: pytest.Session | None = None
        self._first_at: float | None = None
        self._previous: dict[signal.Signals, object] = {}
        self._finishing = False

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers can only be set in the main thread (pytest.main in a thread)
        self._session = session
        for number in STOP_SIGNALS:
            self._previous[number] = signal.signal(number, self._on_signal)

    def pytest_keyboard_interrupt(self) -> None:
        self._finishing = True

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self._finishing = True

    def pytest_unconfigure(self) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)  # type: ignore[arg-type]
        self._previous.clear()

    def _on_signal(self, number: int, frame: FrameType | None) -> None:
        reason = INTERRUPTED_BY + signal.Signals(number).name
        now = time.monotonic()
        if self._first_at is None:
            self._first_at = now
            if self._session is not None:
                self._session.shouldstop = reason
                # Under pytest-xdist the controller's loop reads its own flag: the workers
                # then end their running checks and shut down.
                controller = self._session.config.pluginmanager.getplugin("dsession")
                if controller is not None:
                    controller.shouldstop = reason
            return
        if self._finishing or now - self._first_at < SAME_STOP_WINDOW_S:
            return
        raise KeyboardInterrupt(reason)
