"""Every subcommand ends one way: a user's error is one line and 2, Ctrl-C one line and 130,
anything else keeps its traceback."""

from __future__ import annotations

import pytest

from environments.errors import CrsimError
from simulators.cli.commands import INTERRUPTED, USER_ERROR, command


def test_a_wrapped_user_error_is_one_line_and_status_2(capsys):
    @command()
    def main(argv: list[str]) -> int:
        try:
            raise CrsimError("items.jsonl, line 3, field 'id': missing")
        except CrsimError as exc:
            raise RuntimeError("Error in call to target 'x'") from exc  # as Hydra wraps factory errors

    assert main([]) == USER_ERROR
    assert capsys.readouterr().err == "crsim: error: items.jsonl, line 3, field 'id': missing\n"


def test_ctrl_c_says_what_was_kept(capsys):
    @command(interrupted="nothing was written")
    def main(argv: list[str]) -> int:
        raise KeyboardInterrupt

    assert main([]) == INTERRUPTED
    assert capsys.readouterr().err == "crsim: interrupted: nothing was written\n"


def test_a_bug_keeps_its_traceback():
    @command()
    def main(argv: list[str]) -> int:
        raise ZeroDivisionError("bug")

    with pytest.raises(ZeroDivisionError):
        main([])


def test_every_subcommand_goes_through_it():
    import importlib

    from simulators.cli import data, eval, main, validate

    for command_name, target in main.SUBCOMMANDS.items():
        if command_name == "run":  # Hydra's app ends a run its own way (precheck, then Hydra's callbacks)
            continue
        assert hasattr(importlib.import_module(target).main, "__wrapped__"), target
    for table in (eval.SUBCOMMANDS, validate.SUBCOMMANDS, data.SUBCOMMANDS):  # under a command that is
        for target in table.values():
            module, _, function = target.partition(":")
            assert callable(getattr(importlib.import_module(module), function or "main")), target


def test_a_subcommand_is_imported_only_when_it_runs(capsys):
    import sys

    from simulators.cli.commands import run_subcommand

    table = {"now": "json:dumps", "later": "simulators.cli.no_such_module"}
    assert run_subcommand(["now", "x"], table, lambda rest: 1) == '["x"]'
    assert run_subcommand(["--help"], table, lambda rest: len(rest)) == 1
    assert "simulators.cli.no_such_module" not in sys.modules
