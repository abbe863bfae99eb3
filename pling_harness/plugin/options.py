"""The pling plugin's options (the tutorial and locales they choose are read in
tutorial_choice.py).

`--pling-shard` and `--pling-connect` are declared by their own modules (shards.py,
remote.py); `pling_root` reads and checks `--pling-root` for the fixtures and the hooks.
The mutation runner's own options are in a plugin only it loads (pling_harness/mutation/
run_plugin.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.plugin import choices, remote, shards
from pling_harness.plugin.choices import DRIVER_OPTION as DRIVER_OPTION
from pling_harness.plugin.choices import LOCALE_OPTION, ROOT_OPTION, TUTORIAL_OPTION
from pling_harness.plugin.choices import MODEL_PORT_OPTION as MODEL_PORT_OPTION
from pling_harness.plugin.tutorial_choice import root_of_checks
from pling_harness.project.paths import TUTORIALS_DIR_NAME
from pling_harness.project.root import RootError, has_tutorials
from pling_harness.project.run_choices import Chosen, default, option, root_from_settings

# With --pling-html: the gallery's pictures too (plugin/gallery.py); off by default, since
# its watch makes every action of every check look for states first.
GALLERY_OPTION = "--pling-gallery"
_ROOT_KEY = pytest.StashKey[Chosen[str] | None]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pling", "pling tutorial checks")
    group.addoption(
        ROOT_OPTION, metavar="DIR", default=None,
        help="folder whose tutorials/ (and fixtures/) hold the tutorials, from the current "
             "folder (default: `root` under [tool.pling] in pyproject.toml or in pling.toml, "
             "else pytest's rootdir); without tutorials/ there the plugin does nothing",
    )
    group.addoption(
        TUTORIAL_OPTION, metavar="ID", default=None,
        help="the tutorial (id or short id) the checks run against (default: the one whose "
             "checks folder holds the test, else the only tutorial under --pling-root; "
             "`pling-tutorial check <tutorial>` hands its choice over in --pling-choices)",
    )
    group.addoption(
        LOCALE_OPTION, metavar="LOCALE", default=None,
        help="run the checks in this locale only, one of the tutorial's `locales` "
             "(default: every locale it offers)",
    )
    group.addoption(
        "--pling-guarantee", metavar="NAME", action="append", default=None,
        help="run only the checks marked with this guarantee (repeatable); "
             "`pling-tutorial check <tutorial>` passes it on",
    )
    group.addoption(
        "--pling-fresh-pages", action="store_true", default=False,
        help="a new browser context and page for every test, as pytest-playwright does by "
             "default (slower); otherwise one warm page per worker serves the checks, each "
             "from a new document on emptied storage (pling_harness/browser/warm.py)",
    )
    group.addoption(
        "--pling-report", metavar="PATH", default=None,
        help="write a JSON report: each test's locale, guarantees, outcome and failure",
    )
    group.addoption(
        "--pling-html", metavar="DIR", default=None,
        help="write DIR/index.html: the guarantee table and each check (a failure with its "
             "timeline and Playwright trace). A failing check is run again once, traced (one "
             "that passes then is flaky, a failure); --output=DIR/traces unless given. With "
             "--tracing given, that tracing and no retry",
    )
    group.addoption(
        GALLERY_OPTION, action="store_true", default=False,
        help="with --pling-html: also picture each dock and page state the first time a "
             "check meets it, per locale (the report's gallery). Slower: every action of "
             "every check then first looks for a state not pictured yet",
    )
    group.addoption(
        DRIVER_OPTION, metavar="NAME|FILE", default=None,
        help="the dock driver the checks read the page's assistant with: NAME for "
             "tutorials/<id>/drivers/NAME.json, or a driver file (default: the tutorial's "
             "`driver`, else the page contract's test ids)",
    )
    choices.addoption(group)  # --pling-choices FILE (pling_harness/plugin/choices.py)
    shards.addoption(group)  # --pling-shard K/N (pling_harness/plugin/shards.py)
    remote.addoption(group)  # --pling-connect WS_URL (pling_harness/plugin/remote.py)


def pling_root(config: pytest.Config) -> Path | None:
    """The folder holding the tutorials, or None when there is none: nothing to check, and
    the plugin stays out of the run (an unrelated suite passes as it did without it).
    Found once per run (`chosen_root`)."""
    chosen = chosen_root(config)
    return Path(chosen.value) if chosen is not None else None


def chosen_root(config: pytest.Config) -> Chosen[str] | None:
    """`pling_root` and where it came from: `--pling-choices`' root; else `--pling-root DIR`
    (from the current folder, as pytest resolves its own paths; it must hold tutorials/);
    else `root` of a settings file at or above pytest's rootdir, else the rootdir
    (pling_harness/project/root.py)."""
    if _ROOT_KEY not in config.stash:
        config.stash[_ROOT_KEY] = _find_root(config)
    return config.stash[_ROOT_KEY]


def _find_root(config: pytest.Config) -> Chosen[str] | None:
    given = choices.of_run(config)
    if given is not None:
        return given.root
    value = config.getoption(ROOT_OPTION)
    if value:
        root = (config.invocation_params.dir / str(value)).resolve()
        if not has_tutorials(root):
            raise pytest.UsageError(
                f"{ROOT_OPTION} {root} has no {TUTORIALS_DIR_NAME}/ folder; point it at the "
                "folder that holds your tutorials (or a copy of it)")
        return Chosen[str](value=str(root), source=option(ROOT_OPTION))
    try:
        # pytest's rootdir, else the current folder (a project with no settings file at all
        # has the checks folder itself as rootdir), each as a settings file there names it.
        for start, what in ((config.rootpath, "pytest's rootdir"),
                            (config.invocation_params.dir, "the current folder")):
            chosen = root_from_settings(start) or Chosen[str](value=str(start),
                                                              source=default(what))
            if has_tutorials(Path(chosen.value)):
                return chosen
    except RootError as error:
        raise pytest.UsageError(str(error)) from None
    for arg in config.args:  # a tutorial's checks named on the command line
        path = config.invocation_params.dir / arg.split("::")[0]
        above = root_of_checks(path.resolve())
        if above is not None and has_tutorials(above):
            return Chosen[str](value=str(above),
                               source=default("the folder above the checks named"))
    return None


def required_root(config: pytest.Config) -> Path:
    """`pling_root` for a test that uses the plugin's fixtures: a root without tutorials
    fails that test, naming the fix."""
    root = pling_root(config)
    if root is None:
        pytest.fail(f"this test uses the pling fixtures, but {config.rootpath} (pytest's "
                    f"rootdir) has no {TUTORIALS_DIR_NAME}/ folder; write a tutorial with "
                    "`pling-tutorial new ID`, or name the folder that holds tutorials/ with "
                    "--pling-root DIR or `root` under [tool.pling] in pyproject.toml",
                    pytrace=False)
    return root
