"""The words a page shows: what they must *mean* (from the reviewed glossary), and the copy.

Prefer meaning over wording. A check that compares a notice with the copy file's sentence
passes whatever that sentence says (it agrees with itself) and fails a page whose copy
says the same thing in other words. So a notice is checked against the glossary
(`harness/project/glossary.json`, plus the tutorial's own `glossary.json`; see
`harness.project.glossary`):

    words = Words(tutorial_server.root, tutorial_server.tutorial, locale)
    notice = dock.messages("notice").last
    assert words.means(notice.inner_text(), "PERMISSION_DENIED")  # says "not allowed", no claim
    words.meaning_problems(text, "HANDOFF_CANCELLED", naming=words.desc("ship_order"))

or, in a check, with the timeline's evidence in the failure message::

    guarantees.notice_means(timeline, words, code="PERMISSION_DENIED",
                            action="cancel_order")

which finds the newest notice carrying `data-code="PERMISSION_DENIED"` (page contract) and
checks that it names the action by the `description` the model received for it. A meaning
that is not a code's (why a `run` failed when it gave no reason, an unknown gateway code)
is a glossary detail, `words.detail_problems(text, "run.no-reason")`; a thing named in the
page's language is a glossary term, `words.says_term(text, "argument")`.

The copy itself is still readable, for the few texts a page must show word for word (a
placeholder filled in, the page's own messages): `runtime_text(root, locale, key,
**params)` fills a runtime string (`fixtures/pling/locales`) the way the runtime's
`translate` does; `page_copy(root, tutorial, locale)` is a tutorial's page copy
(`copy/{locale}.json`). Read from the root the server serves (`tutorial_server.root`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from harness.project.glossary import Glossary, glossary_for
from harness.project.paths import FIXTURES_DIR_NAME, RUNTIME_DIR_NAME
from harness.project.tutorials import Tutorial

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


def runtime_copy_path(root: Path, locale: str) -> Path:
    """The runtime's (the dock's) copy file for `locale`."""
    return root / FIXTURES_DIR_NAME / RUNTIME_DIR_NAME / "locales" / f"{locale}.json"


def runtime_text(root: Path, locale: str, key: str, **params: str | int) -> str:
    """The runtime's `key` in `locale`, filled from `params` (a missing key raises KeyError)."""
    return fill(_catalogue(runtime_copy_path(root, locale))[key], params)


def page_copy(root: Path, tutorial: Tutorial, locale: str) -> dict[str, str]:
    """The tutorial page's copy in `locale` (key → text)."""
    return dict(_catalogue(tutorial.copy_directory(root) / f"{locale}.json"))


class Words:
    """The texts a tutorial's page shows in one locale: what notices must mean (glossary),
    and the runtime's and the page's copy."""

    def __init__(self, root: Path, tutorial: Tutorial, locale: str) -> None:
        self.root = root
        self.locale = locale
        self.copy = page_copy(root, tutorial, locale)
        self.glossary: Glossary = glossary_for(root, tutorial)

    # ---- meaning (preferred) -------------------------------------------------------------

    def means(self, text: str, code: str, *, naming: str | None = None) -> bool:
        """Whether `text` says what a notice for `code` must say in this locale and claims
        nothing it must not (and names `naming`, the action, if given)."""
        return not self.meaning_problems(text, code, naming=naming)

    def meaning_problems(self, text: str, code: str, *, naming: str | None = None) -> list[str]:
        """Why `text` is not a faithful notice for `code` ([] if it is): each meaning of the
        glossary it does not say, each claim it makes, and not naming `naming`."""
        return self.glossary.meaning_problems(self.locale, text, code, naming=naming)

    def detail_problems(self, text: str, detail: str) -> list[str]:
        """Why `text` does not say the glossary's named `detail` in this locale ([] if it
        does), e.g. `run.no-reason`: what a RUN_FAILED says when `run` gave no reason."""
        return self.glossary.detail_problems(self.locale, text, detail)

    def says_term(self, text: str, en: str) -> bool:
        """Whether `text` uses the glossary's term `en` in this locale ("argument": 参数 in
        zh), the way a page names that thing whatever its own wording."""
        return self.glossary.says_term(self.locale, text, en)

    def term(self, en: str) -> tuple[str, ...]:
        """The phrases of the glossary's term `en` in this locale."""
        return self.glossary.term(self.locale, en)

    # ---- the copy ------------------------------------------------------------------------

    def runtime(self, key: str, **params: str | int) -> str:
        """A runtime string, e.g. runtime("error.UNAVAILABLE", action=words.desc(...))."""
        return runtime_text(self.root, self.locale, key, **params)

    def desc(self, action: str) -> str:
        """How the page describes an action (its declaration's `desc`, copy key action.<id>)."""
        return self.copy[f"action.{action}"]

    def notice(self, code: str, action: str) -> str:
        """The copy's exact notice for a failed call of `action` with `code` (runtime
        error.<CODE>). Prefer `means`/`guarantees.notice_means`: this agrees with any copy."""
        return self.runtime(f"error.{code}", action=self.desc(action))


class Say:
    """What a user types to the assistant for a named request, in one locale:
    ``say("archive")`` → "归档工作区". The words are the tutorial's own (`user_requests` in its
    tutorial.json), plain requests its model understands; an unknown name is a TutorialError
    that lists the known ones."""

    def __init__(self, tutorial: Tutorial, locale: str) -> None:
        self.tutorial = tutorial
        self.locale = locale

    def __call__(self, request: str) -> str:
        return self.tutorial.user_request(request, self.locale)
