"""The wire with the real client: the AI SDK's `@ai-sdk/openai-compatible` provider
(`fixtures/r-15-ai-sdk/scripts/wire-client.ts`, under the page's Node.js 22) calls the fixture
server's `/v1`, with `generateText` and `streamText`, and gets what a check scripted."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pling_harness.server.runner import TutorialServer

PROJECT_ROOT = Path(__file__).resolve().parents[1]

PAGE = PROJECT_ROOT / "fixtures" / "r-15-ai-sdk"
NODE = PAGE / "node_modules" / ".bin" / "node"


def run_client(base_url: str) -> dict[str, dict[str, Any]]:
    if not NODE.exists():
        pytest.fail(f"the AI SDK page is not installed in {PAGE}; run ./scripts/bootstrap")
    result = subprocess.run([str(NODE), "scripts/wire-client.ts", base_url], cwd=PAGE,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return {case["case"]: case for case in map(json.loads, result.stdout.splitlines())}


def test_ai_sdk_client_gets_tool_calls_and_replies_streamed_and_not() -> None:
    with TutorialServer(tutorial="r-15") as server:
        cases = run_client(f"{server.url}/v1")
        requests = server.log.records(kind="model.request")

    rename = [{"name": "save_workspace_name", "input": {"name": "Acme"}}]
    assert cases["generate-call"] == {"case": "generate-call", "calls": rename,
                                      "finish": "tool-calls"}
    assert cases["stream-call"]["calls"] == rename
    denied = "That was not permitted, so nothing was archived."
    assert cases["generate-after-denial"]["text"] == denied
    assert cases["stream-after-denial"] == {"case": "stream-after-denial", "text": denied,
                                            "usage": 0}
    # What the client really sent: streamed twice (with usage asked), not streamed twice.
    assert [record.body.get("stream") for record in requests] == [None, True, None, True]
    assert requests[1].body["stream_options"] == {"include_usage": True}
    archive = requests[0].body["tools"][0]["function"]
    assert (archive["name"], archive["parameters"]["additionalProperties"]) == (
        "archive_workspace", False)
    denial = requests[2].model_request
    assert denial is not None and denial.messages[-1].content == json.dumps(
        {"ok": False, "code": "PERMISSION_DENIED", "message": "Tool call execution denied."})
