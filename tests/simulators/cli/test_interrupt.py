"""Interrupted runs: SIGINT/SIGTERM and kill -9 mid-run, then the same command again.

The resumed log must hold exactly the uninterrupted run's episodes: the same ids, no
duplicate, no unreadable line, and (sorted by index) the same bytes.

Written to hold wherever the suite runs (issue 41: the three SIGINT tests ran a 120 s
wait out in a `make test` on a loaded machine, and passed alone). A test process started
as a background job of a non-interactive shell inherits SIGINT ignored, and so would every
run it starts, which would then never see its Ctrl-C: runs here start with SIGINT at its
default action (`_sigint_not_ignored`). Every wait is for something to happen (a line
logged, a worker's process id written), under a deadline long enough for a machine five
times slower than usual, never a fixed sleep. How many episodes a run logs before its
signal lands depends on the machine's speed, so it is not guessed in advance: each test
counts them after the signal, resumes the run to a few episodes past the last, and
compares with an uninterrupted run at least that long (`References`), instead of sizing
every run for the worst case (resuming 300 episodes on worker processes or Ray actors took
minutes under load). Every run is started in a session of its own: a signal sent to its
process group reaches its workers as Ctrl-C in a terminal does, an interrupted run's group
is killed after the test whatever happened, and CPU-bound processes in the test's own session cannot
starve its Ray actors (`_run`).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crsim_testing import CRSIM, make_tiny_catalog

EPISODES = 40  # the first uninterrupted reference; longer ones are run when a test needs them
UNBOUNDED = 5000  # an interrupted run's `episodes`: minutes of work, so the signal always lands mid-run
MORE = 5  # a resumed run goes this many episodes past the last one logged (or in flight)
DEADLINE = 600.0  # seconds to wait for any one thing (start-up, a line, an exit); ~10 s unloaded
COMMON = ["environment.target_pool_size=5", "max_turns=2", "progress=false", "concurrency=1"]
PLUGINS = Path(__file__).parent / "plugins"

_STARTED: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _no_run_left_behind():
    """Kill the process group of every run a test started (its workers too), however the test ended."""
    yield
    while _STARTED:
        process = _STARTED.pop()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


@contextlib.contextmanager
def _sigint_not_ignored():
    """SIGINT handled, not ignored, in this process for the block, so a program started in it
    begins with the default action (a handler does not survive `exec`, an ignored signal
    does). A test run started as a background job of a non-interactive shell (`make test &`
    in a script, an agent's runner) inherits SIGINT ignored, and Python keeps it ignored:
    every run here would then ignore its Ctrl-C and run on until a 120 s wait ran out, the
    SIGTERM variant passing (issue 41)."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start(catalog: Path, run_dir: Path, episodes: int, *extra: str, env: dict | None = None) -> subprocess.Popen:
    with _sigint_not_ignored():
        process = subprocess.Popen([CRSIM, "run", f"environment.catalog={catalog}", f"episodes={episodes}", *COMMON,
                                    *extra, f"hydra.run.dir={run_dir}"], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
                                   start_new_session=True)
    _STARTED.append(process)
    return process


def _run(catalog: Path, run_dir: Path, episodes: int, *extra: str, env: dict | None = None
         ) -> subprocess.CompletedProcess:
    """`crsim run` to its end, in a session of its own like the interrupted runs: a CPU-bound
    process in the test's session (with autogroup scheduling, as on Linux desktops and here)
    otherwise starves the Ray actors, which Ray starts at niceness 15 (an actor took 90 s to
    build its agents instead of 4)."""
    return subprocess.run([CRSIM, "run", f"environment.catalog={catalog}", f"episodes={episodes}", *COMMON, *extra,
                           f"hydra.run.dir={run_dir}"], capture_output=True, text=True, timeout=900,
                          env={**os.environ, **(env or {})}, start_new_session=True)


def _resume(catalog: Path, run_dir: Path, episodes: int, *extra: str, env: dict | None = None) -> None:
    again = _run(catalog, run_dir, episodes, *extra, env=env)
    assert again.returncode == 0, again.stderr[-2000:]


def _wait_for(ready, what: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if ready():
            return
        if process.poll() is not None:
            _, err = process.communicate()
            raise AssertionError(f"the run ended (status {process.returncode}) before {what}: {err[-2000:]}")
        time.sleep(0.05)
    raise AssertionError(f"no {what} within {DEADLINE:.0f} s")


def _lines(path: Path) -> int:
    return path.read_text().count("\n") if path.exists() else 0


def _wait_for_lines(path: Path, n: int, process: subprocess.Popen) -> None:
    _wait_for(lambda: _lines(path) >= n, f"{n} lines in {path}", process)


def _sorted_lines(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    assert all(json.loads(line) for line in lines)  # every line readable
    return sorted(lines, key=lambda line: json.loads(line)["index"])


def _index(line: str) -> int:
    return json.loads(line)["index"]


def _running(pid: int) -> bool:
    """The process exists and is no zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class References:
    """Logs of uninterrupted runs, sorted by index: `first(n)` returns the first `n` episodes
    of one, running a longer one when none so long has run yet. A test compares with a run
    that was never interrupted however far its own run got before the signal."""

    def __init__(self, catalog: Path, root: Path):
        self.catalog = catalog
        self.root = root
        self.lines: list[str] = []

    def first(self, n: int) -> list[str]:
        if len(self.lines) < n:
            size = max(n, EPISODES, 2 * len(self.lines))
            run_dir = self.root / f"reference-{size}"
            done = _run(self.catalog, run_dir, size)
            assert done.returncode == 0, done.stderr[-2000:]
            self.lines = _sorted_lines(run_dir / "episodes.jsonl")
            assert [_index(line) for line in self.lines] == list(range(size))
        return self.lines[:n]


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory) -> References:
    catalog = make_tiny_catalog().save(tmp_path_factory.mktemp("tiny") / "tiny")
    return References(catalog, tmp_path_factory.mktemp("references"))


def test_a_run_sees_ctrl_c_even_when_the_tests_were_started_with_it_ignored() -> None:
    """What the three SIGINT tests below rely on, checked in a fraction of a second."""
    probe = [sys.executable, "-c", "import signal; print(repr(signal.getsignal(signal.SIGINT)))"]
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a background job of a script starts
    try:
        with _sigint_not_ignored():
            started = subprocess.Popen(probe, stdout=subprocess.PIPE, text=True)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # this process: as it was
        ignored = subprocess.Popen(probe, stdout=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert "default_int_handler" in started.communicate(timeout=DEADLINE)[0]
    assert "SIG_IGN" in ignored.communicate(timeout=DEADLINE)[0]  # what went wrong before


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_a_polite_signal_leaves_a_valid_log_a_summary_and_status_130(references, tmp_path: Path, how) -> None:
    run_dir = tmp_path / "run"
    process = _start(references.catalog, run_dir, UNBOUNDED)
    _wait_for_lines(run_dir / "episodes.jsonl", 3, process)
    process.send_signal(how)
    _, err = process.communicate(timeout=DEADLINE)
    assert process.returncode == 130, err[-2000:]
    logged = _sorted_lines(run_dir / "episodes.jsonl")
    assert 3 <= len(logged) < UNBOUNDED
    assert f"crsim: interrupted: {len(logged)} of {UNBOUNDED} episodes are finished" in err, err[-2000:]
    assert f"hydra.run.dir={run_dir}" in err
    expected = references.first(len(logged) + MORE)
    assert logged == expected[: len(logged)]  # one at a time: the first episodes, finished
    _resume(references.catalog, run_dir, len(expected))
    assert _sorted_lines(run_dir / "episodes.jsonl") == expected


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["processes", "ray"])
def test_sigint_with_worker_processes_or_ray_actors(references, tmp_path: Path, backend: str) -> None:
    """Ctrl-C reaches the whole process group, workers included: they ignore it, the parent
    stops them, logs what finished once, and the same command completes the run."""
    if backend == "ray":
        pytest.importorskip("ray")
    run_dir = tmp_path / "run"
    extra = (f"runner.backend={backend}", "runner.workers=2")
    logged = _interrupt_with_workers(references, run_dir, extra, lambda process: os.killpg(process.pid, signal.SIGINT))
    # episodes finish in any order: resume past the highest index logged
    expected = references.first(max(map(_index, logged)) + 1 + MORE)
    assert all(line == expected[_index(line)] for line in logged), "an episode unlike the uninterrupted run's"
    _resume(references.catalog, run_dir, len(expected), *extra)
    assert _sorted_lines(run_dir / "episodes.jsonl") == expected


@pytest.mark.slow
def test_sigterm_with_ray_actors_is_an_interrupt_too(references, tmp_path: Path) -> None:
    """`ray.init` installs a SIGTERM handler of its own (status 15, nothing said); a
    scheduler's SIGTERM must still end the run as an interrupt. Resuming is as above."""
    pytest.importorskip("ray")
    extra = ("runner.backend=ray", "runner.workers=2")
    logged = _interrupt_with_workers(references, tmp_path / "run", extra,
                                     lambda process: process.send_signal(signal.SIGTERM))
    expected = references.first(max(map(_index, logged)) + 1)
    assert all(line == expected[_index(line)] for line in logged), "an episode unlike the uninterrupted run's"


def _interrupt_with_workers(references: References, run_dir: Path, extra: tuple[str, ...], interrupt) -> list[str]:
    """Start a run on workers, `interrupt` it after three episodes are logged; its checked log."""
    process = _start(references.catalog, run_dir, UNBOUNDED, *extra)
    _wait_for_lines(run_dir / "episodes.jsonl", 3, process)
    interrupt(process)
    _, err = process.communicate(timeout=DEADLINE)
    assert process.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "SIGTERM received" not in err, err[-2000:]
    logged = _sorted_lines(run_dir / "episodes.jsonl")
    indices = [_index(line) for line in logged]
    assert len(logged) >= 3 and len(set(indices)) == len(indices), "a duplicate episode"
    assert f"crsim: interrupted: {len(logged)} of {UNBOUNDED} episodes are finished" in err, err[-2000:]
    return logged


@pytest.mark.parametrize("window", ["booting", "building"])
def test_ctrl_c_while_workers_start_stops_the_run_at_once(references, tmp_path: Path, window: str) -> None:
    """Ctrl-C while the worker processes are still starting: before any crsim code runs in
    them (`booting`, plugins/booting/sitecustomize.py), or while they build their agents
    (`building`, for an hour: plugins/stalling_seeker.py, as a slow import or a cold cache
    would). The run stops at once with status 130 and its one line, no worker's traceback and
    no wait for a worker to finish starting, and the same command then runs it whole."""
    flag = tmp_path / "worker-pids"
    run_dir = tmp_path / "run"
    extra = ["runner.backend=processes", "runner.workers=2", f"hydra.searchpath=[file://{PLUGINS / 'conf'}]",
             "seeker=stalling"]
    plugins = os.pathsep.join([str(PLUGINS), os.environ.get("PYTHONPATH", "")])
    if window == "booting":
        env = {"PYTHONPATH": os.pathsep.join([str(PLUGINS / "booting"), plugins]), "CRSIM_TEST_BOOTING": str(flag)}
    else:
        env = {"PYTHONPATH": plugins, "CRSIM_TEST_STALLED": str(flag), "CRSIM_TEST_STALL_SECONDS": "3600"}
    process = _start(references.catalog, run_dir, 12, *extra, env=env)
    _wait_for(lambda: _lines(flag) >= 2, "two worker processes starting", process)
    workers = [int(pid) for pid in flag.read_text().split()]
    os.killpg(process.pid, signal.SIGINT)
    flag.unlink()  # booting workers may go on now: Ctrl-C must not have hurt them
    _, err = process.communicate(timeout=DEADLINE)
    assert process.returncode == 130, err[-3000:]
    assert err.startswith("crsim: interrupted: 0 of 12 episodes") and len(err.splitlines()) == 1, err[-3000:]
    assert not [pid for pid in workers if _running(pid)], "a worker outlived its run"
    _resume(references.catalog, run_dir, 12, *extra, env={"PYTHONPATH": plugins})
    assert len(_sorted_lines(run_dir / "episodes.jsonl")) == 12


def test_kill_9_then_the_same_command_completes_the_run_exactly(references, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    log = run_dir / "episodes.jsonl"
    process = _start(references.catalog, run_dir, UNBOUNDED)
    _wait_for_lines(log, 4, process)
    process.kill()
    process.communicate()
    whole = log.read_text().split("\n")[:-1]  # complete lines: the kill may have cut the last write
    expected = references.first(max(map(_index, whole)) + 1 + MORE)
    with log.open("a") as handle:  # what a write cut by the kill leaves behind
        handle.write('{"id": "s0-e00099", "index": 99, "turns": [{"ind')
    _resume(references.catalog, run_dir, len(expected))
    assert _sorted_lines(log) == expected  # no cut line, no duplicate, the same episodes


def test_a_larger_episodes_extends_a_run(references, tmp_path: Path) -> None:
    catalog, expected = references.catalog, references.first(EPISODES)
    run_dir = tmp_path / "run"
    first = _run(catalog, run_dir, 5)
    assert first.returncode == 0, first.stderr[-2000:]
    more = _run(catalog, run_dir, EPISODES)
    assert more.returncode == 0 and f"ran {EPISODES - 5}, resumed 5" in more.stdout, more.stdout[-2000:]
    assert _sorted_lines(run_dir / "episodes.jsonl") == expected
