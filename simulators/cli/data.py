"""`crsim data import FORMAT PATHS... --out DIR`, `crsim data info DIR` (and `crsim data policy`,
in `data_policy.py`, and `crsim data wordings`, in `data_wordings.py`).

Each format's options come from its pydantic options model (one `--flag` per field,
typed, with the field's description as help), so adding an option to an adapter adds
it here. Input problems (`CrsimError`, including a bad row with file, line and field)
print one line, `crsim: error: ...`, and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any

from environments.errors import CrsimError
from simulators.cli.commands import command, run_subcommand, show_listing

FILES = ("items.jsonl", "reviews.jsonl", "users.jsonl", "dialogues.jsonl", "interactions.jsonl")


#: subcommand -> the function (`module:function`) that parses its arguments and runs it
SUBCOMMANDS = {"import": "simulators.cli.data:import_dataset", "info": "simulators.cli.data:info",
               "policy": "simulators.cli.data_policy", "wordings": "simulators.cli.data_wordings",
               "answer-wordings": "simulators.cli.data_answer_wordings"}


@command(interrupted="nothing was written")
def main(argv: list[str]) -> int:
    return run_subcommand(argv, SUBCOMMANDS, lambda rest: show_listing(build_parser(), rest))


def import_dataset(argv: list[str]) -> int:
    """`crsim data import FORMAT PATHS... --out DIR`."""
    return run_import(import_parser().parse_args(argv))


def info(argv: list[str]) -> int:
    """`crsim data info DIR`."""
    return run_info(info_parser().parse_args(argv))


# ----------------------------------------------------------------------- parsers
def build_parser() -> argparse.ArgumentParser:
    """`crsim data`'s own parser: the listing of its subcommands (each parses its own arguments)."""
    parser = argparse.ArgumentParser(prog="crsim data", description=(
        "Convert public datasets into crsim catalog directories, and summarise catalogs. "
        "See docs/datasets.md for each format and where to obtain it."))
    commands = parser.add_subparsers(title="commands", metavar="{import,info,policy,wordings,answer-wordings}")
    commands.add_parser("import", help="convert a dataset into a catalog directory", add_help=False)
    commands.add_parser("info", help="summarise a catalog directory", add_help=False)
    commands.add_parser("policy", help="fit a seeker policy on a corpus's training dialogues", add_help=False)
    commands.add_parser("wordings", help="take people's wordings of seeker acts from a corpus's training dialogues",
                        add_help=False)
    commands.add_parser("answer-wordings", help="take how people word a wanted thing from SGD's training dialogues",
                        add_help=False)
    return parser


def import_parser() -> argparse.ArgumentParser:
    from environments.datasets import FORMATS, get_format

    importer = argparse.ArgumentParser(prog="crsim data import", description="Convert a dataset into a catalog "
                                                                             "directory (crsim data import FORMAT --help).")
    formats = importer.add_subparsers(title="formats", metavar="FORMAT", dest="format")
    formats.required = True
    for name in FORMATS:
        spec = get_format(name)
        sub = formats.add_parser(name, help=spec.summary, description=spec.summary)
        for path in spec.paths:
            sub.add_argument(path.name, type=Path, nargs="+" if path.many else None, help=path.help)
        sub.add_argument("--out", type=Path, required=True, metavar="DIR", help="catalog directory to write")
        common = sub.add_argument_group("common options")
        common.add_argument("--name", help="catalog name (default: the output directory's name)")
        common.add_argument("--skip-bad", action="store_true",
                            help="skip malformed rows (counted and reported) instead of stopping at the first")
        common.add_argument("--force", action="store_true", help="replace DIR if it exists")
        common.add_argument("--no-progress", action="store_true", help="no progress bar (also off when not a TTY)")
        add_model_options(sub.add_argument_group(f"{name} options"), spec.options, skip=set(spec.options.COMMON))
        sub.set_defaults(spec=spec)
    return importer


def info_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim data info", description="Summarise a catalog directory: files and "
                                                                    "row counts, aspects, import details.")
    p.add_argument("dir", type=Path, help="catalog directory")
    p.add_argument("--validate", action="store_true",
                   help="also load and validate every line (Catalog.load, interactions)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--stats", action="store_true",
                   help="also load the catalog and print its shape: reviews per item and user, sentences, words "
                        "and mined aspects per review, attributes per item, unique attribute combinations; on a music "
                        "catalog (music world, CPCD import) also tracks per artist and album, play skew and goal "
                        "playlist sizes")
    return p


def _unwrap_optional(annotation: Any) -> Any:
    """`Path | None` -> `Path` (an option that may be left out is still typed)."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return rest[0] if len(rest) == 1 else annotation
    return annotation


def add_model_options(group: Any, model: Any, skip: set[str]) -> None:
    """One `--flag` per field of a pydantic model; given flags only, so defaults stay the model's."""
    for name, field in model.model_fields.items():
        if name in skip:
            continue
        flag = "--" + name.replace("_", "-")
        annotation = _unwrap_optional(field.annotation)
        origin = typing.get_origin(annotation)
        help_text = field.description or ""
        kwargs: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS}
        if annotation is bool:
            if field.default is True:
                group.add_argument("--no-" + name.replace("_", "-"), action="store_false", help=help_text, **kwargs)
            else:
                group.add_argument(flag, action="store_true", help=help_text, **kwargs)
            continue
        if origin is list:
            kwargs.update(nargs="*", metavar="VALUE")
        elif origin is typing.Literal:
            kwargs.update(choices=list(typing.get_args(annotation)))
        elif annotation in (int, float, Path):
            kwargs.update(type=annotation, metavar={int: "N", float: "X", Path: "FILE"}[annotation])
        default = field.get_default(call_default_factory=True)
        if default not in (None, [], ""):
            help_text += f" (default: {' '.join(map(str, default)) if isinstance(default, list) else default})"
        if field.is_required():
            kwargs["required"] = True
        group.add_argument(flag, help=help_text, **kwargs)


# ----------------------------------------------------------------------- import
def run_import(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    spec = args.spec
    values = {name: getattr(args, name) for name in spec.options.model_fields
              if name not in spec.options.COMMON and hasattr(args, name)}
    try:
        options = spec.options(**values, name=args.name, skip_bad=args.skip_bad, force=args.force,
                               progress=not args.no_progress and sys.stderr.isatty())
    except ValidationError as exc:
        first = exc.errors()[0]
        raise CrsimError(f"--{str(first['loc'][0]).replace('_', '-')}: {first['msg']}") from None
    paths = {path.name: getattr(args, path.name) for path in spec.paths}
    report = spec(paths, args.out, options)
    print(format_report(report))
    return 0


def format_report(report: Any) -> str:
    lines = [f"imported {report.format} into {report.out} in {report.seconds:.1f} s "
             f"({report.rows_read:,} source rows read)"]
    for name, count in report.counts.items():
        lines.append(f"  {name:<14}{count:>12,}")
    for reason, count in report.filtered.items():
        lines.append(f"  left out: {count:,} {reason}")
    if report.skipped:
        lines.append(f"skipped {report.skipped:,} bad row(s); first ones:")
        lines += [f"  {problem}" for problem in report.problems]
    return "\n".join(lines)


# ------------------------------------------------------------------------- info
def count_lines(path: Path) -> int:
    """Non-empty lines, counted in 1 MiB chunks (fast and flat in memory)."""
    count = 0
    last = b"\n"
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


def summarise(directory: Path, validate: bool = False, stats: bool = False) -> dict[str, Any]:
    """What `crsim data info` prints, as a dict."""
    from environments.catalog.store import ITEMS, MANIFEST, load_manifest

    directory = directory.expanduser()
    if not directory.is_dir():
        raise CrsimError(f"{directory}: catalog directory not found")
    if not (directory / ITEMS).is_file():
        raise CrsimError(f"{directory}: not a catalog directory (no {ITEMS})")
    manifest = load_manifest(directory)
    files = {}
    for name in FILES:
        path = directory / name
        if path.is_file():
            files[Path(name).stem] = {"rows": count_lines(path), "bytes": path.stat().st_size}
    mismatched = {stem: manifest.counts[stem] for stem, entry in files.items()
                  if stem in manifest.counts and manifest.counts[stem] != entry["rows"]}
    summary: dict[str, Any] = {
        "directory": str(directory), "name": manifest.name, "domain": manifest.domain,
        "item_noun": manifest.item_noun, "source": manifest.source, "files": files,
        "manifest_counts_differ": mismatched, "aspects": _aspects(directory / ITEMS),
        "import": manifest.extra.get("import", {}), "has_manifest": (directory / MANIFEST).is_file(),
    }
    if validate:
        summary["validated"] = _validate(directory)
    if stats:
        summary["stats"] = shape_statistics(directory).model_dump()
    return summary


def shape_statistics(directory: Path) -> Any:
    """`CatalogStats` of a catalog directory, aspects per review by its mined vocabulary (cached)."""
    from environments.catalog.store import Catalog
    from environments.search.aspects import mine_aspects
    from environments.statistics import catalog_statistics

    catalog = Catalog.load(directory)
    terms = mine_aspects(catalog).terms() if catalog.reviews else None
    return catalog_statistics(catalog, terms)


def _aspects(items: Path, top: int = 12) -> list[tuple[str, float]]:
    """The most common attribute keys and the share of items that have them."""
    import orjson

    counts: dict[str, int] = {}
    total = 0
    with items.open("rb") as handle:
        for line in handle:
            try:
                row = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if type(row) is not dict:
                continue
            total += 1
            attributes = row.get("attributes")
            for key in attributes if isinstance(attributes, dict) else ():
                counts[key] = counts.get(key, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return [(key, round(count / total, 3)) for key, count in ranked] if total else []


def _validate(directory: Path) -> dict[str, Any]:
    from environments.catalog.interactions import load_interactions
    from environments.catalog.jsonl import iter_jsonl
    from environments.catalog.store import DIALOGUES, INTERACTIONS, Catalog
    from environments.models import Episode

    catalog = Catalog.load(directory)
    result: dict[str, Any] = {"items": len(catalog.items), "reviews": len(catalog.reviews), "users": len(catalog.users)}
    if (directory / DIALOGUES).is_file():
        result["dialogues"] = sum(1 for _ in iter_jsonl(directory / DIALOGUES, Episode))
    if (directory / INTERACTIONS).is_file():
        matrix = load_interactions(directory, item_ids=catalog.item_ids)
        result["interactions"] = {"users": matrix.shape[0], "items": matrix.shape[1], "nonzero": int(matrix.matrix.nnz)}
    return result


def format_summary(summary: dict[str, Any]) -> str:
    lines = [f"{summary['directory']}: '{summary['name']}' ({summary['domain']}, {summary['item_noun']})"
             + (f", from {summary['source']}" if summary["source"] else "")]
    for stem in (Path(name).stem for name in FILES):
        entry = summary["files"].get(stem)
        if entry:
            lines.append(f"  {stem:<14}{entry['rows']:>12,}   ({_size(entry['bytes'])})")
    for stem, count in summary["manifest_counts_differ"].items():
        lines.append(f"  warning: catalog.json says {count:,} {stem}, the file has {summary['files'][stem]['rows']:,}")
    if summary["aspects"]:
        lines.append("aspects (share of items): " + ", ".join(f"{k} {v:.0%}" for k, v in summary["aspects"]))
    details = summary["import"]
    if details:
        options = {k: v for k, v in details.get("options", {}).items() if v not in (None, [], False)}
        lines.append(f"imported from: {', '.join(details.get('sources', []))}")
        if options:
            lines.append(f"options: {json.dumps(options)}")
        for reason, count in details.get("filtered", {}).items():
            lines.append(f"  left out: {count:,} {reason}")
        if details.get("skipped_bad_rows"):
            lines.append(f"  skipped {details['skipped_bad_rows']:,} bad row(s)")
    if "validated" in summary:
        lines.append(f"validated: {json.dumps(summary['validated'])}")
    if "stats" in summary:
        from environments.catalog.stats import CatalogStats, format_statistics

        lines += format_statistics(CatalogStats.model_validate(summary["stats"]))
    return "\n".join(lines)


def _size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def run_info(args: argparse.Namespace) -> int:
    summary = summarise(args.dir, validate=args.validate, stats=args.stats)
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return 0


__all__ = ["main", "build_parser", "import_parser", "info_parser", "summarise", "count_lines"]
