"""What a stopped run says about the checks it cut off: SIGTERM or SIGINT lets the running
check finish, then the report names the stop and marks every check that did not end "not
run", never passed; a second signal, once the first is not its own echo, stops the check at
once. Small suites run by pytester (the signals in a subprocess of their own), and the
signal handler driven directly with a clock of the test's own."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pling_harness.plugin import interrupt
from pling_harness.plugin.interrupt import StopOnSignal, interrupted_reason
from pling_harness.plugin.report import SuiteReport

pytest_plugins = ["pytester"]

# A first check that passes, one that sends the signal from its body, and two after it.
STOPPED_SUITE = """
import os, signal
import pytest

@pytest.mark.guarantee("denial-respected")
def test_1_before():
    pass

@pytest.mark.guarantee("denial-respected")
def test_2_signalled():
    os.kill(os.getpid(), signal.SIG{name})
    assert True, "the body goes on to its end after the first signal"

@pytest.mark.guarantee("policy-table")
def test_3_after():
    pass

def test_4_after():
    pass
"""


def outcomes(path: Path) -> dict[str, str]:
    return {t.nodeid.split("::")[1]: t.outcome for t in SuiteReport.read(path).tests}


def test_ctrl_c_in_a_check_cuts_it_off_and_it_is_not_run(pytester: pytest.Pytester,
                                                         tmp_path: Path) -> None:
    pytester.makepyfile(test_ctrl_c="""
        import pytest

        @pytest.fixture
        def broken():
            raise RuntimeError("setup broke")

        def test_1_setup_broke(broken):
            pass

        @pytest.mark.skip(reason="not here")
        def test_2_skipped():
            pass

        @pytest.mark.guarantee("denial-respected")
        def test_3_cut_off():
            raise KeyboardInterrupt

        def test_4_never_reached():
            pass
    """)
    path = tmp_path / "report.json"

    # In this process: pytest-playwright's soft-assertion scope is one per process.
    result = pytester.runpytest("--pling-report", str(path), "-p", "no:cacheprovider",
                                "-p", "no:playwright", no_reraise_ctrlc=True)

    assert result.ret == pytest.ExitCode.INTERRUPTED
    # The checks whose outcome was known before the stop keep it.
    assert outcomes(path) == {"test_1_setup_broke": "error", "test_2_skipped": "skipped",
                              "test_3_cut_off": "not run", "test_4_never_reached": "not run"}
    report = SuiteReport.read(path)
    assert report.interrupted == "interrupted by KeyboardInterrupt"
    assert all(t.failure is None for t in report.tests if t.outcome == "not run")


def test_interrupted_reason_names_the_stop_and_ignores_a_plugins_early_stop() -> None:
    assert interrupted_reason(KeyboardInterrupt("interrupted by SIGTERM")) == (
        "interrupted by SIGTERM")
    assert interrupted_reason(pytest.Session.Interrupted("stop at the first kill")) is None
    assert interrupted_reason(pytest.exit.Exception("no dock", returncode=2)) == (
        "interrupted by pytest.exit (no dock)")
    assert interrupted_reason(KeyboardInterrupt()) == "interrupted by KeyboardInterrupt"


@dataclass
class Clock:
    now: float = 100.0

    def monotonic(self) -> float:
        return self.now


@dataclass
class Controller:
    """What the handler sees of pytest-xdist's controller (`dsession`)."""

    shouldstop: str | bool = False


@dataclass
class PluginManager:
    controller: Controller | None

    def getplugin(self, name: str) -> Controller | None:
        return self.controller if name == "dsession" else None


@dataclass
class Config:
    pluginmanager: PluginManager


@dataclass
class Session:
    config: Config
    shouldstop: str | bool = False


@dataclass
class Stopper:
    handler: StopOnSignal = field(default_factory=StopOnSignal)
    session: Session = field(default_factory=lambda: Session(Config(PluginManager(None))))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(interrupt, "time", clock)
    return clock


@pytest.fixture
def stopper() -> Iterator[Stopper]:
    """A StopOnSignal whose handlers are installed for the test and put back after it."""
    stopper = Stopper()
    stopper.handler.pytest_sessionstart(stopper.session)  # type: ignore[arg-type]
    yield stopper
    stopper.handler.pytest_unconfigure()


def test_the_session_installs_its_handlers_and_puts_the_previous_ones_back() -> None:
    previous = {number: signal.getsignal(number) for number in interrupt.STOP_SIGNALS}
    handler = StopOnSignal()

    handler.pytest_sessionstart(Session(Config(PluginManager(None))))  # type: ignore[arg-type]
    installed = {number: signal.getsignal(number) for number in interrupt.STOP_SIGNALS}
    handler.pytest_unconfigure()

    assert set(interrupt.STOP_SIGNALS) == {signal.SIGINT, signal.SIGTERM}
    assert all(h == handler._on_signal for h in installed.values()), installed
    assert {number: signal.getsignal(number) for number in interrupt.STOP_SIGNALS} == previous


def test_a_session_outside_the_main_thread_installs_nothing() -> None:
    before = signal.getsignal(signal.SIGTERM)
    handler = StopOnSignal()
    thread = threading.Thread(target=handler.pytest_sessionstart,
                              args=(Session(Config(PluginManager(None))),))
    thread.start()
    thread.join()

    assert signal.getsignal(signal.SIGTERM) == before
    handler._on_signal(signal.SIGTERM, None)  # no session to stop: nothing happens


def test_the_first_signal_asks_the_session_and_xdists_controller_to_stop(clock: Clock) -> None:
    controller = Controller()
    session = Session(Config(PluginManager(controller)))
    handler = StopOnSignal()
    handler.pytest_sessionstart(session)  # type: ignore[arg-type]
    try:
        handler._on_signal(signal.SIGTERM, None)
    finally:
        handler.pytest_unconfigure()

    assert session.shouldstop == controller.shouldstop == "interrupted by SIGTERM"


def test_a_second_signal_within_the_window_is_the_same_stop(stopper: Stopper,
                                                            clock: Clock) -> None:
    stopper.handler._on_signal(signal.SIGINT, None)
    clock.now += 0.5  # a terminal's Ctrl-C reaches check and its pytest a moment apart

    stopper.handler._on_signal(signal.SIGINT, None)  # does not raise

    assert stopper.session.shouldstop == "interrupted by SIGINT"


def test_a_second_signal_after_the_window_stops_the_check_at_once(stopper: Stopper,
                                                                  clock: Clock) -> None:
    stopper.handler._on_signal(signal.SIGTERM, None)
    clock.now += 1.5  # a person pressing Ctrl-C again

    with pytest.raises(KeyboardInterrupt, match=r"^interrupted by SIGINT$"):
        stopper.handler._on_signal(signal.SIGINT, None)


@pytest.mark.parametrize("finishing", ["pytest_sessionfinish", "pytest_keyboard_interrupt"])
def test_a_second_signal_while_the_session_finishes_is_let_pass(
    stopper: Stopper, clock: Clock, finishing: str
) -> None:
    stopper.handler._on_signal(signal.SIGTERM, None)
    getattr(stopper.handler, finishing)()
    clock.now += 60.0

    stopper.handler._on_signal(signal.SIGTERM, None)  # does not raise


def test_signals_while_the_session_finishes_never_stop_the_plugins_finishing_it(
    pytester: pytest.Pytester, clock: Clock, tmp_path: Path
) -> None:
    # A plugin registered after the stop handler (as the report writer is) gets two stops a
    # window apart while it finishes the session: it must still finish, and so the run.
    pytester.makeconftest("""
        import os, signal
        import pytest
        from pling_harness.plugin import interrupt

        class Finisher:
            def pytest_sessionfinish(self):
                try:
                    os.kill(os.getpid(), signal.SIGTERM)
                    interrupt.time.now += 60.0
                    os.kill(os.getpid(), signal.SIGTERM)
                except KeyboardInterrupt as stop:  # kept here: it would stop this test too
                    open("stopped", "w").write(str(stop))
                open("finished", "w").close()

        @pytest.hookimpl(trylast=True)
        def pytest_configure(config):
            config.pluginmanager.register(Finisher())
    """)
    pytester.makepyfile(test_one="def test_a():\n    pass\n")

    result = pytester.runpytest("-p", "no:playwright", "-p", "no:cacheprovider",
                                "--pling-report", str(tmp_path / "r.json"))

    assert not (pytester.path / "stopped").exists()
    assert result.ret == pytest.ExitCode.OK and (pytester.path / "finished").is_file()
    assert SuiteReport.read(tmp_path / "r.json").tests[0].outcome == "passed"


# ---- real signals, each run in a pytest process of its own (slower: last) ----


@pytest.mark.parametrize("name", ["TERM", "INT"])
def test_a_signal_lets_the_running_check_end_and_marks_the_rest_not_run(
    pytester: pytest.Pytester, tmp_path: Path, name: str
) -> None:
    pytester.makepyfile(test_stopped=STOPPED_SUITE.format(name=name))
    path = tmp_path / "report.json"

    result = pytester.runpytest_subprocess("--pling-report", str(path), "-p",
                                           "no:cacheprovider")

    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert outcomes(path) == {"test_1_before": "passed", "test_2_signalled": "passed",
                              "test_3_after": "not run", "test_4_after": "not run"}
    report = SuiteReport.read(path)
    assert report.interrupted == f"interrupted by SIG{name}"
    assert report.guarantee_outcomes() == {("denial-respected", "-"): "passed",
                                           ("policy-table", "-"): "not run"}


def test_a_run_without_a_signal_is_not_interrupted(pytester: pytest.Pytester,
                                                   tmp_path: Path) -> None:
    pytester.makepyfile(test_quiet="def test_a():\n    pass\n")
    path = tmp_path / "report.json"

    pytester.runpytest_subprocess("--pling-report", str(path), "-p", "no:cacheprovider")

    assert SuiteReport.read(path).interrupted is None
