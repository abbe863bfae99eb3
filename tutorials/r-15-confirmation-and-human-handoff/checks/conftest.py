"""Shared pieces of the r-15 check suite: what a user types to the assistant, per locale."""

from __future__ import annotations

from collections.abc import Callable

import pytest

# Plain requests a user would type, matched by the scripted model's rules (model-rules.json).
USER_REQUESTS: dict[str, dict[str, str]] = {
    "save": {"en": "rename the workspace to Acme", "zh": "把工作区名称改为 Acme"},
    "archive": {"en": "archive the workspace", "zh": "归档工作区"},
    "reset": {"en": "reset the workspace", "zh": "重置工作区"},
    "publish": {"en": "publish the changes", "zh": "发布更改"},
    "status": {"en": "what is the workspace status?", "zh": "查看工作区状态"},
}


@pytest.fixture
def say(locale: str) -> Callable[[str], str]:
    """say("archive") → what a user types in this locale to ask for it."""
    return lambda request: USER_REQUESTS[request][locale]
