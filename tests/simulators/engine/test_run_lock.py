"""The run-directory lock (`simulators/engine/run_lock.py`) in one process: a second
`RunLock` on the same directory is a second open file, which `flock` refuses like another
process's. The two-process behaviour through `crsim run` is in
`tests/simulators/cli/test_run_lock.py`."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from environments.errors import CrsimError
from simulators.engine.run_lock import (
    LOCK_FILE, Holder, RunDirInUse, RunLock, release_run_dir, run_dir_lock, take_run_dir,
)


def _dead_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def test_the_lock_file_names_the_holder_and_goes_when_the_run_ends(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with run_dir_lock(run_dir, "crsim run") as lock:
        data = json.loads((run_dir / LOCK_FILE).read_text())
        assert data["pid"] == os.getpid() and data["host"] == socket.gethostname()
        assert data["command"] == "crsim run" and data["started"]
        assert lock.held and lock.taken_over is None
    assert not (run_dir / LOCK_FILE).exists() and not lock.held
    with run_dir_lock(run_dir):  # free again
        pass


def test_a_second_lock_on_a_directory_in_use_is_refused_naming_the_holder(tmp_path: Path) -> None:
    with run_dir_lock(tmp_path), pytest.raises(RunDirInUse) as refused:
        RunLock(tmp_path, "crsim run").acquire()
    message = str(refused.value)
    assert isinstance(refused.value, CrsimError) and "\n" not in message
    assert f"pid {os.getpid()} on host {socket.gethostname()}" in message
    assert "run the same command again to resume" in message and "hydra.run.dir" in message
    assert not (tmp_path / LOCK_FILE).exists()  # the refused lock did not leave or remove anything


def test_a_lock_left_by_a_killed_run_is_taken_over(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stale = Holder(_dead_pid(), socket.gethostname(), "2024-01-01T00:00:00+00:00", "crsim run")
    (tmp_path / LOCK_FILE).write_bytes(stale.encode())  # what SIGKILL leaves: the file, no kernel lock
    with run_dir_lock(tmp_path) as lock:
        assert lock.taken_over == stale
        assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] == os.getpid()
    note = capsys.readouterr().err
    assert note.startswith("crsim: note:") and f"pid {stale.pid}" in note and len(note.splitlines()) == 1


def test_an_unreadable_lock_file_without_a_holder_is_taken_over(tmp_path: Path) -> None:
    (tmp_path / LOCK_FILE).write_text("{cut")
    with run_dir_lock(tmp_path) as lock:
        assert lock.held and lock.taken_over is None


def test_a_lock_taken_early_is_handed_to_the_block_that_runs(tmp_path: Path) -> None:
    """A single `crsim run` locks in a Hydra callback, then runs the job in the same process."""
    early = take_run_dir(tmp_path)
    assert take_run_dir(tmp_path) is early  # the same process asks again: the same lock
    with run_dir_lock(tmp_path) as lock:
        assert lock is early
    assert not early.held and not (tmp_path / LOCK_FILE).exists()
    release_run_dir(tmp_path)  # the callback's release after the job's is a no-op


def test_without_file_system_locks_the_file_decides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from simulators.engine import run_lock

    monkeypatch.setattr(run_lock, "_flock", lambda fd: None)  # flock: ENOLCK
    elsewhere = Holder(os.getpid() + 1, "another-host", "2024-01-01T00:00:00+00:00")
    (tmp_path / LOCK_FILE).write_bytes(elsewhere.encode())
    with pytest.raises(RunDirInUse, match="on another-host.*if it has ended, remove"):
        RunLock(tmp_path).acquire()
    dead = Holder(_dead_pid(), socket.gethostname(), "2024-01-01T00:00:00+00:00")
    (tmp_path / LOCK_FILE).write_bytes(dead.encode())
    with run_dir_lock(tmp_path) as lock:
        assert lock.taken_over == dead
