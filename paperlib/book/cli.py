"""``paperlib book``: build the static site from the pipeline's outputs, or serve a built one.

    paperlib book build [--results results] [--figures figures] [--out results/book] [--keep-source DIR]
    paperlib book serve [--site results/book] [--port 8000]
    python -m paperlib.book.cli build ...     (what the Snakemake rule runs)
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from paperlib.cli_args import output_dir, plain_text

__all__ = ["add_parser", "main"]


def _build(args: argparse.Namespace) -> int:
    from paperlib.book.build import BookError, build_site

    try:
        index = build_site(args.results, args.figures, args.out, keep_source=args.keep_source)
    except (BookError, ValueError, FileNotFoundError) as exc:
        print(f"paperlib book build: {exc}", file=sys.stderr)
        return 1
    print(f"book: {index}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from paperlib.book.serve import serve

    try:
        with serve(args.site, port=args.port) as url:
            print(f"serving {args.site} at {url} (Ctrl-C to stop)")
            while True:
                time.sleep(1)
    except FileNotFoundError as exc:
        print(f"paperlib book serve: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0


def _add(sub: Any) -> None:
    b = sub.add_parser("build", help="build the static site (Sphinx + MyST-NB) from results/ and figures/")
    b.add_argument("--results", default="results", help="results root (rooms are results/<slug>/)")
    b.add_argument("--figures", default="figures", help="figures root (rooms are figures/<slug>/)")
    b.add_argument("--out", default=None, type=output_dir, help="output folder (default <results>/book)")
    b.add_argument("--keep-source", default=None, type=output_dir, help="write the Sphinx source tree here and keep it")
    b.set_defaults(func=_build)
    s = sub.add_parser("serve", help="serve a built site on localhost")
    s.add_argument("--site", default="results/book", help="built site folder (default results/book)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any free port)")
    s.set_defaults(func=_serve)


def add_parser(subparsers: Any) -> None:
    """Register ``paperlib book build|serve``."""
    p = subparsers.add_parser("book", help="the static site: course and every paper's results",
                              description=plain_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="book_command", metavar="ACTION", required=True)
    _add(sub)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paperlib.book.cli", description=plain_text(__doc__),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="book_command", metavar="ACTION", required=True)
    _add(sub)
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
