"""Run pytest with the `harness` package imported from a mutant's copy, not the installed one.

Executed as a script from inside that copy (`python <copy>/harness/cli/mutation/launch.py ARGS`):
the project is installed editable, and its import finder would otherwise always pick the
real source tree, so server-side mutants would never be loaded.
"""

import sys
from pathlib import Path

COPY_ROOT = Path(__file__).resolve().parents[3]


def _drop_editable_finders() -> None:
    sys.meta_path[:] = [
        finder for finder in sys.meta_path
        if not type(finder).__module__.startswith("__editable__")
        and not getattr(finder, "__module__", "").startswith("__editable__")
    ]


if __name__ == "__main__":
    _drop_editable_finders()
    sys.path[0] = str(COPY_ROOT)
    import pytest

    raise SystemExit(pytest.main(sys.argv[1:]))
