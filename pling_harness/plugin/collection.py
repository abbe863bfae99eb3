"""Collection hooks of the pling plugin: every check runs once per locale of its tutorial
(tutorial_choice.py), the guarantee filter (--pling-guarantee), and each test's locale and
guarantees as user properties for the reports."""

from __future__ import annotations

import pytest

from pling_harness.plugin.declared.matrix import DECLARED_CASES
from pling_harness.plugin.options import pling_root
from pling_harness.plugin.report_writer import (
    GUARANTEE_PROPERTY,
    LOCALE_PROPERTY,
    guarantees_of,
    locale_of,
)
from pling_harness.plugin.tutorial_choice import chosen_tutorial, run_locales


# First, whatever order the entry points load in (`python -m pytest` puts the project's own
# ahead of pytest-playwright's, the `pytest` script does not): the locale leads every node
# id, `test_x[zh-chromium]`, so ids, and the shards' recorded durations, match across both.
@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    declared = getattr(metafunc.function, DECLARED_CASES, None)
    if declared is not None:  # a generated check: its cases carry their locales
        metafunc.parametrize(("declared", "locale"), declared)
        return
    if "locale" not in metafunc.fixturenames:
        return
    if any("locale" in _argnames(marker) for marker in metafunc.definition.iter_markers(
            "parametrize")):
        return  # the test chose its locales itself
    config = metafunc.config
    root = pling_root(config)
    if root is None:
        return  # no tutorials: a `locale` fixture here is the project's own
    tutorial = chosen_tutorial(config, metafunc.definition.path, root)
    metafunc.parametrize("locale", run_locales(config, tutorial), indirect=True)


def _argnames(marker: pytest.Mark) -> list[str]:
    names = marker.args[0] if marker.args else marker.kwargs.get("argnames", "")
    if isinstance(names, str):
        return [name.strip() for name in names.split(",")]
    return list(names)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if pling_root(config) is None:
        return  # no tutorials: nothing here is a check of ours
    wanted = config.getoption("--pling-guarantee")
    if wanted:
        keep = [item for item in items if set(guarantees_of(item)) & set(wanted)]
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep
    # As user properties, so they travel with every report (pytest-xdist, --junitxml).
    for item in items:
        locale = locale_of(item)
        if locale is not None:
            item.user_properties.append((LOCALE_PROPERTY, locale))
        item.user_properties.extend((GUARANTEE_PROPERTY, name) for name in guarantees_of(item))
