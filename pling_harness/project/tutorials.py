"""Tutorial definitions (`tutorials/<id>/tutorial.json`): the model, the loader and the lookup."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pling_harness.project.contract import (
    ApiDeclaration,
    PageContract,
    PageDeclaration,
    PublishedRule,
)
from pling_harness.project.datafile import load_json_model
from pling_harness.project.dock_driver import (
    DriverSpec,
    default_driver,
    find_driver,
    load_driver,
)
from pling_harness.project.guarantee_families import GuaranteeFamily, GuaranteeName
from pling_harness.project.locales import Locale
from pling_harness.project.page_rows import PageRow, unique_names
from pling_harness.project.paths import FIXTURES_DIR_NAME, TUTORIALS_DIR_NAME
from pling_harness.project.root import current_project_root

TUTORIAL_FILE_NAME = "tutorial.json"
COPY_DIR_NAME = "copy"
# The dock's strings a tutorial brings for a locale the reference runtime ships none for
# (`copy/dock/<locale>.json`, served at /copy/dock/<locale>.json).
DOCK_COPY_DIR_NAME = "dock"
MODEL_RULES_FILE_NAME = "model-rules.json"
# The tutorial's mutation tests (`pling-tutorial mutate`): its hand-written mutants, one JSON
# file per area, and the StrykerJS plan of `mutate --generated`. Never served.
MUTATION_DIR_NAME = "mutation"
CATALOGUE_DIR_NAME = "catalogue"
STRYKER_PLAN_FILE_NAME = "stryker-plan.json"

# Ids become folder names and URL parts, so they are kept to a safe alphabet.
Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=100)]
RequestName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$", max_length=50)]
# A file inside the tutorial's folder: no absolute path, no `..` (each part starts with a
# letter, digit or underscore, so none is `..`).
_FILE_PART = r"[A-Za-z0-9_][A-Za-z0-9_.-]*"
TutorialFile = Annotated[str, Field(pattern=rf"^{_FILE_PART}(/{_FILE_PART})*$", max_length=200)]
UserText = Annotated[str, Field(min_length=1, pattern=r"\S")]


class TutorialError(Exception):
    """A tutorial is missing, unknown or its definition file is invalid."""


class Tutorial(BaseModel):
    """One tutorial: which fixture page it serves, on which port, in which locales, and what
    its page and server offer the harness (`page`, `api`, `published`: see
    `pling_harness.project.contract`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Slug
    short_id: Slug
    title: dict[Locale, UserText]
    """The tutorial's title in each of its locales."""
    fixture: Slug
    port: int = Field(ge=1, le=65535)
    locales: tuple[Locale, ...] = Field(min_length=1)
    """The locales its page, copy, model rules and checks speak, in order (checks run and
    reports show them in this order). Any locale: what the harness has no words for, the
    tutorial brings (docs/adding-a-tutorial.md, "Another language")."""
    default_locale: Locale
    page: PageDeclaration = Field(default_factory=PageDeclaration)
    api: ApiDeclaration = Field(default_factory=ApiDeclaration)
    published: PublishedRule | None = None
    driver: TutorialFile | None = None
    """The dock driver file its page's assistant is read with, inside the tutorial's folder
    (e.g. "drivers/acme.json"; pling_harness/project/dock_driver.py); none: the page
    contract's test ids."""
    user_requests: dict[RequestName, dict[Locale, UserText]] = Field(default_factory=dict)
    """What a user types for each named request, in every locale (a check's `say("archive")`):
    plain words the tutorial's model understands."""
    guarantees: dict[GuaranteeName, GuaranteeFamily] = Field(default_factory=dict)
    """The tutorial's own guarantee families, besides the harness's
    (`pling_harness.project.guarantee_families`)."""
    pages: tuple[PageRow, ...] = ()
    """The pages it can be checked on besides its fixture (`check --page NAME`): the pages
    table's rows (`pling_harness.project.page_rows`, docs/adding-a-page.md)."""

    @model_validator(mode="after")
    def _default_locale_is_offered(self) -> Self:
        unique_names(self.pages)
        if self.default_locale not in self.locales:
            raise ValueError(
                f"default_locale {self.default_locale!r} is not one of locales {list(self.locales)}"
            )
        if len(set(self.locales)) != len(self.locales):
            raise ValueError(f"locales {list(self.locales)} lists a locale twice")
        if set(self.title) != set(self.locales):
            raise ValueError(f"title has locales {sorted(self.title)}; give exactly the "
                             f"tutorial's locales {list(self.locales)}")
        try:
            self.contract  # noqa: B018 - the three declarations must agree
        except ValidationError as error:
            raise ValueError(str(error.errors()[0]["msg"]).removeprefix("Value error, ")) from None
        return self

    @model_validator(mode="after")
    def _user_requests_speak_every_locale(self) -> Self:
        for name, texts in self.user_requests.items():
            if set(texts) != set(self.locales):
                raise ValueError(
                    f"user_requests.{name} has locales {sorted(texts)}; give exactly the "
                    f"tutorial's locales {list(self.locales)}")
        return self

    def user_request(self, name: str, locale: str) -> str:
        """What a user types for request `name` in `locale` (from `user_requests`)."""
        texts = self.user_requests.get(name)
        if texts is None:
            known = ", ".join(sorted(self.user_requests)) or "none"
            raise TutorialError(
                f"tutorial {self.id!r} has no user request {name!r} (known: {known}); add it "
                f"to user_requests in tutorials/{self.id}/{TUTORIAL_FILE_NAME}")
        if locale not in texts:
            raise TutorialError(f"tutorial {self.id!r} has no {locale!r} text for user request "
                                f"{name!r}; its locales are {list(self.locales)}")
        return texts[locale]

    @property
    def contract(self) -> PageContract:
        """`page`, `api` and `published` together, as the evidence layer reads them."""
        return PageContract(page=self.page, api=self.api, published=self.published)

    def directory(self, root: Path) -> Path:
        return root / TUTORIALS_DIR_NAME / self.id

    def fixture_directory(self, root: Path) -> Path:
        return root / FIXTURES_DIR_NAME / self.fixture

    def copy_directory(self, root: Path) -> Path:
        return self.directory(root) / COPY_DIR_NAME

    def copy_path(self, root: Path, locale: str) -> Path:
        """The page's copy in `locale`."""
        return self.copy_directory(root) / f"{locale}.json"

    def dock_copy_directory(self, root: Path) -> Path:
        return self.copy_directory(root) / DOCK_COPY_DIR_NAME

    def dock_copy_path(self, root: Path, locale: str) -> Path:
        """The dock's strings in `locale`, where the tutorial brings them."""
        return self.dock_copy_directory(root) / f"{locale}.json"

    def model_rules_path(self, root: Path) -> Path:
        return self.directory(root) / MODEL_RULES_FILE_NAME

    def mutation_directory(self, root: Path) -> Path:
        return self.directory(root) / MUTATION_DIR_NAME

    def catalogue_directory(self, root: Path) -> Path:
        return self.mutation_directory(root) / CATALOGUE_DIR_NAME

    def stryker_plan_path(self, root: Path) -> Path:
        return self.mutation_directory(root) / STRYKER_PLAN_FILE_NAME

    def dock_driver(self, root: Path, choice: str | None = None) -> DriverSpec:
        """The driver its page is read with: `choice` (a run's --driver: a name in its
        `drivers/` folder or a path), else the one it declares, else the page contract's."""
        if choice:
            return load_driver(find_driver(choice, self.directory(root)))
        if self.driver is not None:
            return load_driver(self.directory(root) / self.driver)
        return default_driver()

    def page_url(self, base_url: str, locale: str | None = None) -> str:
        """The tutorial page under `base_url`, e.g. http://127.0.0.1:5255/?lang=zh."""
        return f"{base_url.rstrip('/')}/?lang={locale or self.default_locale}"


def read_tutorial_file(path: Path) -> Tutorial:
    """Parse one tutorial.json; every failure is a TutorialError naming the file (and field)."""
    tutorial = load_json_model(path, Tutorial, TutorialError)
    # The copy and model rules are found by id, so the folder must carry the id.
    if path.parent.name != tutorial.id:
        raise TutorialError(
            f"{path}: field id: {tutorial.id!r} does not match its folder "
            f"{path.parent.name!r}; rename one so they agree"
        )
    return tutorial


def tutorial_folder(where: Path) -> Path:
    """The tutorial folder holding `where` (a check file, its folder, or the folder itself)."""
    for folder in (where, *where.parents):
        if (folder / TUTORIAL_FILE_NAME).is_file():
            return folder
    raise TutorialError(f"{where} is not inside a tutorial folder (none above it has a "
                        f"{TUTORIAL_FILE_NAME})")


def tutorial_of(where: str | Path) -> Tutorial:
    """The tutorial whose folder holds `where` (a check passes `__file__`): how a check's
    module reads its tutorial's declarations, e.g. its `user_requests` in every locale."""
    return read_tutorial_file(tutorial_folder(Path(where).resolve()) / TUTORIAL_FILE_NAME)


def list_tutorials(root: Path | None = None) -> list[Tutorial]:
    """Every tutorial under `<root>/tutorials/*/tutorial.json`, sorted by id (root: the
    current folder's project)."""
    root = root if root is not None else current_project_root()
    files = sorted((root / TUTORIALS_DIR_NAME).glob(f"*/{TUTORIAL_FILE_NAME}"))
    tutorials = [read_tutorial_file(path) for path in files]
    seen: dict[str, str] = {}
    for tutorial in tutorials:
        for name in (tutorial.id, tutorial.short_id):
            if name in seen and seen[name] != tutorial.id:
                raise TutorialError(
                    f"tutorials {seen[name]!r} and {tutorial.id!r} both use the name {name!r}"
                )
            seen[name] = tutorial.id
    return tutorials


def load_tutorial(name: str, root: Path | None = None) -> Tutorial:
    """The tutorial whose id or short id is `name` (root: the current folder's project)."""
    root = root if root is not None else current_project_root()
    tutorials = list_tutorials(root)
    for tutorial in tutorials:
        if name in (tutorial.id, tutorial.short_id):
            return tutorial
    known = ", ".join(t.short_id for t in tutorials) or "none"
    raise TutorialError(
        f"no tutorial {name!r} under {root / TUTORIALS_DIR_NAME} (known: {known}); "
        "run 'pling-tutorial list' to see them, or give the folder that holds tutorials/ "
        "(--root DIR, or `root` under [tool.pling] in pyproject.toml)"
    )
