"""Pick the model provider from the server's environment (`PLING_MODEL_*`), at start-up."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from pling_harness.server.model.openai_compat import (
    DEFAULT_TIMEOUT_SECONDS,
    OpenAICompatibleProvider,
)
from pling_harness.server.model.provider import ModelProvider
from pling_harness.server.model.rules import RulesError
from pling_harness.server.model.scripted import ScriptedModel

PROVIDER_VARIABLE = "PLING_MODEL_PROVIDER"
BASE_URL_VARIABLE = "PLING_MODEL_BASE_URL"
API_KEY_VARIABLE = "PLING_MODEL_API_KEY"
MODEL_NAME_VARIABLE = "PLING_MODEL_NAME"
TIMEOUT_VARIABLE = "PLING_MODEL_TIMEOUT"
PROVIDER_CHOICES = ("scripted", "openai")


class ProviderConfigError(Exception):
    """The environment names a provider that cannot be built; the message says what to set."""


def provider_from_environment(
    environ: Mapping[str, str], *, model_rules: Path, locales: Sequence[str] = ()
) -> ModelProvider:
    """The scripted model (default; its rules must speak each of `locales`) or an
    OpenAI-compatible upstream, as the env says."""
    choice = environ.get(PROVIDER_VARIABLE, "").strip() or "scripted"
    if choice == "scripted":
        try:
            return ScriptedModel.from_file(model_rules, locales=locales)
        except RulesError as error:
            raise ProviderConfigError(str(error)) from error
    if choice == "openai":
        return OpenAICompatibleProvider(
            base_url=_base_url(environ),
            api_key=_required(environ, API_KEY_VARIABLE, "the provider's API key"),
            model=_required(environ, MODEL_NAME_VARIABLE, "a model name, e.g. gpt-4o-mini"),
            timeout=_timeout(environ),
        )
    raise ProviderConfigError(
        f"{PROVIDER_VARIABLE}={choice!r} is not a provider; use one of: "
        f"{', '.join(PROVIDER_CHOICES)}"
    )


def _required(environ: Mapping[str, str], name: str, what: str) -> str:
    value = environ.get(name, "").strip()
    if not value:
        raise ProviderConfigError(
            f"{PROVIDER_VARIABLE}=openai needs {name} ({what}); set it in the environment"
        )
    return value


def _base_url(environ: Mapping[str, str]) -> str:
    url = _required(environ, BASE_URL_VARIABLE, "e.g. https://api.openai.com/v1")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ProviderConfigError(
            f"{BASE_URL_VARIABLE}={url!r} is not an http(s) URL; "
            "set it like https://api.openai.com/v1"
        )
    return url


def _timeout(environ: Mapping[str, str]) -> float:
    raw = environ.get(TIMEOUT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise ProviderConfigError(
            f"{TIMEOUT_VARIABLE}={raw!r} must be a number of seconds > 0, e.g. 30"
        )
    return seconds
