"""ModelServer: the scripted model on OpenAI's wire on a port of its own, seated check by
check, answering 503 between them."""

from __future__ import annotations

from pathlib import Path

import httpx

from pling_harness.project.business_state import BusinessState
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.log import ServerLog
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.model_server import ModelServer

PROJECT_ROOT = Path(__file__).resolve().parents[1]

ASK = {"model": "any", "messages": [{"role": "user", "content": "archive the workspace"}],
       "tools": [{"type": "function", "function": {"name": "archive_workspace",
                                                   "parameters": {"type": "object"}}}]}


def scripted() -> ScriptedModel:
    return ScriptedModel.from_file(load_tutorial("r-15").model_rules_path(PROJECT_ROOT))


def test_model_server_answers_with_the_seated_model_and_503_without_one() -> None:
    first, second = scripted(), scripted()
    first_log, second_log = ServerLog(), ServerLog()
    with ModelServer() as server:
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        url = f"{server.base_url}/chat/completions"
        assert httpx.post(url, json=ASK).status_code == 503

        server.serve(provider=first, log=first_log, read_state=BusinessState)
        assert httpx.post(url, json=ASK).json()["choices"][0]["finish_reason"] == "tool_calls"
        server.serve(provider=second, log=second_log, read_state=BusinessState)
        httpx.post(url, json=ASK)
        server.vacate()
        vacant = httpx.post(url, json=ASK)

    assert vacant.status_code == 503 and vacant.json()["error"]["code"] == "no_model"
    assert (len(first.requests), len(second.requests)) == (1, 1)
    assert [r.kind for r in first_log.records()] == ["model.request", "model.reply"]
    assert len(second_log.model_exchanges()) == 1


def test_model_server_refuses_another_sites_page() -> None:
    model = scripted()
    with ModelServer() as server:
        server.serve(provider=model, log=ServerLog(), read_state=BusinessState)
        response = httpx.post(f"{server.base_url}/chat/completions", json=ASK,
                              headers={"Origin": "http://evil.example"})
    assert response.status_code == 403 and model.requests == []
