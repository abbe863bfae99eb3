"""Fixtures of the tutorial under check: its id, root and definition, the locale, and its
words and user requests in that locale."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.plugin.options import LOCALES, pling_root
from harness.project.paths import TUTORIALS_DIR_NAME
from harness.project.texts import Say, Words
from harness.project.tutorials import (
    TUTORIAL_FILE_NAME,
    Tutorial,
    TutorialError,
    list_tutorials,
    load_tutorial,
)


def default_tutorial_id(test_path: Path, root: Path) -> str:
    """The tutorial a test checks: the one whose folder holds the test file
    (`tutorials/<id>/checks/`), else the only tutorial under `root`."""
    for folder in test_path.parents:
        if folder.parent.name == TUTORIALS_DIR_NAME and (folder / TUTORIAL_FILE_NAME).is_file():
            return folder.name
    tutorials = list_tutorials(root)
    if len(tutorials) != 1:
        known = ", ".join(t.short_id for t in tutorials) or "none"
        raise TutorialError(
            f"{test_path} is not in a tutorial's folder and {root / TUTORIALS_DIR_NAME} holds "
            f"{len(tutorials)} tutorials ({known}); override the tutorial_id fixture")
    return tutorials[0].id


@pytest.fixture
def tutorial_id(request: pytest.FixtureRequest, tutorial_root: Path) -> str:
    """Id (or short id) of the tutorial the server serves: the tutorial whose checks folder
    holds the test, else the only one under `tutorial_root`. Override it in a test module:
    ``@pytest.fixture def tutorial_id(): return "shop-orders"``."""
    try:
        return default_tutorial_id(request.path, tutorial_root)
    except TutorialError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture
def tutorial_root(pytestconfig: pytest.Config) -> Path:
    """The folder the tutorial server serves (--pling-root, else the project root): its
    `fixtures/` and `tutorials/`. Read the tutorial's files from here, never from the
    project, so a check sees what the server serves (the mutation runner's copy)."""
    return pling_root(pytestconfig)


@pytest.fixture
def tutorial(tutorial_id: str, tutorial_root: Path) -> Tutorial:
    """The tutorial under check (`tutorial.json` under `tutorial_root`, validated)."""
    try:
        return load_tutorial(tutorial_id, tutorial_root)
    except TutorialError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture
def words(tutorial: Tutorial, tutorial_root: Path, locale: str) -> Words:
    """The page's texts in `locale`: what a notice must mean (``words.meaning_problems(text,
    code, naming=...)``, from the reviewed glossary), the page copy (``words.copy[key]``,
    ``words.desc(action)``) and the runtime's (``words.runtime(key)``)."""
    return Words(tutorial_root, tutorial, locale)


@pytest.fixture
def say(tutorial: Tutorial, locale: str) -> Say:
    """What a user types for a named request in `locale`: ``dock.ask(say("archive"))``. The
    requests are the tutorial's (`user_requests` in its tutorial.json); an unknown name
    fails, listing the known ones."""
    return Say(tutorial, locale)


@pytest.fixture
def locale(request: pytest.FixtureRequest) -> str:
    """The page's locale, "zh" or "en". Every test that uses it runs once per locale
    (only the one given with --pling-locale)."""
    param = getattr(request, "param", None)
    return str(param) if param is not None else LOCALES[0]
