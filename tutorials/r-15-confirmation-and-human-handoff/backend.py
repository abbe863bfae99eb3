"""r-15's business API: the workspace the page renames, archives, resets and publishes.

Loaded by the fixture server (see pling_harness/server/backend.py); the checks reach its constants
through `pling_harness.tutorial_backend(__file__)` (checks/workspace_state.py).

- `GET /api/workspace` → `{"name": str, "archived": bool, "published": bool}`;
- `POST /api/workspace/name`, body `{"name": str}` (1..80 characters after trimming, no
  control or format character) → the new state; else 400 `INVALID_NAME` or
  `INVALID_NAME_CHARACTER`;
- `POST /api/workspace/archive`, body `{}` → the new state (archived);
- `POST /api/workspace/reset`, body `{}` → the initial state;
- `POST /api/workspace/publish`, body `{"code": str}`: the one code → the new state
  (published); else 400 `WRONG_CODE`.
"""

from __future__ import annotations

from pling_harness import (
    BusinessApi,
    BusinessError,
    BusinessRoute,
    BusinessState,
    EmptyBody,
    StateStore,
    StrictBody,
    describe_character,
    refused_in_name,
)

INITIAL_NAME = "Northwind"
# The one verification code a human can type to publish (§6).
PUBLISH_CODE = "246810"
NAME_MAX_LENGTH = 80


class WorkspaceSnapshot(BusinessState):
    """The workspace as `GET /api/workspace` reports it (tutorial.json's api.initial_state)."""

    name: str
    archived: bool
    published: bool


INITIAL_WORKSPACE = WorkspaceSnapshot(name=INITIAL_NAME, archived=False, published=False)


class InvalidName(BusinessError):
    code = "INVALID_NAME"


class InvalidNameCharacter(BusinessError):
    code = "INVALID_NAME_CHARACTER"


class WrongCode(BusinessError):
    code = "WRONG_CODE"


class NameBody(StrictBody):
    name: str


class PublishBody(StrictBody):
    code: str


class WorkspaceState(StateStore):
    """The workspace of one server instance; every change is atomic."""

    def __init__(self) -> None:
        super().__init__(INITIAL_WORKSPACE)

    def rename(self, name: str) -> BusinessState:
        # Checked before trimming: a control or format character is refused wherever it is,
        # never silently stripped (the user approved the name as the card showed it).
        refused = refused_in_name(name)
        if refused is not None:
            position, character = refused
            raise InvalidNameCharacter(
                f"The name holds {describe_character(character)} at position {position} "
                f"(counting characters from 1), a control or format character that hides or "
                f"reorders text; remove it."
            )
        trimmed = name.strip()
        if not 1 <= len(trimmed) <= NAME_MAX_LENGTH:
            raise InvalidName(
                f"The name must be 1 to {NAME_MAX_LENGTH} characters after trimming "
                f"spaces; got {len(trimmed)}."
            )
        return self.update(name=trimmed)

    def archive(self) -> BusinessState:
        return self.update(archived=True)

    def publish(self, code: str) -> BusinessState:
        if code != PUBLISH_CODE:
            raise WrongCode("The verification code is not correct; nothing was published.")
        return self.update(published=True)

    def reset(self) -> BusinessState:
        return self.replace(INITIAL_WORKSPACE)


def make_state() -> WorkspaceState:
    return WorkspaceState()


def routes(api: BusinessApi[WorkspaceState]) -> list[BusinessRoute]:
    state = api.state
    return [
        api.read("/api/workspace"),
        api.change("/api/workspace/name", NameBody, lambda body: state.rename(body.name)),
        api.change("/api/workspace/archive", EmptyBody, lambda _: state.archive()),
        api.change("/api/workspace/reset", EmptyBody, lambda _: state.reset()),
        api.change("/api/workspace/publish", PublishBody, lambda body: state.publish(body.code)),
    ]
