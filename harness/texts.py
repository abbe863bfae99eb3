"""The words a page should show, read from the served files, so a check can expect them exactly.

`runtime_text(root, locale, key, **params)` fills a runtime string (`fixtures/pling/locales`)
the way the runtime's `translate` does; `page_copy(root, tutorial, locale)` is a tutorial's
page copy (`copy/{locale}.json`), e.g. for an action's description; `Words` holds both for
one locale. Read from the root the server serves (`tutorial_server.root`), so a check
compares against the copy really in use without asking the runtime, whose code is what is
under test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from harness.paths import FIXTURES_DIR_NAME, RUNTIME_DIR_NAME
from harness.tutorials import Tutorial

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _catalogue(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ValueError(f"{path} must be a JSON object of strings")
    return data


def fill(template: str, params: dict[str, str | int]) -> str:
    """Replace `{name}` by `params[name]`; unknown placeholders stay as they are."""
    return _PLACEHOLDER.sub(
        lambda match: str(params[match[1]]) if match[1] in params else match[0], template)


def runtime_text(root: Path, locale: str, key: str, **params: str | int) -> str:
    """The runtime's `key` in `locale`, filled from `params` (a missing key raises KeyError)."""
    path = root / FIXTURES_DIR_NAME / RUNTIME_DIR_NAME / "locales" / f"{locale}.json"
    return fill(_catalogue(path)[key], params)


def page_copy(root: Path, tutorial: Tutorial, locale: str) -> dict[str, str]:
    """The tutorial page's copy in `locale` (key → text)."""
    return dict(_catalogue(tutorial.copy_directory(root) / f"{locale}.json"))


class Words:
    """The texts a tutorial's page shows in one locale: the runtime's and the page's copy."""

    def __init__(self, root: Path, tutorial: Tutorial, locale: str) -> None:
        self.root = root
        self.locale = locale
        self.copy = page_copy(root, tutorial, locale)

    def runtime(self, key: str, **params: str | int) -> str:
        """A runtime string, e.g. runtime("error.UNAVAILABLE", action=words.desc(...))."""
        return runtime_text(self.root, self.locale, key, **params)

    def desc(self, action: str) -> str:
        """How the page describes an action (its declaration's `desc`, copy key action.<id>)."""
        return self.copy[f"action.{action}"]

    def notice(self, code: str, action: str) -> str:
        """The dock's notice for a failed call of `action` with `code` (runtime error.<CODE>)."""
        return self.runtime(f"error.{code}", action=self.desc(action))
