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

    from simulators.cli.main import SUBCOMMANDS

    for module in SUBCOMMANDS.values():
        assert hasattr(importlib.import_module(module).main, "__wrapped__"), module
