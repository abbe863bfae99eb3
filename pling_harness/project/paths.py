"""The folder names of a project (its root is found by root.py), and the files the package
itself serves."""

from pathlib import Path

FIXTURES_DIR_NAME = "fixtures"
TUTORIALS_DIR_NAME = "tutorials"
PACKAGE_DIR_NAME = "pling_harness"

# What the fixture server serves from the package (package data, in the wheel): the reference
# runtime at /pling/ and the testbed page at /testbed/. Found beside this module, so a mutant's
# copy of the package (pling_harness/mutation/launch.py imports it) serves its mutated runtime.
PACKAGE_DIR = Path(__file__).resolve().parents[1]
WEB_DIR_NAME = "web"
RUNTIME_DIR = PACKAGE_DIR / WEB_DIR_NAME / "runtime"
TESTBED_DIR = PACKAGE_DIR / WEB_DIR_NAME / "testbed"
# The same folders as a project sees them (catalogue and Stryker plan `file` fields).
RUNTIME_PATH = f"{PACKAGE_DIR_NAME}/{WEB_DIR_NAME}/runtime/"
WEB_PATH = f"{PACKAGE_DIR_NAME}/{WEB_DIR_NAME}/"
