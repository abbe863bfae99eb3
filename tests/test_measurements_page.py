"""docs/measurements.md is written from docs/measurements.json by scripts/figures.py: the
committed page is exactly what the records give, and a measuring script's record replaces
the one with its key."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT / "scripts"))

import figures  # noqa: E402 (a script's module)


def figure(key: str, value: str, topic: str = "Speed") -> figures.Figure:
    return figures.Figure(key=key, topic=topic, what=f"what {key} is", value=value,
                          date="2026-12-07", commit="3ec08c3", load="1.0",
                          command="scripts/x.py")


def test_committed_page_is_what_the_records_give() -> None:
    assert figures.main(["--check"]) == 0, "run .venv/bin/python scripts/figures.py"


def test_a_record_replaces_the_one_with_its_key_and_rewrites_the_page(tmp_path: Path) -> None:
    data, page = tmp_path / "figures.json", tmp_path / "page.md"
    data.write_text(figures.Figures(figures=(figure("a", "1 s"), figure("b", "2 s"))
                                    ).model_dump_json(), encoding="utf-8")

    figures.record([figure("a", "0.5 s"), figure("c", "3 s", topic="Size")], path=data,
                   page=page)

    assert [(f.key, f.value) for f in figures.load(data).figures] == [
        ("a", "0.5 s"), ("b", "2 s"), ("c", "3 s")]
    text = page.read_text(encoding="utf-8")
    assert text.index("## Speed") < text.index("| what a is | 0.5 s |") < text.index("## Size")
    assert "1 s" not in text


def test_a_record_without_its_commit_is_refused() -> None:
    with pytest.raises(ValidationError, match="commit"):
        figures.Figure.model_validate({**figure("a", "1 s").model_dump(), "commit": "HEAD"})


def test_the_page_stays_a_reference() -> None:
    lines = (PROJECT_ROOT / "docs" / "measurements.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300
