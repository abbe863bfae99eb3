"""`pling-tutorial new`: write a tutorial from the harness's templates (pling_harness/scaffold/)."""

from __future__ import annotations

import argparse

from pling_harness.cli.usage import (
    PROGRAM,
    SubParsers,
    port_number,
    project_root_of,
)
from pling_harness.project.tutorials import load_tutorial
from pling_harness.scaffold.new import (
    DEFAULT_LOCALES,
    NewTutorial,
    parse_locales,
    parse_titles,
    scaffold,
    scaffold_locales,
)


def run_new(args: argparse.Namespace) -> int:
    root = project_root_of(args)
    spec = NewTutorial(id=args.tutorial, short_id=args.short_id or args.tutorial,
                       locales=parse_locales(args.locales), titles=parse_titles(args.title),
                       port=args.port)
    written = scaffold(spec, root)
    tutorial = load_tutorial(spec.id, root)
    where = f" --root {args.root}" if args.root is not None else ""
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
        "tutorial.md): its page on the reference runtime, copy in the locales asked for, "
        "model rules, "
        "tutorial.json and texts, a backend (a support ticket whose refund needs approval and "
        "whose closing is the human's step), checks and a mutant catalogue. It passes "
        "`check` and `mutate` as written; change it from there.",
    )
    parser.add_argument("tutorial", help="the new tutorial's id, e.g. r-16-refunds (its folder "
                        "names under fixtures/ and tutorials/)")
    parser.add_argument("--short-id", help="its short id, e.g. r-16 (default: the id)")
    parser.add_argument("--locales", default=",".join(DEFAULT_LOCALES), metavar="LIST",
                        help="its locales, in order, the first its default (default: "
                        f"{','.join(DEFAULT_LOCALES)}; the scaffold has words for "
                        f"{', '.join(scaffold_locales())})")
    parser.add_argument("--title", action="append", default=[], metavar="LOCALE=TITLE",
                        help="its title in one locale, e.g. --title en='Refunds' (repeat for "
                        "each; default: the templates' own)")
    parser.add_argument("--port", type=port_number,
                        help="the port `dev` serves it on (default: one above the highest "
                        "tutorial port under the root)")
    parser.add_argument("--root", metavar="DIR",
                        help="write it under DIR/fixtures and DIR/tutorials (made if missing) "
                        "instead of the project of the current folder; then pass --root DIR "
                        "to dev, check and mutate")
    parser.set_defaults(handler=run_new)
