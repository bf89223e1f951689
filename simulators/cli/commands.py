"""How every `crsim` subcommand runs: argparse sub-commands dispatched one way, and the one
way a command ends on a user's mistake or a Ctrl-C.

An input or configuration problem (`CrsimError`, also when Hydra or a library wrapped it
in an exception of its own) is one `crsim: error:` line and status 2, never a traceback;
Ctrl-C (and SIGTERM, which `crsim run` turns into one) is one `crsim: interrupted` line,
saying what was kept where the command knows, and status 130. Anything else is a bug and
keeps its traceback.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from typing import TypeVar

from environments.errors import CrsimError, causes

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


def dispatch(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    """Run the sub-command `argv` names (its `handler`); without one, print the help."""
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 0
    return args.handler(args)
