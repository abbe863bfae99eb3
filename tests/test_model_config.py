"""Provider selection from PLING_MODEL_* at server start: scripted by default, openai on request."""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.model.config import ProviderConfigError, provider_from_environment
from pling_harness.server.model.openai_compat import OpenAICompatibleProvider
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

RULES = load_tutorial("r-15", PROJECT_ROOT).model_rules_path(PROJECT_ROOT)
KEY = "sk-test-never-show-me"
OPENAI = {
    "PLING_MODEL_PROVIDER": "openai",
    "PLING_MODEL_BASE_URL": "http://127.0.0.1:9/v1",
    "PLING_MODEL_API_KEY": KEY,
    "PLING_MODEL_NAME": "gpt-test",
}


@pytest.mark.parametrize("environ", [{}, {"PLING_MODEL_PROVIDER": "scripted"},
                                     {"PLING_MODEL_PROVIDER": " "}])
def test_provider_from_environment_default_is_scripted(environ: dict[str, str]) -> None:
    assert isinstance(provider_from_environment(environ, model_rules=RULES), ScriptedModel)


def test_provider_from_environment_openai_builds_the_upstream_provider() -> None:
    provider = provider_from_environment({**OPENAI, "PLING_MODEL_TIMEOUT": "2.5"},
                                         model_rules=RULES)

    assert isinstance(provider, OpenAICompatibleProvider)
    assert provider.endpoint == "http://127.0.0.1:9/v1/chat/completions"
    assert provider.model == "gpt-test"
    assert provider.timeout == 2.5
    assert KEY not in repr(provider)


def test_provider_from_environment_openai_timeout_defaults_to_30_seconds() -> None:
    provider = provider_from_environment(OPENAI, model_rules=RULES)

    assert isinstance(provider, OpenAICompatibleProvider)
    assert provider.timeout == 30


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"PLING_MODEL_PROVIDER": "anthropic"}, "'anthropic' is not a provider"),
        ({"PLING_MODEL_BASE_URL": ""}, "PLING_MODEL_BASE_URL"),
        ({"PLING_MODEL_BASE_URL": "ftp://example.com"}, "not an http(s) URL"),
        ({"PLING_MODEL_API_KEY": ""}, "PLING_MODEL_API_KEY"),
        ({"PLING_MODEL_NAME": ""}, "PLING_MODEL_NAME"),
        ({"PLING_MODEL_TIMEOUT": "soon"}, "PLING_MODEL_TIMEOUT='soon'"),
        ({"PLING_MODEL_TIMEOUT": "0"}, "must be a number of seconds > 0"),
        ({"PLING_MODEL_TIMEOUT": "inf"}, "PLING_MODEL_TIMEOUT"),
    ],
)
def test_provider_from_environment_misconfigured_raises_naming_the_variable(
    change: dict[str, str], named: str
) -> None:
    with pytest.raises(ProviderConfigError) as caught:
        provider_from_environment({**OPENAI, **change}, model_rules=RULES)

    assert named in str(caught.value)
    assert KEY not in str(caught.value)


def test_provider_from_environment_scripted_bad_rules_raises_naming_the_file(
    tmp_path: Path,
) -> None:
    with pytest.raises(ProviderConfigError, match=r"model-rules\.json: cannot be read"):
        provider_from_environment({}, model_rules=tmp_path / "model-rules.json")


def test_tutorial_server_misconfigured_provider_fails_at_construction() -> None:
    with pytest.raises(ProviderConfigError, match="PLING_MODEL_API_KEY"):
        TutorialServer(tutorial="r-15", environ={**OPENAI, "PLING_MODEL_API_KEY": ""})
