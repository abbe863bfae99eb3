"""A tutorial's action table (`tutorials/<id>/actions.json`): what each action the page offers
the model promises, as data, so the harness can generate every check that follows from it.

Per action: the user request that makes the scripted model call it (`asked_with`, a name of
the tutorial's `user_requests`), the policy it must have, the business request its `run`
makes, its effect on the business state (every field it does not name must be left alone),
what the page then shows, when it is unavailable, and for a handoff the human's steps as
data and what "done" means on the page and at the server. `pling_harness.plugin.declared`
turns each action × locale × applicable guarantee into a check (docs/guarantees.md,
"Generated checks"); the table is compared with what the page really projects to the model,
so it cannot go stale.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pling_harness.project.contract import ApiRequest, JsonScalar, PublishedRule
from pling_harness.project.datafile import load_json_model

ACTION_TABLE_FILE_NAME = "actions.json"

# An action id as the runtime takes it (page contract, "Declaring an action").
ActionId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]
Policy = Literal["none", "ask", "ask-always", "handoff"]
# What a business API refuses in a string argument, beyond its schema: a hidden character
# (the hidden-character table's `refused_in_name`) or a value that is blank once trimmed.
Refusal = Literal["hidden-characters", "blank"]


class TableError(Exception):
    """An action table is missing, invalid, or disagrees with its tutorial or its page."""


class Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FromBackend(Row):
    """A value the tutorial's backend.py defines (`{"backend": "PUBLISH_CODE"}`), so the
    table never copies a secret the server checks."""

    backend: Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9_]*$")]


class HandoffStep(Row):
    """One step the human does: type `fill`'s value into a target, or click a target."""

    fill: ActionId | None = None
    click: ActionId | None = None
    value: str | FromBackend | None = Field(default=None, alias="with")

    @model_validator(mode="after")
    def _one_gesture(self) -> Self:
        if (self.fill is None) == (self.click is None):
            raise ValueError("a step either fills a target or clicks one: give `fill` (with "
                             "`with`) or `click`, not both or neither")
        if (self.fill is not None) != (self.value is not None):
            raise ValueError("`with` is the text a `fill` step types, and only a fill has one")
        return self

    @property
    def target(self) -> str:
        return self.fill if self.fill is not None else str(self.click)


class HandoffDone(Row):
    """What "done" means: the business request the human's last step makes, answered with
    success, the server's state then holding `state` and the page showing `view`."""

    request: ApiRequest
    state: dict[str, JsonScalar] = Field(min_length=1)
    view: dict[str, str] = Field(default_factory=dict)


class HandoffRow(Row):
    steps: tuple[HandoffStep, ...] = Field(min_length=1)
    timeout_ms: int = Field(default=300_000, ge=1000, le=3_600_000)
    """Its declared `handoff.timeout` (SPEC §4's default: 5 minutes)."""
    done: HandoffDone

    def rule(self) -> PublishedRule:
        """`done` as the rule `guarantees.success_only_after_published` proves."""
        return PublishedRule(request=self.done.request, state=self.done.state,
                             view=self.done.view)


class ArgumentRow(Row):
    refused: tuple[Refusal, ...] = ()
    """Values of this string argument the page and its business API refuse (the page
    before any request, `RUN_FAILED`; the server with a 4xx)."""


class ActionRow(Row):
    asked_with: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$")]
    """The `user_requests` name whose words make the scripted model call this action."""
    policy: Policy
    calls: ApiRequest | None = None
    """The business request its `run` makes; in `body`, a string `"{arg}"` stands for that
    argument's value (none: the arguments, as the run received them)."""
    effect: dict[str, JsonScalar | str] = Field(default_factory=dict)
    """The state fields it changes (a `"{arg}"` value: that argument); every other field
    must be left as it was."""
    shows: dict[str, str] = Field(default_factory=dict)
    """What the page's business view shows after it (view name → value)."""
    starts_from: dict[str, JsonScalar] = Field(default_factory=dict)
    """Fields set before its checks, so that its effect is visible (e.g. reset)."""
    unavailable_when: tuple[dict[str, JsonScalar], ...] = ()
    """States in which the page disables it (any field values listed): a call then answers
    `UNAVAILABLE`; the first is the one its check opens the page on."""
    arguments: dict[str, ArgumentRow] = Field(default_factory=dict)
    handoff: HandoffRow | None = None

    @model_validator(mode="after")
    def _handoff_matches_policy(self) -> Self:
        if (self.policy == "handoff") != (self.handoff is not None):
            raise ValueError("policy \"handoff\" and a `handoff` block go together: give both "
                             "or neither")
        if self.handoff is None and self.calls is None and self.effect:
            raise ValueError("an action with an `effect` must say which business request "
                             "makes it (`calls`)")
        if self.calls is not None and self.calls.method == "GET" and self.effect:
            # Any other site can make a browser send a GET (an <img>, a link), so no guard
            # can refuse it: a change of state must be another method.
            raise ValueError("a GET request changes nothing: give `calls` another method "
                             "(POST, PUT, PATCH, DELETE) for an action with an `effect`")
        return self

    @property
    def asks(self) -> bool:
        return self.policy in ("ask", "ask-always")

    @property
    def disables_itself(self) -> bool:
        """Whether its own effect leaves it unavailable (a second call in the same session
        answers UNAVAILABLE, e.g. archive)."""
        return any(all(self.effect.get(k) == v for k, v in state.items())
                   for state in self.unavailable_when)


class ActionTable(Row):
    actions: dict[ActionId, ActionRow] = Field(min_length=1)

    def names(self) -> list[str]:
        return sorted(self.actions)

    def check_against(self, *, path: Path, user_requests: Sequence[str],
                      initial_state: Mapping[str, Any] | None,
                      business_view: Sequence[str]) -> None:
        """Every name the table uses is one its tutorial declares; else a TableError naming
        the file, the field and what is known."""
        fields = set(initial_state or {})
        for action, row in self.actions.items():
            where = f"{path}: field actions.{action}"
            if row.asked_with not in user_requests:
                raise TableError(f"{where}.asked_with: {row.asked_with!r} is not one of the "
                                 f"tutorial's user_requests ({', '.join(sorted(user_requests))})")
            named = {"effect": set(row.effect), "starts_from": set(row.starts_from),
                     "unavailable_when": {k for state in row.unavailable_when for k in state},
                     "handoff.done.state": set(row.handoff.done.state if row.handoff else {})}
            for field, keys in named.items():
                unknown = sorted(keys - fields)
                if unknown:
                    raise TableError(f"{where}.{field}: {unknown} not in the tutorial's "
                                     f"api.initial_state ({', '.join(sorted(fields)) or 'none'})")
            views = {"shows": set(row.shows),
                     "handoff.done.view": set(row.handoff.done.view if row.handoff else {})}
            for field, keys in views.items():
                unknown = sorted(keys - set(business_view))
                if unknown:
                    raise TableError(f"{where}.{field}: {unknown} not in the tutorial's "
                                     f"page.business_view ({', '.join(business_view) or 'none'})")

    def stale_against(self, projected: Sequence[str]) -> str | None:
        """How the table and the actions the page projected to the model disagree, or None."""
        on_page = sorted(set(projected) - set(self.actions))
        in_table = sorted(set(self.actions) - set(projected))
        if not on_page and not in_table:
            return None
        said = []
        if on_page:
            said.append(f"the page offers the model {on_page}, which the table does not list")
        if in_table:
            said.append(f"the table lists {in_table}, which the page does not offer")
        return (f"the action table ({ACTION_TABLE_FILE_NAME}) is stale: {'; '.join(said)} "
                f"(projected: {sorted(projected)}; table: {self.names()}); add or remove the "
                "rows so the two agree")


def action_table_path(tutorial_directory: Path) -> Path:
    return tutorial_directory / ACTION_TABLE_FILE_NAME


def check_paths(tutorial_directory: Path) -> list[Path]:
    """What pytest runs for a tutorial: its hand-written checks (`checks/`) and its action
    table (the generated ones), each if it has one; the checks folder if it has neither, so
    pytest names what is missing."""
    found = [path for path in (tutorial_directory / "checks",
                               action_table_path(tutorial_directory)) if path.exists()]
    return found or [tutorial_directory / "checks"]


def load_action_table(path: Path) -> ActionTable:
    """The table at `path`; a missing, unreadable or invalid file raises a TableError naming
    the file and the field."""
    return load_json_model(path, ActionTable, TableError)


def placeholder(value: object) -> str | None:
    """The argument a whole-string `"{arg}"` value stands for, else None."""
    if isinstance(value, str) and value.startswith("{") and value.endswith("}") \
            and value[1:-1].isidentifier():
        return value[1:-1]
    return None


def filled(template: Mapping[str, Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """`template` with each `"{arg}"` value replaced by that argument's value."""
    return {key: arguments.get(name, value) if (name := placeholder(value)) else value
            for key, value in template.items()}
