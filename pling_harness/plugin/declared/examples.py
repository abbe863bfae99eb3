"""Argument examples for generated checks, drawn by Hypothesis: a fixed seed by default (CI sees
the same examples every run), a shrunk failing example printed with the option that replays
it, and `--pling-example JSON` to run a check on exactly that example.

Browser checks are expensive, so Hypothesis draws argument values only: a few examples per
check, every one on the same open page (the page is never reloaded between examples), after
the edge values every run tries first."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

SEED_OPTION = "--pling-seed"
EXAMPLE_OPTION = "--pling-example"
# Drawn examples per check, besides its edge values: a browser turn each.
DRAWN_EXAMPLES = 3


class Options(Protocol):
    """What run_examples reads of pytest's config: its two options."""

    def getoption(self, name: str) -> Any: ...


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("pling")
    group.addoption(SEED_OPTION, default="0", metavar="N",
                    help="seed of the argument values generated checks draw (default 0: the "
                         "same values every run; 'random' for new ones)")
    group.addoption(EXAMPLE_OPTION, default=None, metavar="JSON",
                    help="run the generated checks selected (-k) on exactly this argument "
                         "object, as a failure prints it")


def run_examples(config: Options, nodeid: str, *, edges: Sequence[dict[str, Any]],
                 drawn: st.SearchStrategy[dict[str, Any]],
                 check: Callable[[dict[str, Any]], None]) -> None:
    """`check` on `--pling-example` alone if given; else on each edge value, then on
    DRAWN_EXAMPLES values Hypothesis draws (and shrinks on failure). A failure names the
    example and how to replay it."""
    replay = config.getoption(EXAMPLE_OPTION)
    if replay is not None:
        _on(replayed(replay), check, nodeid)
        return
    for example in edges:
        _on(example, check, nodeid)
    chosen = config.getoption(SEED_OPTION)
    settings_for = settings(max_examples=DRAWN_EXAMPLES, deadline=None, database=None,
                            phases=(Phase.generate, Phase.shrink), print_blob=False,
                            suppress_health_check=list(HealthCheck))

    @settings_for
    @given(drawn)
    def drawn_example(arguments: dict[str, Any]) -> None:
        _on(arguments, check, nodeid)

    if chosen != "random":
        # One fixed seed per check, so two checks draw different values, the same each run.
        drawn_example = seed(zlib.crc32(f"{chosen}:{nodeid}".encode()))(drawn_example)
    drawn_example()


def replayed(text: str) -> dict[str, Any]:
    """The argument object `--pling-example` gives; a usage error naming it if it is none."""
    try:
        example = json.loads(text)
    except json.JSONDecodeError as error:
        raise pytest.UsageError(f"{EXAMPLE_OPTION} {text!r} is not JSON ({error.msg}); give the "
                                "argument object a failure printed, e.g. '{\"name\": \"Acme\"}'"
                                ) from None
    if not isinstance(example, dict):
        raise pytest.UsageError(f"{EXAMPLE_OPTION} {text!r} is not a JSON object; give the "
                                "argument object a failure printed")
    return example


def _on(example: dict[str, Any], check: Callable[[dict[str, Any]], None], nodeid: str) -> None:
    try:
        check(example)
    except AssertionError as error:
        error.add_note(f"generated example: {json.dumps(example, ensure_ascii=True)}\n"
                       f"replay it: pytest '{nodeid}' {EXAMPLE_OPTION} "
                       f"'{json.dumps(example, ensure_ascii=True)}'")
        raise
