"""`model-rules.json`: the scripted model's intents (user text → tool call) and replies."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, RootModel, field_validator, model_validator

from pling_harness.project.datafile import load_json_model
from pling_harness.project.locales import Locale, entry_for


class RulesError(Exception):
    """The rules file is missing or invalid; the message names the file and the field."""


class RulesModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def placeholders(template: str) -> set[str]:
    """The `{name}` fields a str.format template uses."""
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


class LocalizedText(RootModel[dict[Locale, Annotated[str, Field(min_length=1)]]]):
    """One thing the model says, in each locale: `{"en": "Done.", "zh": "已完成。"}`."""

    model_config = ConfigDict(frozen=True)
    root: dict[Locale, Annotated[str, Field(min_length=1)]] = Field(min_length=1)

    def text(self, locale: str) -> str:
        """The text in `locale` (or its language); a locale the rules do not speak gets the
        first one given, as a model answers in some language whatever it is asked."""
        found = entry_for(self.root, locale)
        return found if found is not None else next(iter(self.root.values()))

    def locales(self) -> set[str]:
        return set(self.root)

    def fields(self) -> set[str]:
        return set().union(*(placeholders(text) for text in self.root.values()))


class IntentRule(RulesModel):
    """Any pattern found in the user's message (case-insensitive) → call `tool`.

    `arguments` values are templates: `{group}` takes that named group of the pattern,
    trimmed and unquoted.
    """

    tool: str = Field(min_length=1)
    patterns: tuple[str, ...] = Field(min_length=1)
    arguments: dict[str, str] = Field(default_factory=dict)

    @field_validator("patterns")
    @classmethod
    def _patterns_compile(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for index, pattern in enumerate(patterns):
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(
                    f"pattern {index} {pattern!r} is not a valid regex: {error}"
                ) from error
        return patterns

    @model_validator(mode="after")
    def _arguments_use_named_groups(self) -> Self:
        wanted = set().union(*(placeholders(value) for value in self.arguments.values()))
        for index, pattern in enumerate(self.patterns):
            missing = wanted - set(re.compile(pattern).groupindex)
            if missing:
                raise ValueError(
                    f"pattern {index} {pattern!r} has no named group for {sorted(missing)} "
                    "used in arguments; add (?P<name>...)"
                )
        return self

    def compiled(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern, re.IGNORECASE) for pattern in self.patterns]


class ToolReplies(RulesModel):
    """What to say after a tool result. `success` may use fields of the result and arguments."""

    success: LocalizedText
    failures: dict[str, LocalizedText] = Field(default_factory=dict)


class ModelRules(RulesModel):
    intents: tuple[IntentRule, ...] = Field(min_length=1)
    replies: dict[str, ToolReplies]
    # Success reply for a tool that has no `replies` entry (e.g. testbed actions).
    done: LocalizedText
    # Failure replies for any tool, by result code, when the tool has none of its own.
    failures: dict[str, LocalizedText] = Field(default_factory=dict)
    # Any other failure code; must show the code.
    other_failure: LocalizedText
    # Reply to a request no intent matches: say what the model can do.
    unknown_request: LocalizedText
    # How to say a field's value in a reply, e.g. values.archived.true.
    values: dict[str, dict[str, LocalizedText]] = Field(default_factory=dict)

    def success_reply(self, tool: str) -> LocalizedText:
        """What the model says after a success of `tool` (fields of the result as `{field}`)."""
        replies = self.replies.get(tool)
        return replies.success if replies is not None else self.done

    def texts(self) -> Iterator[tuple[str, LocalizedText]]:
        """Every text of the file, with where it is (`replies.refund_ticket.success`)."""
        yield from (("done", self.done), ("other_failure", self.other_failure),
                    ("unknown_request", self.unknown_request))
        yield from ((f"failures.{code}", text) for code, text in self.failures.items())
        for tool, replies in self.replies.items():
            yield f"replies.{tool}.success", replies.success
            yield from ((f"replies.{tool}.failures.{code}", text)
                        for code, text in replies.failures.items())
        for field, words in self.values.items():
            yield from ((f"values.{field}.{value}", text) for value, text in words.items())

    def missing_locales(self, locales: Sequence[str]) -> list[str]:
        """'where: no ja' for each text that does not speak one of `locales`."""
        return [f"{where}: no {', '.join(missing)}" for where, text in self.texts()
                if (missing := [loc for loc in locales if entry_for(text.root, loc) is None])]

    def failure_reply(self, tool: str, code: str) -> LocalizedText:
        """What the model says after `tool` failed with `code` (`{code}` still to fill): the
        tool's own words for it, else the shared ones for that code, else `other_failure`."""
        replies = self.replies.get(tool)
        return ((replies.failures.get(code) if replies is not None else None)
                or self.failures.get(code) or self.other_failure)

    @field_validator("other_failure")
    @classmethod
    def _other_failure_shows_code(cls, text: LocalizedText) -> LocalizedText:
        for locale, said in text.root.items():
            if "code" not in placeholders(said):
                raise ValueError(f"the {locale} text must contain {{code}}")
        return text


def load_rules(path: Path, *, locales: Sequence[str] = ()) -> ModelRules:
    """Read and validate a rules file; every failure names the file and the field. Every
    text must speak each of `locales` (the tutorial's)."""
    rules = load_json_model(path, ModelRules, RulesError)
    missing = rules.missing_locales(locales)
    if missing:
        raise RulesError(f"{path}: the tutorial speaks {list(locales)}, but " + "; ".join(
            missing[:5]) + (f" (and {len(missing) - 5} more)" if len(missing) > 5 else "")
            + "; give each text in every locale of the tutorial")
    return rules
