"""`pling-tutorial dev`: serve a tutorial until Ctrl-C; usage problems are one line, exit 2."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from pling_harness.cli.main import main
from pling_harness.cli.usage import wait_for_ctrl_c

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

ONE_LINE_ERROR = re.compile(r"^pling-tutorial: error: [^\n]+\n$")


def test_cli_dev_unknown_tutorial_exits_2_naming_it_and_the_fix(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["dev", "r-99"]) == 2

    err = capsys.readouterr().err
    assert ONE_LINE_ERROR.match(err)
    assert "'r-99'" in err
    assert "pling-tutorial list" in err


def test_cli_dev_bad_locale_exits_2_naming_it_and_the_choices(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["dev", "r-15", "--locale", "fr"]) == 2

    err = capsys.readouterr().err
    assert ONE_LINE_ERROR.match(err)
    assert "'fr'" in err
    assert "--locale" in err
    assert "zh, en" in err


def test_cli_dev_busy_port_exits_2_naming_port_and_the_fix(
    capsys: pytest.CaptureFixture[str], busy_port: int
) -> None:
    assert main(["dev", "r-15", "--port", str(busy_port)]) == 2

    err = capsys.readouterr().err
    assert ONE_LINE_ERROR.match(err)
    assert f"port {busy_port}" in err
    assert "--port N" in err


@pytest.mark.parametrize("port", ["-1", "65536", "http"])
def test_cli_dev_bad_port_exits_2(capsys: pytest.CaptureFixture[str], port: str) -> None:
    assert main(["dev", "r-15", "--port", port]) == 2

    assert "is not a port number" in capsys.readouterr().err


def test_cli_dev_misconfigured_provider_exits_2_naming_the_variable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLING_MODEL_PROVIDER", "openai")
    monkeypatch.delenv("PLING_MODEL_BASE_URL", raising=False)

    assert main(["dev", "r-15", "--port", "0"]) == 2

    err = capsys.readouterr().err
    assert ONE_LINE_ERROR.match(err)
    assert "PLING_MODEL_BASE_URL" in err


def run_dev_until_ctrl_c(*args: str) -> tuple[str, dict[str, object], int, str]:
    """Run `dev` in a child process, read its address, call the API, press Ctrl-C.

    Returns the first line printed, the workspace the API reported, the exit code, and
    everything printed after.
    """
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PLING_MODEL_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "pling_harness.cli.main", "dev", "r-15", *args],
        cwd=PROJECT_ROOT, env=environ, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        assert process.stdout is not None
        first_line = process.stdout.readline()  # returns once the server is up, or at exit
        found = re.search(r"http://127\.0\.0\.1:\d+", first_line)
        assert found, first_line
        workspace = httpx.get(f"{found.group(0)}/api/workspace").json()
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return first_line, workspace, process.returncode, rest


def test_cli_dev_serves_the_page_address_until_ctrl_c_then_exits_0() -> None:
    first_line, workspace, code, rest = run_dev_until_ctrl_c("--locale", "en", "--port", "0")

    assert re.search(r"at http://127\.0\.0\.1:\d+/\?lang=en$", first_line.strip())
    assert workspace["name"] == "Northwind"
    assert code == 0, rest
    assert "Stopped." in rest


def test_cli_dev_defaults_serve_the_tutorial_port_in_its_default_locale() -> None:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", 5255))
        except OSError:
            pytest.skip("port 5255 is in use on this machine (another dev server?)")

    first_line, _, code, rest = run_dev_until_ctrl_c()

    assert first_line.strip().endswith("at http://127.0.0.1:5255/?lang=zh")
    assert code == 0, rest


def test_ctrl_c_delivered_to_another_thread_still_ends_the_dev_wait() -> None:
    # The kernel may hand a process's SIGINT to any of its threads (the dev server has a
    # few); the wait must end anyway, not hang until killed.
    main_thread = threading.get_ident()
    rescued = threading.Event()

    def main_thread_is_waiting() -> bool:
        frame = sys._current_frames().get(main_thread)
        while frame is not None:
            if frame.f_code is wait_for_ctrl_c.__code__:
                return True
            frame = frame.f_back
        return False

    def ctrl_c_from_a_server_like_thread() -> None:
        poll = threading.Event()  # never set: wait() is the poll interval
        while not main_thread_is_waiting():
            poll.wait(0.001)
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        # A wait that never wakes would hang the run: after 10 s, interrupt the main
        # thread itself so the test ends, and fail it.
        if not poll.wait(10) and main_thread_is_waiting():
            rescued.set()
            signal.pthread_kill(main_thread, signal.SIGINT)

    before = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(KeyboardInterrupt):
            threading.Thread(target=ctrl_c_from_a_server_like_thread, daemon=True).start()
            wait_for_ctrl_c()
    finally:
        signal.signal(signal.SIGINT, before)

    assert not rescued.is_set(), "the wait ignored a SIGINT handled by another thread"
