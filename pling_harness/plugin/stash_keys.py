"""What the pling plugin's fixtures keep for its hooks: a test's timeline (printed with its
failure), the session's gallery (pictures for the HTML report), and whether a failed
check is being run again, traced (plugin/retry.py)."""

from __future__ import annotations

import pytest

from pling_harness.evidence.timeline import Timeline
from pling_harness.plugin.gallery import Gallery

TIMELINE_KEY = pytest.StashKey[Timeline]()
GALLERY_KEY = pytest.StashKey[Gallery]()
RETRYING_KEY = pytest.StashKey[bool]()
