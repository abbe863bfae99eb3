"""Run pytest with the `pling_harness` package imported from a mutant's copy, not the installed one.

Executed as a script from inside that copy (`python <copy>/harness/mutation/launch.py ARGS`):
the project is installed editable, and its import finder would otherwise always pick the
real source tree, so server-side mutants would never be loaded. With `--pling-tutorial` as
the first argument it runs `pling-tutorial` instead (the rest are its arguments), e.g. the
copy's own `dev` server for `mutate --external`.
"""

import sys
from pathlib import Path

COPY_ROOT = Path(__file__).resolve().parents[2]


def _drop_editable_finders() -> None:
    sys.meta_path[:] = [
        finder for finder in sys.meta_path
        if not type(finder).__module__.startswith("__editable__")
        and not getattr(finder, "__module__", "").startswith("__editable__")
    ]


if __name__ == "__main__":
    _drop_editable_finders()
    sys.path[0] = str(COPY_ROOT)
    if sys.argv[1:2] == ["--pling-tutorial"]:
        import runpy

        # Run as the program it is (its `__main__` block), not imported: the runner sits
        # below the CLI.
        sys.argv = ["pling-tutorial", *sys.argv[2:]]
        runpy.run_module("pling_harness.cli.main", run_name="__main__", alter_sys=True)
    import pytest

    raise SystemExit(pytest.main(sys.argv[1:]))
