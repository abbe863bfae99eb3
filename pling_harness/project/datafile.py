"""Read a JSON data file into a pydantic model; every failure names the file and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

Model = TypeVar("Model", bound=BaseModel)


def describe_validation_error(error: ValidationError) -> str:
    """'field a.b: message' for each problem pydantic found, joined on one line."""
    problems = []
    for detail in error.errors():
        where = ".".join(str(part) for part in detail["loc"]) or "(top level)"
        problems.append(f"field {where}: {detail['msg']}")
    return "; ".join(problems)


def load_json_model(path: Path, model: type[Model], error_type: type[Exception]) -> Model:
    """Parse `path` as `model`; unreadable, non-JSON or invalid content raises `error_type`."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise error_type(f"{path}: cannot be read ({error.strerror})") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise error_type(
            f"{path}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from error
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise error_type(f"{path}: {describe_validation_error(error)}") from error
