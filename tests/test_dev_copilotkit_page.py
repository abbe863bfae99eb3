"""`pling-tutorial dev r-15 --page copilotkit|copilotkit-build`: the r-15 page whose assistant
is CopilotKit, its runtime inside Vite's server (the dev server, or `vite preview` of the
page's development build) talking to the scripted model on OpenAI's wire: by default the
fixture server's own `/v1`, here (`--model-url`) a `ModelServer` in this process, so the
test reads every request the runtime sent. On both pages the runtime refuses what another
site could send and SPEC §9's walk holds in zh and en in Chromium; the built one is the
bundle, React's development build (StrictMode kept); Ctrl-C leaves nothing."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from pling_harness.project.business_state import BusinessState
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.log import ServerLog
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.model.wire import ModelRequest, ToolMessage
from pling_harness.server.model_server import ModelServer

PROJECT_ROOT = Path(__file__).resolve().parents[1]

PLING_TUTORIAL = Path(sys.executable).parent / "pling-tutorial"
SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+)/\?lang=zh \(page copilotkit.*; model (\S+)\)")
PAGE_INSTALLED = PROJECT_ROOT / "fixtures" / "r-15-copilotkit" / "node_modules" / ".bin" / "vite"
# The dev server, and the development build under `vite preview` (about 20 s to build).
PAGES = ("copilotkit", "copilotkit-build")
BUNDLE = re.compile(r'<script type="module" crossorigin src="(/assets/index-[\w-]+\.js)"')
# A warning only React's development build carries: the bundle keeps StrictMode's checks.
REACT_DEVELOPMENT_ONLY = "Check the render method of"
# Vite's first start bundles CopilotKit's dependencies; a loaded machine needs the time.
WAIT_MS = 60_000
WORDS = {
    "en": {"save": "rename the workspace to Acme", "archive": "archive the workspace",
           "publish": "publish the changes", "placeholder": "Ask the assistant…"},
    "zh": {"save": "把工作区名称改为 Acme", "archive": "归档工作区", "publish": "发布更改",
           "placeholder": "向助手提问…"},
}


def request(url: str, *, body: bytes | None = None, method: str | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    sent = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(sent, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@dataclass
class Served:
    page: str
    url: str
    model_url: str
    process: subprocess.Popen[str]
    model: ScriptedModel | None

    def received(self) -> list[ModelRequest]:
        """Every request the runtime sent the model so far (a model this test hosts)."""
        assert self.model is not None, "the model is the dev server's own; nothing to read"
        return self.model.requests


def tool_results(served: Served, since: int) -> list[dict[str, Any]]:
    """The tool results the model received after its first `since` requests, in order."""
    return [json.loads(message.content) for sent in served.received()[since:]
            for message in sent.messages[-1:] if isinstance(message, ToolMessage)]


def wait_until(condition: Callable[[], bool], what: str) -> None:
    """Wait for `condition`, checked every 50 ms, at most WAIT_MS."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {WAIT_MS / 1000:.0f} s")
        time.sleep(0.05)


def first_line(process: subprocess.Popen[str], pattern: re.Pattern[str]) -> re.Match[str]:
    assert process.stdout is not None
    seen = []
    for line in process.stdout:
        seen.append(line)
        found = pattern.search(line)
        if found:
            return found
    process.wait(timeout=30)
    pytest.fail(f"{process.args!r} did not start: {''.join(seen)}")


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.kill()
    process.communicate()


@pytest.fixture(scope="module")
def model() -> Iterator[tuple[str, ScriptedModel]]:
    """r-15's scripted model on OpenAI's wire, hosted here, as `check --model-port` does."""
    scripted = ScriptedModel.from_file(load_tutorial("r-15", PROJECT_ROOT)
                                       .model_rules_path(PROJECT_ROOT))
    with ModelServer() as server:
        server.serve(provider=scripted, log=ServerLog(), read_state=BusinessState)
        yield server.base_url, scripted


def serve(model: tuple[str, ScriptedModel] | None, page: str = "copilotkit") -> Iterator[Served]:
    if not PAGE_INSTALLED.exists():
        pytest.fail("the CopilotKit page is not installed; run ./scripts/bootstrap")
    model_url = [] if model is None else ["--model-url", model[0]]
    process = subprocess.Popen(
        [str(PLING_TUTORIAL), "dev", "r-15", "--page", page, "--port", "0", *model_url],
        cwd=PROJECT_ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        found = first_line(process, SERVING)
        yield Served(page, found.group(1), found.group(2), process,
                     None if model is None else model[1])
    finally:
        stop(process)


@pytest.fixture(scope="module", params=PAGES)
def served(model: tuple[str, ScriptedModel], request: pytest.FixtureRequest) -> Iterator[Served]:
    yield from serve(model, request.param)


def test_copilotkit_page_is_served_as_its_mode_asks(served: Served) -> None:
    """The dev server serves the page's modules; `copilotkit-build` serves `vite build`'s
    bundle, built with React's development build, so the `registered-once-as-served` checks
    still run under StrictMode there."""
    status, _, html = request(f"{served.url}/?lang=en")
    assert status == 200
    found = BUNDLE.search(html.decode())
    if served.page == "copilotkit":
        assert found is None and b"/src/main.tsx" in html
        return
    assert found is not None and b"/src/main.tsx" not in html, html.decode()[:600]
    status, _, bundle = request(served.url + found.group(1))
    assert status == 200 and REACT_DEVELOPMENT_ONLY.encode() in bundle


def workspace(served: Served) -> dict[str, Any]:
    status, _, body = request(f"{served.url}/api/workspace")
    assert status == 200
    return dict(json.loads(body))


def test_copilotkit_runtime_refuses_what_another_site_could_send(served: Served) -> None:
    runtime = f"{served.url}/api/copilotkit"
    before = len(served.received())  # other tests of this module may have talked to the model
    status, headers, body = request(f"{runtime}/info")
    assert status == 200 and "default" in json.loads(body)["agents"]
    assert not [name for name in headers if name.lower().startswith("access-control-")]
    # The dev-server guard (fixtures/pling-vite) answers nothing to another site's page, a
    # read included; the runtime's own rule below it refuses the same.
    status, headers, body = request(f"{runtime}/info", headers={"Origin": "http://evil.example"})
    assert (status, json.loads(body)["code"]) == (403, "FORBIDDEN_ORIGIN")
    assert not [name for name in headers if name.lower().startswith("access-control-")]

    run = f"{runtime}/agent/default/run"
    json_body = {"Content-Type": "application/json"}
    refusals = {
        "FORBIDDEN_ORIGIN": {**json_body, "Origin": "http://evil.example"},
        "UNSUPPORTED_MEDIA_TYPE": {"Content-Type": "text/plain"},
    }
    for code, headers_sent in refusals.items():
        status, _, body = request(run, body=b"{}", headers=headers_sent)
        assert (status, json.loads(body)["code"]) in {(403, code), (415, code)}, body
    port = served.url.rsplit(":", 1)[1]
    status, _, body = request(f"{runtime}/info", headers={"Host": f"127.0.0.1:{int(port) + 1}"})
    assert (status, json.loads(body)["code"]) == (403, "FORBIDDEN_HOST")
    status, _, _ = request(run, method="OPTIONS", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    assert status == 403
    # Bad input is a 4xx from the runtime, never a 500.
    status, _, _ = request(run, body=b"not json", headers=json_body)
    assert status == 400
    assert served.received()[before:] == [], "a refused request reached the model"


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_copilotkit_page_keeps_the_acceptance_walk(served: Served, browser: Browser,
                                                    locale: str) -> None:
    words = WORDS[locale]
    request(f"{served.url}/api/workspace/reset", body=b"{}",
            headers={"Content-Type": "application/json"})
    asked_before = len(served.received())
    page: Page = browser.new_page()
    try:
        # Vite's dev server transforms the page's modules on their first request: on a busy
        # machine the first load alone has taken over 30 s (Playwright's default).
        page.goto(f"{served.url}/?lang={locale}", timeout=WAIT_MS)
        expect(page.locator("html")).to_have_attribute("data-pling-ready", "true",
                                                       timeout=WAIT_MS)
        expect(page.locator("html")).to_have_attribute("lang", "zh-CN" if locale == "zh" else "en")
        box = page.get_by_placeholder(words["placeholder"])

        # 1. Rename: the card shows the exact name before anything changes; Allow saves it.
        box.fill(words["save"])
        box.press("Enter")
        card = page.locator("[data-testid=approval][data-tool=save_workspace_name]")
        expect(card.get_by_test_id("approval-value")).to_have_text("Acme", timeout=WAIT_MS)
        assert workspace(served)["name"] == "Northwind"
        card.get_by_test_id("approval-allow").click()
        expect(page.get_by_test_id("workspace-name-display")).to_have_text("Acme")
        expect(card.get_by_test_id("approval-outcome")).to_have_attribute("data-ok", "true")

        # 2-3. Archive asks, with no "always allow"; Deny changes nothing and says so.
        box.fill(words["archive"])
        box.press("Enter")
        card = page.locator("[data-testid=approval][data-tool=archive_workspace]")
        expect(card.get_by_test_id("approval-deny")).to_be_visible(timeout=WAIT_MS)
        expect(card.locator("button")).to_have_count(2)
        card.get_by_test_id("approval-deny").click()
        expect(card.get_by_test_id("approval-outcome")).to_have_attribute(
            "data-code", "PERMISSION_DENIED")
        assert workspace(served)["archived"] is False
        expect(page.get_by_test_id("workspace-status")).to_have_attribute("data-archived", "false")

        # 4-6. Publish is the human's step: highlighted, nothing typed, success once published.
        box.fill(words["publish"])
        box.press("Enter")
        panel = page.get_by_test_id("handoff")
        expect(panel.get_by_test_id("handoff-cancel")).to_be_visible(timeout=WAIT_MS)
        code = page.get_by_test_id("verification-code")
        expect(code).to_have_attribute("data-handoff-highlighted", "true")
        expect(code).to_have_value("")
        code.fill("246810")
        page.get_by_test_id("workspace-publish").click()
        expect(panel.get_by_test_id("handoff-outcome")).to_have_attribute("data-ok", "true",
                                                                          timeout=WAIT_MS)
        expect(page.locator("[data-handoff-highlighted]")).to_have_count(0)
        assert workspace(served)["published"] is True
        # The page shows the outcome, then its runtime sends the receipt to the model.
        wait_until(lambda: len(tool_results(served, asked_before)) >= 3,
                   "the publish receipt reaching the model")
    finally:
        page.close()

    results = tool_results(served, asked_before)
    assert [(r["ok"], r.get("code")) for r in results] == [
        (True, None), (False, "PERMISSION_DENIED"), (True, None)]
    assert results[2]["receipt"] == {"action": "publish_changes", "published": True}


def test_dev_copilotkit_model_is_the_fixture_servers_and_ctrl_c_leaves_nothing() -> None:
    for served in serve(None):
        port = served.url.rsplit(":", 1)[1]
        assert request(f"{served.url}/?lang=en")[0] == 200
        # Without --model-url the runtime calls the fixture server's scripted model.
        assert served.model_url.endswith("/v1") and served.model_url != served.url + "/v1"
        status, _, models = request(f"{served.model_url}/models")
        assert status == 200 and json.loads(models)["data"][0]["id"] == "pling-scripted"
        served.process.send_signal(signal.SIGINT)
        assert served.process.wait(timeout=30) == 0
        left = [path.parent.name for path in Path("/proc").glob("[0-9]*/cmdline")
                if f"--port\x00{port}\x00".encode() in _read(path)]
        assert left == [], f"processes still serving port {port}: {left}"
        with pytest.raises(OSError):
            request(f"{served.url}/?lang=en")


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""
