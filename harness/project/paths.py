"""Where the project's files live."""

from pathlib import Path

# The harness is installed editable (scripts/bootstrap), so the package sits in the project.
PROJECT_ROOT = Path(__file__).resolve().parents[2]
FIXTURES_DIR_NAME = "fixtures"
TUTORIALS_DIR_NAME = "tutorials"
RUNTIME_DIR_NAME = "pling"
TESTBED_DIR_NAME = "pling-testbed"
