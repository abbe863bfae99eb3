"""`pling-tutorial dev r-15 --page ai-sdk`: the r-15 page with its assistant on the Vercel AI
SDK answers real turns end to end in Chromium (useChat → the page's streamText → the
scripted model on OpenAI's wire → the business API), keeps every other site out of its
dev server, and leaves no process behind. Plain Playwright calls: the AI SDK page's driver
comes with issue 30 §1."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.model.handle import ModelHandle
from pling_harness.server.model.scripted import ScriptedModel

PROJECT_ROOT = Path(__file__).resolve().parents[1]

SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+)/\?lang=zh \(page ai-sdk:.*; model (\S+)\)")
PLING_TUTORIAL = Path(sys.executable).parent / "pling-tutorial"
PAGE = PROJECT_ROOT / "fixtures" / "r-15-ai-sdk"
TUTORIAL = load_tutorial("r-15")
WORDS = ModelHandle(ScriptedModel.from_file(TUTORIAL.model_rules_path(PROJECT_ROOT)))
PUBLISH_CODE = "246810"
TURN_TIMEOUT_MS = 30_000


class Served:
    def __init__(self, process: subprocess.Popen[str], url: str, model_url: str) -> None:
        self.process = process
        self.url = url
        self.model_url = model_url


def children_of(pid: int) -> set[int]:
    """Every live process below `pid` (Linux /proc)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parents[int(stat.parent.name)] = int(fields[1])
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def fetch(url: str, *, body: bytes | None = None,
          headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    if not (PAGE / "node_modules" / ".bin" / "node").exists():
        pytest.fail(f"the AI SDK page is not installed in {PAGE}; run ./scripts/bootstrap")
    process = subprocess.Popen(
        [str(PLING_TUTORIAL), "dev", "r-15", "--page", "ai-sdk", "--port", "0"],
        cwd=PROJECT_ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    seen = []
    for line in process.stdout:
        seen.append(line)
        found = SERVING.search(line)
        if found:
            break
    else:
        process.wait(timeout=30)
        pytest.fail(f"dev --page ai-sdk did not start: {''.join(seen)}")
    try:
        yield Served(process, found.group(1), found.group(2))
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


@pytest.fixture
def page_at(served: Served, page: Page, locale: str) -> Page:
    """The page in `locale` (the plugin runs each test in each of r-15's locales), on a
    fresh workspace."""
    status, _, _ = fetch(f"{served.url}/api/workspace/reset", body=b"{}",
                         headers={"Content-Type": "application/json"})
    assert status == 200
    page.set_default_timeout(TURN_TIMEOUT_MS)
    page.goto(TUTORIAL.page_url(served.url, locale))
    expect(page.locator("html")).to_have_attribute("data-pling-ready", "true")
    return page


def ask(page: Page, text: str) -> None:
    page.get_by_test_id("prompt-textarea").fill(text)
    page.get_by_test_id("prompt-submit").click()


def workspace(served: Served) -> dict[str, object]:
    state: dict[str, object] = json.loads(fetch(f"{served.url}/api/workspace")[2])
    return state


def assistant_said(page: Page, text: str) -> None:
    expect(page.locator('[data-testid="message"][data-role="assistant"] '
                        '[data-testid="message-text"]').last).to_have_text(text)


def test_ai_sdk_page_denied_archive_runs_nothing_and_model_hears_the_denial(
        served: Served, page_at: Page, locale: str) -> None:
    ask(page_at, TUTORIAL.user_request("archive", locale))
    call = page_at.get_by_test_id("tool-part")
    expect(call).to_have_attribute("data-state", "approval-requested")
    expect(call).to_have_attribute("data-tool", "archive_workspace")
    page_at.get_by_test_id("confirmation-reject").click()

    expect(call).to_have_attribute("data-state", "output-denied")
    assistant_said(page_at, WORDS.reply_after("archive_workspace", "PERMISSION_DENIED", locale))
    assert workspace(served)["archived"] is False
    expect(page_at.get_by_test_id("workspace-status")).to_have_attribute("data-archived", "false")


def test_ai_sdk_page_approved_rename_runs_on_the_server_and_shows_its_answer(
        served: Served, page_at: Page, locale: str) -> None:
    ask(page_at, TUTORIAL.user_request("save", locale))
    call = page_at.get_by_test_id("tool-part")
    expect(call.get_by_test_id("tool-input-value")).to_have_text("Acme")
    assert workspace(served)["name"] == "Northwind"  # nothing before the decision
    page_at.get_by_test_id("confirmation-approve").click()

    expect(call).to_have_attribute("data-state", "output-available")
    expect(page_at.get_by_test_id("workspace-name-display")).to_have_text("Acme")
    assistant_said(page_at, WORDS.reply_after("save_workspace_name", "OK", locale)
                   .replace("{name}", "Acme"))
    assert workspace(served)["name"] == "Acme"


def test_ai_sdk_page_publish_is_the_humans_step_and_succeeds_once_published(
        served: Served, page_at: Page, locale: str) -> None:
    ask(page_at, TUTORIAL.user_request("publish", locale))
    handoff = page_at.get_by_test_id("handoff")
    expect(handoff).to_be_visible()
    code = page_at.get_by_test_id("verification-code")
    expect(code).to_have_attribute("data-highlighted", "true")
    expect(code).to_have_value("")  # the assistant never fills it in

    code.fill(PUBLISH_CODE)
    expect(page_at.get_by_test_id("workspace-publish")).to_have_attribute(
        "data-highlighted", "true")
    page_at.get_by_test_id("workspace-publish").click()

    expect(page_at.get_by_test_id("workspace-status")).to_have_attribute(
        "data-state", "published")
    expect(page_at.get_by_test_id("tool-part")).to_have_attribute(
        "data-state", "output-available")
    expect(handoff).to_have_count(0)
    assistant_said(page_at, WORDS.reply_after("publish_changes", "OK", locale))


def test_ai_sdk_page_cancelled_handoff_tells_the_model_and_publishes_nothing(
        served: Served, page_at: Page, locale: str) -> None:
    ask(page_at, TUTORIAL.user_request("publish", locale))
    page_at.get_by_test_id("handoff-cancel").click()

    expect(page_at.get_by_test_id("tool-error")).to_have_attribute("data-code",
                                                                   "HANDOFF_CANCELLED")
    assistant_said(page_at, WORDS.reply_after("publish_changes", "HANDOFF_CANCELLED", locale))
    assert workspace(served)["published"] is False


@pytest.mark.parametrize(("path", "headers", "status", "code"), [
    ("/api/chat", {"Origin": "http://evil.example", "Content-Type": "application/json"},
     403, "FORBIDDEN_ORIGIN"),
    ("/api/chat", {"Content-Type": "text/plain"}, 415, "UNSUPPORTED_MEDIA_TYPE"),
    ("/api/workspace/archive", {"Origin": "http://evil.example",
                                "Content-Type": "application/json"}, 403, "FORBIDDEN_ORIGIN"),
    ("/__open-in-editor?file=index.html", {}, 403, "FORBIDDEN_DEV_ENDPOINT"),
])
def test_ai_sdk_dev_server_refuses_another_site(
        served: Served, path: str, headers: dict[str, str], status: int, code: str) -> None:
    body = None if path.startswith("/__") else json.dumps({"messages": []}).encode()
    answer, answer_headers, content = fetch(f"{served.url}{path}", body=body, headers=headers)

    assert (answer, json.loads(content)["code"]) == (status, code)
    assert "access-control-allow-origin" not in {name.lower() for name in answer_headers}
    assert workspace(served)["archived"] is False


@pytest.mark.parametrize("path", ["/api/chat", "/src/App.tsx", "/api/workspace"])
def test_ai_sdk_dev_server_answers_no_other_name_for_it(served: Served, path: str) -> None:
    """A name rebound to 127.0.0.1 (DNS rebinding) reads nothing and changes nothing; Vite's
    own allowedHosts check refuses it first (plain text), the page's guard behind it."""
    body = json.dumps({"messages": []}).encode() if path == "/api/chat" else None
    status, _, content = fetch(f"{served.url}{path}", body=body, headers={
        "Host": "rebound.example", "Content-Type": "application/json"})

    assert status == 403
    assert b"useChat" not in content and b"Northwind" not in content


def test_ai_sdk_dev_server_reads_nothing_outside_the_page(served: Served) -> None:
    for outside in (PROJECT_ROOT / "README.md", Path("/etc/hostname")):
        status, _, _ = fetch(f"{served.url}/@fs{outside}")
        assert status == 403, outside


def test_ai_sdk_dev_model_is_the_fixture_servers_and_ctrl_c_leaves_nothing(
        served: Served) -> None:
    assert served.model_url.endswith("/v1")
    status, _, models = fetch(f"{served.model_url}/models")
    assert status == 200 and json.loads(models)["data"][0]["id"] == "pling-scripted"

    started = children_of(served.process.pid)
    assert started, "no process under dev"
    served.process.send_signal(signal.SIGINT)
    assert served.process.wait(timeout=30) == 0
    left = sorted(pid for pid in started if Path(f"/proc/{pid}").exists())
    assert left == [], f"processes left after Ctrl-C: {left}"
