"""`pling-tutorial check r-15 --report DIR` on real r-15 checks: the page has the guarantee
table, and every gallery state has a zh and an en picture that loads.

The checks run once for the module (a selection that meets every state, zh and en)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from pling_harness.cli.main import main

# Real r-15 checks that, between them, meet every state below in each locale.
SELECTION = " or ".join([
    "page-speaks-its-locale",  # both cards, denial, handoff steps, cancel, rejected, gateway
    "typed_wrong_code",  # the page refusing a wrong code
    "publish_changes-handoff-timeout",  # the last minute, the timeout
    "acceptance_walk",  # published
])
EXPECTED_STATES = (
    "approval-ask", "approval-ask-always", "notice-PERMISSION_DENIED",
    "handoff-step-1", "handoff-step-2", "handoff-timer",
    "notice-HANDOFF_CANCELLED", "notice-HANDOFF_TIMEOUT",
    "page-wrong-code", "page-published",
    "error-MODEL_UNAVAILABLE",  # a gateway error
    "notice-UNKNOWN_ACTION",  # a rejected call
)
LOCALES = ("zh", "en")
IMAGES_LOADED = "() => [...document.images].every((image) => image.complete)"


@pytest.fixture(scope="module")
def report_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of one `pling-tutorial check r-15 --report --gallery` run of SELECTION."""
    folder = tmp_path_factory.mktemp("check") / "report"
    code = main(["check", "r-15", "--report", str(folder), "--gallery", "-k", SELECTION, "-q",
                 "-p", "no:cacheprovider"])
    assert code == 0, "the selected r-15 checks failed; see the output above"
    return folder


@pytest.fixture
def report(page: Page, report_folder: Path) -> Page:
    """The report opened in Chromium from its file, every image done loading."""
    page.goto((report_folder / "index.html").as_uri())
    page.wait_for_function(IMAGES_LOADED)
    return page


def test_report_shows_the_guarantee_table_with_a_link_to_checks_in_every_cell(
    report: Page
) -> None:
    cells = report.get_by_test_id("guarantee-table").locator("td")

    expect(cells.first).to_be_visible()
    targets = [cells.nth(i).locator("a").get_attribute("href") for i in range(cells.count())]
    missing = [href for href in targets
               if href is None or report.locator(f"[id='{href[1:]}']").count() != 1]
    assert not missing, f"table cells that link to no checks: {missing}"


def test_gallery_has_a_loaded_zh_and_en_picture_of_every_state(report: Page) -> None:
    problems = []
    for state in EXPECTED_STATES:
        for locale in LOCALES:
            image = report.locator(f"tr[data-state='{state}'] td[data-locale='{locale}'] img")
            if image.count() != 1:
                problems.append(f"{state} ({locale}): no picture")
            elif image.evaluate("img => img.naturalWidth") == 0:
                problems.append(f"{state} ({locale}): picture does not load")

    assert not problems, "gallery:\n" + "\n".join(problems)
