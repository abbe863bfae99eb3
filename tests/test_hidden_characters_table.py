"""Page and server agree on every character (issue 31 §4): the card's hidden characters and
a name's refused ones come from one table of one pinned Unicode version
(`pling_harness/web/runtime/hidden-characters.json`), read by the runtime in Chromium and by the
server in Python; each side's answer for all 1,114,112 code points is the same. The
server once accepted U+13439 in a name (a format character since Unicode 15; Python
3.11's `unicodedata` is Unicode 14), which the page refused."""

from __future__ import annotations

import itertools
import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page

from pling_harness.browser.pages import open_page
from pling_harness.project.hidden_characters import (
    HIDDEN_CHARACTERS_TABLE,
    is_hidden,
    refused_in_name,
    table,
)
from pling_harness.server.runner import TutorialServer

PROJECT_ROOT = Path(__file__).resolve().parents[1]
GENERATOR = PROJECT_ROOT / "tools" / "unicode" / "generate-hidden-characters.mjs"
LAST_CODE_POINT = 0x10FFFF
# Every code point through the runtime's own functions, in one call: the ranges where each
# answers yes (a lone surrogate is a one-character string, as the page would get it).
CLASSIFY_EVERY_CODE_POINT = """async (last) => {
  const { isHiddenCharacter, refusedInName, HIDDEN_CHARACTERS_UNICODE_VERSION } =
    await import("/pling/index.js");
  const hidden = [];
  const refused = [];
  const add = (ranges, point) => {
    const previous = ranges.at(-1);
    if (previous && previous[1] === point - 1) previous[1] = point;
    else ranges.push([point, point]);
  };
  for (let point = 0; point <= last; point += 1) {
    const character = String.fromCodePoint(point);
    if (isHiddenCharacter(character)) add(hidden, point);
    if (refusedInName(character) !== null) add(refused, point);
  }
  return { unicode: HIDDEN_CHARACTERS_UNICODE_VERSION, hidden, refused };
}"""


def ranges_where(answer: Callable[[str], bool]) -> list[list[int]]:
    found: list[list[int]] = []
    for point in range(LAST_CODE_POINT + 1):
        if answer(chr(point)):
            if found and found[-1][1] == point - 1:
                found[-1][1] = point
            else:
                found.append([point, point])
    return found


@pytest.fixture(scope="module")
def running() -> Iterator[TutorialServer]:
    with TutorialServer(tutorial="r-15", environ={}) as server:
        yield server


def test_page_and_server_agree_on_every_code_point(page: Page, running: TutorialServer) -> None:
    open_page(page, running.page_url("en"))

    in_page = page.evaluate(CLASSIFY_EVERY_CODE_POINT, LAST_CODE_POINT)

    assert in_page["unicode"] == table().unicode
    assert in_page["hidden"] == ranges_where(is_hidden)
    assert in_page["refused"] == ranges_where(lambda c: refused_in_name(c) is not None)


def test_table_is_one_pinned_unicode_version_with_sorted_disjoint_ranges() -> None:
    data = json.loads(HIDDEN_CHARACTERS_TABLE.read_text(encoding="utf-8"))

    assert data["unicode"] == "17.0.0"
    for key in ("hidden", "refusedInName"):
        ranges = data[key]
        assert all(first <= last for first, last in ranges), key
        assert all(a[1] + 1 < b[0] for a, b in itertools.pairwise(ranges)), key


def test_table_is_exactly_what_its_pinned_unicode_package_generates() -> None:
    # Nobody edits the table by hand, and a bumped package is regenerated in the same commit.
    if not (GENERATOR.parent / "node_modules").is_dir():
        pytest.fail("the Unicode package is not installed; run ./scripts/bootstrap")
    result = subprocess.run(["node", str(GENERATOR), "--check"], capture_output=True, text=True,
                            check=False, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


# Format characters added after Unicode 14 (Egyptian hieroglyph format controls, Unicode 15),
# refused by the page; a Python whose unicodedata predates them saw unassigned characters.
NEWER_FORMAT_CHARACTERS = [0x13439, 0x1343A, 0x1343F]


@pytest.mark.parametrize("point", NEWER_FORMAT_CHARACTERS, ids=hex)
def test_server_refuses_a_format_character_newer_than_pythons_unicode(
    client: httpx.Client, server: TutorialServer, point: int,
) -> None:
    response = client.post("/api/workspace/name", json={"name": f"a{chr(point)}b"})

    assert (response.status_code, response.json()["code"]) == (400, "INVALID_NAME_CHARACTER")
    assert f"U+{point:X}" in response.json()["message"]
    assert "at position 2 " in response.json()["message"]
    assert server.log.records()[-1].status == 400
    assert server.state.snapshot().name == "Northwind"


def test_card_escapes_and_server_refuses_the_same_newer_character() -> None:
    # The card's rule (hidden) and the name rule agree with the table for U+13439.
    assert is_hidden("\U00013439")
    assert refused_in_name("a\U00013439") == (2, "\U00013439")
