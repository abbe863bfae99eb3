"""`user_click` clicks at once only a control that is ready now; anything else gets
Playwright's whole click, with its waits and its errors. Real Chromium, plain pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from pling_harness.browser.clicks import has_locator_handlers, user_click

# Counts the clicks the button hears, and whether the browser says a user made them.
COUNTING = """<button id="go">Go</button>
<script>
  window.heard = [];
  document.getElementById("go").addEventListener("click", e => heard.push(e.isTrusted));
</script>"""


def spy_on_clicks(control: Locator) -> list[dict[str, Any]]:
    """Record the options of each Playwright click on `control`, then make the click."""
    calls: list[dict[str, Any]] = []
    click: Callable[..., None] = control.click

    def recording(**options: Any) -> None:
        calls.append(options)
        click(**options)

    control.click = recording  # type: ignore[method-assign]
    return calls


def heard(page: Page) -> list[bool]:
    result: list[bool] = page.evaluate("window.heard")
    return result


def test_a_ready_control_is_clicked_at_once_by_real_input(page: Page) -> None:
    page.set_content(COUNTING)
    button = page.locator("#go")
    calls = spy_on_clicks(button)
    user_click(button)
    assert [call.get("force") for call in calls] == [True]
    assert heard(page) == [True]


def test_a_covered_control_gets_the_full_click_and_is_never_clicked(page: Page) -> None:
    page.set_content(COUNTING + """<div id="cover"
        style="position:fixed; inset:0; background:rgba(0,0,0,.1)"></div>""")
    button = page.locator("#go")
    calls = spy_on_clicks(button)
    with pytest.raises(PlaywrightTimeoutError, match="intercepts pointer events"):
        user_click(button, timeout=500)
    assert [call.get("force") for call in calls] == [None]
    assert heard(page) == []


def test_a_disabled_control_gets_the_full_click_which_waits_for_it(page: Page) -> None:
    page.set_content(COUNTING + '<script>document.getElementById("go").disabled = true;</script>')
    button = page.locator("#go")
    calls = spy_on_clicks(button)
    with pytest.raises(PlaywrightTimeoutError, match="not enabled"):
        user_click(button, timeout=500)
    assert [call.get("force") for call in calls] == [None]
    assert heard(page) == []


def test_a_moving_control_gets_the_full_click(page: Page) -> None:
    page.set_content("""<style>
      @keyframes slide { from { transform: translateX(0) } to { transform: translateX(4px) } }
      #box { animation: slide 10s linear 1 }
    </style><div id="box">""" + COUNTING + "</div>")
    button = page.locator("#go")
    calls = spy_on_clicks(button)
    with pytest.raises(PlaywrightTimeoutError):
        user_click(button, timeout=500)  # never stable while its parent slides
    assert [call.get("force") for call in calls] == [None]


def test_a_control_below_the_fold_gets_the_full_click_which_scrolls(page: Page) -> None:
    page.set_content('<div style="height: 5000px"></div>' + COUNTING)
    button = page.locator("#go")
    calls = spy_on_clicks(button)
    user_click(button)
    assert [call.get("force") for call in calls] == [None]
    assert heard(page) == [True]


def test_two_matches_get_the_full_click_and_its_strictness_error(page: Page) -> None:
    page.set_content("<button>Go</button><button>Go</button>")
    button = page.get_by_role("button", name="Go")
    calls = spy_on_clicks(button)
    with pytest.raises(Exception, match="strict mode violation"):
        user_click(button, timeout=500)
    assert [call.get("force") for call in calls] == [None]


def test_a_page_with_a_locator_handler_gets_the_full_click_which_runs_it(page: Page) -> None:
    # Playwright runs locator handlers only inside its actionability checks: the report's
    # gallery takes its pictures that way, and a check may clear a banner that way.
    page.set_content(COUNTING + """<div id="banner"
        style="position:fixed; inset:0; background:rgba(0,0,0,.1)"></div>""")
    banner = page.locator("#banner")
    page.add_locator_handler(banner, lambda: banner.evaluate("banner => banner.remove()"))
    assert has_locator_handlers(page)
    button = page.locator("#go")
    calls = spy_on_clicks(button)
    user_click(button)
    assert [call.get("force") for call in calls] == [None]
    assert heard(page) == [True]
