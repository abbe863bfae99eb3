"""What the pling plugin's fixtures keep for its hooks: a test's timeline (printed with its
failure) and the session's gallery (pictures for the HTML report)."""

from __future__ import annotations

import pytest

from pling_harness.evidence.timeline import Timeline
from pling_harness.plugin.gallery import Gallery

TIMELINE_KEY = pytest.StashKey[Timeline]()
GALLERY_KEY = pytest.StashKey[Gallery]()
