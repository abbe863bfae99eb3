"""r-94's business API: one shared board, renamed with approval, cleared with approval every
time, and locked by a person who types the lock code. (Test data: tests/test_second_tutorial.py
builds a tutorial from these files.)"""

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

# The one code that locks the board.
LOCK_CODE = "4321"
TITLE_MAX_LENGTH = 40


class Board(BusinessState):
    title: str
    cards: int
    locked: bool


INITIAL_BOARD = Board(title="Ideas", cards=3, locked=False)


class InvalidTitle(BusinessError):
    code = "INVALID_TITLE"


class WrongCode(BusinessError):
    code = "WRONG_CODE"


class TitleBody(StrictBody):
    title: str


class LockBody(StrictBody):
    code: str


class BoardState(StateStore):
    def __init__(self) -> None:
        super().__init__(INITIAL_BOARD)

    def rename(self, title: str) -> BusinessState:
        refused = refused_in_name(title)
        if refused is not None:
            position, character = refused
            raise InvalidTitle(f"The title holds {describe_character(character)} at position "
                               f"{position}; remove it.")
        if not title.strip() or len(title) > TITLE_MAX_LENGTH:
            raise InvalidTitle(f"The title must be 1 to {TITLE_MAX_LENGTH} characters, not "
                               "blank.")
        return self.update(title=title)

    def clear(self) -> BusinessState:
        return self.update(cards=0)

    def lock(self, code: str) -> BusinessState:
        if code != LOCK_CODE:
            raise WrongCode("The lock code is not correct; the board stays unlocked.")
        return self.update(locked=True)


def make_state() -> BoardState:
    return BoardState()


def routes(api: BusinessApi[BoardState]) -> list[BusinessRoute]:
    state = api.state
    return [
        api.read("/api/board"),
        api.change("/api/board/title", TitleBody, lambda body: state.rename(body.title)),
        api.change("/api/board/clear", EmptyBody, lambda _: state.clear()),
        api.change("/api/board/lock", LockBody, lambda body: state.lock(body.code)),
        api.change("/api/board/reset", EmptyBody, lambda _: state.reset()),
    ]
