"""`pling-tutorial model-server`: the tutorial's scripted model on OpenAI's wire on a port of
its own, until Ctrl-C; and `dev --model-url`, only for the page whose server calls it."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from pling_harness.cli.main import main

PROJECT_ROOT = Path(__file__).resolve().parents[1]

PLING_TUTORIAL = Path(sys.executable).parent / "pling-tutorial"
SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+/v1) ")


def test_model_server_serves_the_tutorials_model_until_ctrl_c() -> None:
    process = subprocess.Popen([str(PLING_TUTORIAL), "model-server", "r-15", "--port", "0"],
                               cwd=PROJECT_ROOT, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    assert process.stdout is not None
    try:
        found = SERVING.search(process.stdout.readline())
        assert found, "model-server printed no address"
        answer = httpx.post(f"{found.group(1)}/chat/completions", json={
            "model": "pling-scripted", "messages": [{"role": "user", "content": "归档工作区"}],
            "tools": [{"type": "function", "function": {"name": "archive_workspace"}}]})
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
    call = answer.json()["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["name"] == "archive_workspace"


def test_dev_model_url_is_only_for_the_ai_sdk_page(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dev", "r-15", "--page", "react", "--model-url", "http://127.0.0.1:1/v1"]) == 2
    assert "--model-url is for --page ai-sdk" in capsys.readouterr().err


def test_check_model_port_is_only_with_a_base_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "r-15", "--model-port", "5441"]) == 2
    assert "--model-port is for a page served elsewhere" in capsys.readouterr().err
