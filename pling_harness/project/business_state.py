"""A tutorial's business state, typed from its declaration (`api.initial_state` in tutorial.json).

The harness knows no tutorial's state: it knows that a state is a flat record of JSON scalars
whose fields and types are those of the declared initial state. `BusinessState` is the base of
every such record, the fixture server's (a tutorial's `backend.py` may subclass it with typed
fields) and external mode's (`declared_state_model`, built from the declaration). Two states
are equal when they hold the same fields with the same values, whichever class holds them, so
a check compares what a server reports with its own constants in either mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    create_model,
)

from pling_harness.project.contract import JsonScalar

# The JSON type of a declared initial value → the field type every later value must have
# (strict: a "true" string is not a bool). A null initial value allows any scalar.
_FIELD_TYPES: dict[type, Any] = {
    bool: StrictBool, int: StrictInt | StrictFloat, float: StrictFloat | StrictInt, str: StrictStr,
}


class BusinessState(BaseModel):
    """One tutorial's business state: frozen, no field beyond those declared."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    if TYPE_CHECKING:
        # The fields are the tutorial's, not the harness's: a check names them as it likes
        # (a subclass with typed fields is typed as usual).
        def __init__(self, **fields: Any) -> None: ...

        def __getattr__(self, name: str) -> Any: ...

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BusinessState):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.model_dump().items())))

    def fields(self) -> dict[str, JsonScalar]:
        """The state as the tutorial's API reports it (field → value)."""
        return self.model_dump()


def declared_state_model(initial_state: Mapping[str, JsonScalar]) -> type[BusinessState]:
    """The state model whose fields are `initial_state`'s, each typed as its value's JSON type."""
    return _model_for(tuple((field, type(value)) for field, value in initial_state.items()))


@cache
def _model_for(shape: tuple[tuple[str, type], ...]) -> type[BusinessState]:
    # Cached by shape, so every reader of one declaration gets the same class.
    fields: dict[str, Any] = {
        field: (_FIELD_TYPES.get(kind, JsonScalar), ...) for field, kind in shape}
    return create_model("DeclaredState", __base__=BusinessState, **fields)


def declared_state(initial_state: Mapping[str, JsonScalar],
                   values: Mapping[str, Any]) -> BusinessState:
    """`values` as the declared state (raises pydantic's ValidationError if it is not one)."""
    return declared_state_model(initial_state).model_validate(dict(values))
