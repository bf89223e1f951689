"""How every `crsim` subcommand runs: found by name in a table and imported only then
(`run_subcommand`), and ended one way on a user's mistake or a Ctrl-C (`command`).

`crsim`, `crsim eval`, `crsim validate` and `crsim data` each keep a table of their
subcommands, name -> the module whose `main(argv)` runs it (or `module:function`), so
starting one imports that module alone and `crsim --help` stays fast. What is not a
subcommand goes to the command itself: its help, or its own arguments (`crsim validate
RUN...`).

An input or configuration problem (`CrsimError`, also when Hydra or a library wrapped it
in an exception of its own) is one `crsim: error:` line and status 2, never a traceback;
Ctrl-C (and SIGTERM, which `crsim run` turns into one) is one `crsim: interrupted` line,
saying what was kept where the command knows, and status 130. Anything else is a bug and
keeps its traceback.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

from environments.errors import CrsimError, causes

if TYPE_CHECKING:  # `crsim --help` comes through here: it loads no more than it needs
    import argparse

USER_ERROR = 2
INTERRUPTED = 130  # the shell's status for a SIGINT

Main = TypeVar("Main", bound=Callable[[list[str]], int])


def user_error(exc: BaseException, kind: type[Exception] = CrsimError) -> BaseException | None:
    """The `kind` error behind `exc`, if any: Hydra wraps factory errors in its own exception."""
    return next((cause for cause in causes(exc) if isinstance(cause, kind)), None)


def exit_status(exc: BaseException, interrupted: str | Callable[[], str] = "") -> int | None:
    """Print the one line `exc` deserves and return the exit status; None: not a user's
    error (the caller re-raises). `interrupted` says what an interrupted command kept."""
    if isinstance(exc, KeyboardInterrupt):
        detail = interrupted() if callable(interrupted) else interrupted
        print(f"crsim: interrupted{': ' + detail if detail else ''}", file=sys.stderr)
        return INTERRUPTED
    cause = user_error(exc)
    if cause is None:
        return None
    print(f"crsim: error: {cause}", file=sys.stderr)
    return USER_ERROR


def command(interrupted: str = "") -> Callable[[Main], Main]:
    """Decorate a subcommand's `main(argv) -> int` so its errors end it the one way."""

    def wrap(main: Main) -> Main:
        @functools.wraps(main)
        def run(argv: list[str]) -> int:
            try:
                return main(argv)
            except (Exception, KeyboardInterrupt) as exc:
                status = exit_status(exc, interrupted)
                if status is None:
                    raise
                return status

        return run  # type: ignore[return-value]

    return wrap


def run_subcommand(argv: list[str], subcommands: Mapping[str, str],
                   otherwise: Callable[[list[str]], int]) -> int:
    """Run the subcommand `argv[0]` names in `subcommands` with the rest of `argv`; any other
    `argv` (none, `--help`, the command's own arguments) goes to `otherwise`.

    A table entry is a module, whose `main(argv) -> int` runs, or `module:function`.
    """
    if argv and argv[0] in subcommands:
        module, _, function = subcommands[argv[0]].partition(":")
        return getattr(importlib.import_module(module), function or "main")(argv[1:])
    return otherwise(argv)


def show_listing(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    """What a command that only groups subcommands does with an `argv` that names none: no
    arguments or `--help` print `parser`'s listing of them (status 0), anything else is
    argparse's one usage error (status 2)."""
    parser.parse_args(argv)
    parser.print_help()
    return 0
