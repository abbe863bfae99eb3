"""`pling-tutorial dev <tutorial> --page copilotkit`'s Vite: the tutorial's page with its
assistant built on CopilotKit (`fixtures/<short id>-copilotkit/`), CopilotKit's runtime
inside Vite's server calling the model on OpenAI's wire at a base URL (PLING_OPENAI_BASE_URL,
as the AI SDK page's server does). The bug replay serves a copy of the page on another
CopilotKit release the same way (`pling-tutorial releases`, pling_harness/cli/releases/)."""

from __future__ import annotations

from pathlib import Path

from pling_harness.cli.ai_sdk_page import MODEL_URL_VARIABLE
from pling_harness.cli.react_page import ReactMode, ViteServer


def copilotkit_vite(directory: Path, *, api_origin: str, model_base_url: str,
                    port: int, mode: ReactMode = "copilotkit") -> ViteServer:
    """Vite for the CopilotKit page (under the system's Node.js): its dev server, or with
    `mode="copilotkit-build"` its development build under `vite preview`."""
    return ViteServer(directory=directory, mode=mode, api_origin=api_origin, port=port,
                      environ={MODEL_URL_VARIABLE: model_base_url})
