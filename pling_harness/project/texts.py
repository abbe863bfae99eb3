"""The words a page shows: what they must *mean* (from the reviewed glossary), and the copy.

Prefer meaning over wording. A check that compares a notice with the copy file's sentence
passes whatever that sentence says (it agrees with itself) and fails a page whose copy
says the same thing in other words. So a notice is checked against the glossary
(`pling_harness/project/glossary.json`, plus the tutorial's own `glossary.json`; see
`pling_harness.project.glossary`):

    words = Words(tutorial_server.root, tutorial_server.tutorial, locale)
    notice = dock.messages("notice").last
    assert words.means(notice.inner_text(), "PERMISSION_DENIED")  # says "not allowed", no claim
    words.meaning_problems(text, "HANDOFF_CANCELLED", naming=words.desc("ship_order"))

or, in a check, with the timeline's evidence in the failure message::

    guarantees.notice_means(timeline, words, code="PERMISSION_DENIED",
                            action="cancel_order")

which finds the newest notice reporting PERMISSION_DENIED (as the dock driver reads it) and
checks that it names the action by the `description` the model received for it. A meaning
that is not a code's (why a `run` failed when it gave no reason, an unknown gateway code)
is a glossary detail, `words.detail_problems(text, "run.no-reason")`; a thing named in the
page's language is a glossary term, `words.says_term(text, "argument")`.

The page's own copy is still readable, for the few texts a page must show word for word
(a placeholder filled in, the page's own messages): `page_copy(root, tutorial, locale)` is a
tutorial's page copy (`copy/<locale>.json`), `dock_copy(root, tutorial, locale)` the dock's
strings a tutorial brings for a locale the reference runtime ships none for
(`copy/dock/<locale>.json`). A check never reads a runtime's own copy files: the page on
another framework has its own dock and its own words, and is held to its own copy and the
glossary alone. Read from the root the server serves (`tutorial_server.root`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pling_harness.project.glossary import Glossary, glossary_for
from pling_harness.project.tutorials import Tutorial

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


def page_copy(root: Path, tutorial: Tutorial, locale: str) -> dict[str, str]:
    """The tutorial page's copy in `locale` (key → text)."""
    return dict(_catalogue(tutorial.copy_path(root, locale)))


def dock_copy(root: Path, tutorial: Tutorial, locale: str) -> dict[str, str] | None:
    """The dock's strings the tutorial brings for `locale` (key → text), or None where it
    brings none (the runtime ships that locale's, or the page has a dock of its own)."""
    path = tutorial.dock_copy_path(root, locale)
    return dict(_catalogue(path)) if path.is_file() else None


class Words:
    """The texts a tutorial's page shows in one locale: what notices must mean (glossary),
    and the page's own copy."""

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

    def desc(self, action: str) -> str:
        """How the page describes an action (its declaration's `desc`, copy key action.<id>)."""
        return self.copy[f"action.{action}"]


class Say:
    """What a user types to the assistant for a named request, in one locale:
    ``say("archive")`` → "归档工作区". The words are the tutorial's own (`user_requests` in its
    tutorial.json), plain requests its model understands; an unknown name is a TutorialError
    that lists the known ones."""

    def __init__(self, tutorial: Tutorial, locale: str) -> None:
        self.tutorial = tutorial
        self.locale = locale

    def __call__(self, request: str, **params: str | int) -> str:
        """The words for `request`, each `{name}` in them filled from `params`
        (``say("run_action", id="ship_order")``)."""
        return fill(self.tutorial.user_request(request, self.locale), params)
