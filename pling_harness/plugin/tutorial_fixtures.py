"""Fixtures of the tutorial under check: its id, root and definition, the locale, and its
words and user requests in that locale."""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.plugin.options import required_root
from pling_harness.plugin.tutorial_choice import tutorial_name
from pling_harness.project.texts import Say, Words
from pling_harness.project.tutorials import Tutorial, TutorialError, load_tutorial


@pytest.fixture
def tutorial_id(request: pytest.FixtureRequest, tutorial_root: Path) -> str:
    """Id (or short id) of the tutorial the server serves: --pling-tutorial ID, else the
    tutorial whose `checks/` folder holds the test, else the only one under `tutorial_root`.
    Overriding it in a module changes the page, not the locales the module runs in (those
    come from the same choice, at collection): prefer --pling-tutorial."""
    return tutorial_name(request.config, request.path, tutorial_root)


@pytest.fixture
def tutorial_root(pytestconfig: pytest.Config) -> Path:
    """The folder the tutorial server serves (--pling-root, else `root` under [tool.pling],
    else pytest's rootdir): its `fixtures/` and `tutorials/`. Read the tutorial's files from
    here, never from the project, so a check sees what the server serves (the mutation
    runner's copy)."""
    return required_root(pytestconfig)


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
    code, naming=...)``, from the reviewed glossary and the tutorial's own) and the page's
    own copy (``words.copy[key]``, ``words.desc(action)``); never a runtime's copy files."""
    return Words(tutorial_root, tutorial, locale)


@pytest.fixture
def say(tutorial: Tutorial, locale: str) -> Say:
    """What a user types for a named request in `locale`: ``dock.ask(say("archive"))``. The
    requests are the tutorial's (`user_requests` in its tutorial.json); an unknown name
    fails, listing the known ones."""
    return Say(tutorial, locale)


@pytest.fixture
def locale(request: pytest.FixtureRequest) -> str:
    """The page's locale, one of the tutorial's `locales` (tutorial.json). Every test that
    uses it runs once per locale, in their declared order (only the one --pling-locale
    names); where a test chose none, the tutorial's `default_locale`."""
    param = getattr(request, "param", None)
    if param is not None:
        return str(param)
    tutorial: Tutorial = request.getfixturevalue("tutorial")
    return tutorial.default_locale
