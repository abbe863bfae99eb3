"""A package's releases from the npm registry (`npm view`, the ordinary client), in version
order, and the releases of its companions that were released with each one.

A range holds exact releases only (`7.0.150`), prereleases (`7.0.0-beta.3`) only when asked.
A companion (`--with @ai-sdk/react`) is set, for each release of the package, to its own
release that depends on exactly that release (the newest such; `@ai-sdk/react` pins one
exact `ai`), else to its newest release that depends on an earlier one (no `@ai-sdk/react`
pins ai 7.0.148: 4.0.147, pinning 7.0.147, was the one users had); only the companion's
major line the page pins is considered. A companion that pins no release of the package
(`@ai-sdk/openai-compatible`) is set to its newest release published by the time the
package's release was (within `RELEASED_TOGETHER`, one publishing run): what a user who
installed both then got.
"""

from __future__ import annotations

import datetime
import json
import re
import subprocess
from collections.abc import Callable, Sequence
from functools import cmp_to_key

from pling_harness.mutation.releases import EXACT_VERSION, ReleasePins

VIEW_TIMEOUT_S = 120
# Releases of one publishing run land minutes apart.
RELEASED_TOGETHER = datetime.timedelta(minutes=15)
_CORE = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$")
# Runs `npm view ARGS --json` and gives its parsed output (a test passes its own).
View = Callable[[Sequence[str]], object]


class RegistryError(RuntimeError):
    """The registry could not answer, or its answer does not fit; the message says which."""


def npm_view(arguments: Sequence[str], npm: str = "npm") -> object:
    command = [npm, "view", *arguments, "--json"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False,
                                timeout=VIEW_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RegistryError(f"{' '.join(command)} did not finish: {error}") from error
    if result.returncode != 0:
        said = (result.stderr or result.stdout).strip()[-600:]
        raise RegistryError(f"{' '.join(command)} failed: {said}")
    try:
        return json.loads(result.stdout or "null")
    except json.JSONDecodeError as error:
        raise RegistryError(f"{' '.join(command)} printed no JSON: {error}") from error


def _parts(version: str) -> tuple[tuple[int, int, int], list[str]]:
    found = _CORE.match(version)
    if found is None:
        raise ValueError(f"not an exact version: {version!r}")
    major, minor, patch, pre = found.groups()
    return (int(major), int(minor), int(patch)), (pre.split(".") if pre else [])


def compare(left: str, right: str) -> int:
    """Semantic-version order: 7.0.9 < 7.0.10, 7.0.0-beta.2 < 7.0.0-beta.10 < 7.0.0."""
    (core_l, pre_l), (core_r, pre_r) = _parts(left), _parts(right)
    if core_l != core_r:
        return -1 if core_l < core_r else 1
    if not pre_l or not pre_r:
        return (len(pre_r) > 0) - (len(pre_l) > 0)  # a release after its prereleases
    for a, b in zip(pre_l, pre_r, strict=False):
        if a == b:
            continue
        if a.isdigit() and b.isdigit():
            return -1 if int(a) < int(b) else 1
        if a.isdigit() != b.isdigit():
            return -1 if a.isdigit() else 1  # numeric identifiers sort first
        return -1 if a < b else 1
    return (len(pre_l) > len(pre_r)) - (len(pre_l) < len(pre_r))


def ordered(versions: Sequence[str]) -> list[str]:
    return sorted(versions, key=cmp_to_key(compare))


def is_prerelease(version: str) -> bool:
    return bool(_parts(version)[1])


def versions_in_range(versions: Sequence[str], low: str, high: str, *,
                      prereleases: bool = False) -> list[str]:
    """The exact versions from `low` to `high`, both included, in order."""
    for bound in (low, high):
        if not EXACT_VERSION.match(bound):
            raise RegistryError(f"{bound!r} is not an exact version such as 7.0.150")
    if compare(low, high) > 0:
        raise RegistryError(f"--from {low} comes after --to {high}")
    chosen = [version for version in versions if EXACT_VERSION.match(version)
              and (prereleases or not is_prerelease(version))
              and compare(low, version) <= 0 <= compare(high, version)]
    return ordered(chosen)


def registry_versions(package: str, view: View = npm_view) -> list[str]:
    """Every version of `package` the registry has (`npm view PACKAGE versions`)."""
    said = view([package, "versions"])
    found = [said] if isinstance(said, str) else said
    if not isinstance(found, list) or not all(isinstance(v, str) for v in found):
        raise RegistryError(f"npm view {package} versions gave no list of versions")
    return [str(version) for version in found]


def companion_versions(companion: str, package: str, major: int,
                       view: View = npm_view) -> dict[str, str]:
    """Each release of `companion`'s `major` line → the exact `package` release it pins."""
    said = view([f"{companion}@{major}", "version", f"dependencies.{package}"])
    entries = [said] if isinstance(said, dict) else said
    pins: dict[str, str] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        version, pinned = entry.get("version"), entry.get(f"dependencies.{package}")
        if (isinstance(version, str) and isinstance(pinned, str)
                and EXACT_VERSION.match(version) and EXACT_VERSION.match(pinned)
                and not is_prerelease(version)):
            pins[version] = pinned
    return pins


def publish_times(package: str, view: View = npm_view) -> dict[str, datetime.datetime]:
    """Each exact release of `package` → when it was published (`npm view PACKAGE time`)."""
    said = view([package, "time"])
    times: dict[str, datetime.datetime] = {}
    for version, when in (said.items() if isinstance(said, dict) else ()):
        if isinstance(when, str) and EXACT_VERSION.match(version):
            times[version] = datetime.datetime.fromisoformat(when.replace("Z", "+00:00"))
    if not times:
        raise RegistryError(f"npm view {package} time gave no publish times")
    return times


def published_by(companion: dict[str, datetime.datetime], major: int,
                 when: datetime.datetime) -> str | None:
    """The companion's newest exact release of `major` published by `when` (+ one run)."""
    chosen = [(at, version) for version, at in companion.items()
              if _parts(version)[0][0] == major and not is_prerelease(version)
              and at <= when + RELEASED_TOGETHER]
    return max(chosen)[1] if chosen else None


def released_with(version: str, pins: dict[str, str]) -> str | None:
    """The companion release for `version` of the package: the newest pinning exactly it,
    else the newest pinning an earlier one (None: every one pins a later one)."""
    exact = [companion for companion, pinned in pins.items() if pinned == version]
    if exact:
        return ordered(exact)[-1]
    earlier = [companion for companion, pinned in pins.items() if compare(pinned, version) < 0]
    if not earlier:
        return None
    newest_pin = ordered([pins[companion] for companion in earlier])[-1]
    return ordered([c for c in earlier if pins[c] == newest_pin])[-1]


def release_pins(package: str, versions: Sequence[str], companions: dict[str, int],
                 view: View = npm_view) -> dict[str, ReleasePins]:
    """Each version's pins: the package, and each companion (→ the major line the page
    pins) at its release that goes with it."""
    chosen: dict[str, dict[str, str]] = {version: {package: version} for version in versions}
    package_times: dict[str, datetime.datetime] | None = None
    for companion, major in companions.items():
        pins = companion_versions(companion, package, major, view)
        if pins:
            for version in versions:
                found = released_with(version, pins)
                if found is None:
                    raise RegistryError(f"no {companion}@{major} release goes with {package} "
                                        f"{version}: each one pins a later release")
                chosen[version][companion] = found
            continue
        package_times = package_times or publish_times(package, view)
        times = publish_times(companion, view)
        for version in versions:
            found = published_by(times, major, package_times[version]) \
                if version in package_times else None
            if found is None:
                raise RegistryError(f"no {companion}@{major} release was published by "
                                    f"{package} {version}'s")
            chosen[version][companion] = found
    return {version: ReleasePins(packages=packages) for version, packages in chosen.items()}


def major_of(version_spec: str) -> int:
    """The major of the version a page pins (`4.0.177`, `^4.0.0`, `~4.1`)."""
    found = re.search(r"\d+", version_spec)
    if found is None:
        raise RegistryError(f"cannot read a major version from {version_spec!r}")
    return int(found.group())
