"""`model-rules.json`: the scripted model's intents (user text → tool call) and replies."""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.project.datafile import load_json_model
from harness.server.model.wire import ModelLocale


class RulesError(Exception):
    """The rules file is missing or invalid; the message names the file and the field."""


class RulesModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def placeholders(template: str) -> set[str]:
    """The `{name}` fields a str.format template uses."""
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


class LocalizedText(RulesModel):
    zh: str = Field(min_length=1)
    en: str = Field(min_length=1)

    def text(self, locale: ModelLocale) -> str:
        return self.zh if locale == "zh" else self.en

    def fields(self) -> set[str]:
        return placeholders(self.zh) | placeholders(self.en)


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

    def failure_reply(self, tool: str, code: str) -> LocalizedText:
        """What the model says after `tool` failed with `code` (`{code}` still to fill): the
        tool's own words for it, else the shared ones for that code, else `other_failure`."""
        replies = self.replies.get(tool)
        return ((replies.failures.get(code) if replies is not None else None)
                or self.failures.get(code) or self.other_failure)

    @field_validator("other_failure")
    @classmethod
    def _other_failure_shows_code(cls, text: LocalizedText) -> LocalizedText:
        for locale in ("zh", "en"):
            if "code" not in placeholders(text.text(locale)):
                raise ValueError(f"the {locale} text must contain {{code}}")
        return text


def load_rules(path: Path) -> ModelRules:
    """Read and validate a rules file; every failure names the file and the field."""
    return load_json_model(path, ModelRules, RulesError)
