"""`pling-tutorial new`: write a tutorial from the harness's templates (harness/scaffold/)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.usage import (
    PROGRAM,
    SubParsers,
    port_number,
)
from harness.project.paths import PROJECT_ROOT
from harness.project.tutorials import load_tutorial
from harness.scaffold.new import (
    DEFAULT_TITLE_EN,
    DEFAULT_TITLE_ZH,
    NewTutorial,
    scaffold,
)


def run_new(args: argparse.Namespace) -> int:
    root = Path(args.root).resolve() if args.root else PROJECT_ROOT
    spec = NewTutorial(id=args.tutorial, short_id=args.short_id or args.tutorial,
                       title_en=args.title_en, title_zh=args.title_zh, port=args.port)
    written = scaffold(spec, root)
    tutorial = load_tutorial(spec.id, root)
    where = f" --root {root}" if root != PROJECT_ROOT else ""
    print(f"Wrote {tutorial.id} ({len(written)} files and folders) under {root}:")
    for path in written:
        print(f"  {path.relative_to(root)}")
    print(f"Serve it:  {PROGRAM} dev {tutorial.short_id}{where}")
    print(f"Check it:  {PROGRAM} check {tutorial.short_id}{where}")
    print(f"Mutate it: {PROGRAM} mutate {tutorial.short_id}{where}")
    return 0


def add_new_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "new", help="write a new tutorial that passes its own check and mutate",
        description="Write a new tutorial from the harness's templates (docs/adding-a-"
        "tutorial.md): its page on the reference runtime, copy in en and zh, model rules, "
        "tutorial.json and texts, a backend (a support ticket whose refund needs approval and "
        "whose closing is the human's step), checks and a mutant catalogue. It passes "
        "`check` and `mutate` as written; change it from there.",
    )
    parser.add_argument("tutorial", help="the new tutorial's id, e.g. r-16-refunds (its folder "
                        "names under fixtures/ and tutorials/)")
    parser.add_argument("--short-id", help="its short id, e.g. r-16 (default: the id)")
    parser.add_argument("--title-en", default=DEFAULT_TITLE_EN,
                        help=f"its English title (default: {DEFAULT_TITLE_EN!r})")
    parser.add_argument("--title-zh", default=DEFAULT_TITLE_ZH,
                        help=f"its Chinese title (default: {DEFAULT_TITLE_ZH!r})")
    parser.add_argument("--port", type=port_number,
                        help="the port `dev` serves it on (default: one above the highest "
                        "tutorial port under the root)")
    parser.add_argument("--root", metavar="DIR",
                        help="write it under DIR/fixtures and DIR/tutorials (made if missing; "
                        "the reference runtime is copied in if DIR has none) instead of the "
                        "project; then pass --root DIR to dev, check and mutate")
    parser.set_defaults(handler=run_new)
