"""Tutorial definitions (`tutorials/<id>/tutorial.json`): the model, the loader and the lookup."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from harness.project.contract import ApiDeclaration, PageContract, PageDeclaration, PublishedRule
from harness.project.datafile import load_json_model
from harness.project.paths import FIXTURES_DIR_NAME, PROJECT_ROOT, TUTORIALS_DIR_NAME

TUTORIAL_FILE_NAME = "tutorial.json"
COPY_DIR_NAME = "copy"
MODEL_RULES_FILE_NAME = "model-rules.json"
# The tutorial's mutation tests (`pling-tutorial mutate`): its hand-written mutants, one JSON
# file per area, and the StrykerJS plan of `mutate --generated`. Never served.
MUTATION_DIR_NAME = "mutation"
CATALOGUE_DIR_NAME = "catalogue"
STRYKER_PLAN_FILE_NAME = "stryker-plan.json"

# Ids become folder names and URL parts, so they are kept to a safe alphabet.
Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=100)]
Locale = Annotated[str, Field(pattern=r"^[a-z]{2}(-[A-Z]{2})?$")]
# The languages the harness itself speaks: the scripted model's replies, the gateway's
# messages, the framework's glossary and a tutorial's title are written in these. A tutorial
# offers any of them, in any order (its first check locale and report column is its first).
HARNESS_LANGUAGES = ("zh", "en")
RequestName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$", max_length=50)]
UserText = Annotated[str, Field(min_length=1, pattern=r"\S")]


class TutorialError(Exception):
    """A tutorial is missing, unknown or its definition file is invalid."""


class LocalizedTitle(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    zh: str = Field(min_length=1)
    en: str = Field(min_length=1)


class Tutorial(BaseModel):
    """One tutorial: which fixture page it serves, on which port, in which locales, and what
    its page and server offer the harness (`page`, `api`, `published`: see
    `harness.project.contract`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Slug
    short_id: Slug
    title: LocalizedTitle
    fixture: Slug
    port: int = Field(ge=1, le=65535)
    locales: tuple[Locale, ...] = Field(min_length=1)
    default_locale: Locale
    page: PageDeclaration = Field(default_factory=PageDeclaration)
    api: ApiDeclaration = Field(default_factory=ApiDeclaration)
    published: PublishedRule | None = None
    user_requests: dict[RequestName, dict[Locale, UserText]] = Field(default_factory=dict)
    """What a user types for each named request, in every locale (a check's `say("archive")`):
    plain words the tutorial's model understands."""

    @model_validator(mode="after")
    def _default_locale_is_offered(self) -> Self:
        if self.default_locale not in self.locales:
            raise ValueError(
                f"default_locale {self.default_locale!r} is not one of locales {list(self.locales)}"
            )
        if len(set(self.locales)) != len(self.locales):
            raise ValueError(f"locales {list(self.locales)} lists a locale twice")
        unspoken = [loc for loc in self.locales if loc.split("-")[0] not in HARNESS_LANGUAGES]
        if unspoken:
            raise ValueError(
                f"locales {unspoken} are in no language the harness speaks "
                f"({', '.join(HARNESS_LANGUAGES)}: its model replies, gateway messages and "
                "glossary); use those, or extend them first (docs/adding-a-tutorial.md, Limits)")
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

    def directory(self, root: Path = PROJECT_ROOT) -> Path:
        return root / TUTORIALS_DIR_NAME / self.id

    def fixture_directory(self, root: Path = PROJECT_ROOT) -> Path:
        return root / FIXTURES_DIR_NAME / self.fixture

    def copy_directory(self, root: Path = PROJECT_ROOT) -> Path:
        return self.directory(root) / COPY_DIR_NAME

    def model_rules_path(self, root: Path = PROJECT_ROOT) -> Path:
        return self.directory(root) / MODEL_RULES_FILE_NAME

    def mutation_directory(self, root: Path = PROJECT_ROOT) -> Path:
        return self.directory(root) / MUTATION_DIR_NAME

    def catalogue_directory(self, root: Path = PROJECT_ROOT) -> Path:
        return self.mutation_directory(root) / CATALOGUE_DIR_NAME

    def stryker_plan_path(self, root: Path = PROJECT_ROOT) -> Path:
        return self.mutation_directory(root) / STRYKER_PLAN_FILE_NAME

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


def list_tutorials(root: Path = PROJECT_ROOT) -> list[Tutorial]:
    """Every tutorial under `<root>/tutorials/*/tutorial.json`, sorted by id."""
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


def load_tutorial(name: str, root: Path = PROJECT_ROOT) -> Tutorial:
    """The tutorial whose id or short id is `name`."""
    tutorials = list_tutorials(root)
    for tutorial in tutorials:
        if name in (tutorial.id, tutorial.short_id):
            return tutorial
    known = ", ".join(t.short_id for t in tutorials) or "none"
    raise TutorialError(
        f"no tutorial {name!r} under {root / TUTORIALS_DIR_NAME} (known: {known}); "
        "run 'pling-tutorial list' to see them"
    )
