"""The catalog-embedding bar: drawn on a terminal when asked, never with `progress=false`,
never into a log (stderr not a terminal), and never a change to what a run computes."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import struct
import sys
import termios
import threading
from pathlib import Path

import numpy as np
import pytest
from crsim_testing import CRSIM, HashEncoder

from environments.search.dense import embed_cached
from environments.search.embeddings import progress_bars, set_progress_bars, show_bar

TEXTS = [f"text number {i} about pizza and pasta" for i in range(300)]


class Terminal(io.StringIO):
    """A stderr that says it is a terminal, as a user's console does."""

    def isatty(self) -> bool:
        return True


def _embedded_stderr(monkeypatch: pytest.MonkeyPatch, stderr: io.StringIO, cache: Path) -> str:
    monkeypatch.setattr(sys, "stderr", stderr)
    matrix = embed_cached(TEXTS, HashEncoder(), cache, show_progress=True, what="reviews")
    assert matrix.shape == (len(TEXTS), 256)
    return stderr.getvalue()


def test_a_terminal_gets_the_bar(monkeypatch, tmp_path) -> None:
    """The control: the bar is there to be silenced (else the tests below prove nothing)."""
    assert "Embedding 300 reviews" in _embedded_stderr(monkeypatch, Terminal(), tmp_path)


def test_progress_off_draws_no_bar_even_on_a_terminal(monkeypatch, tmp_path) -> None:
    with progress_bars(False):
        assert _embedded_stderr(monkeypatch, Terminal(), tmp_path) == ""
        assert not show_bar()
    assert show_bar()  # the block's end puts the setting back
    assert set_progress_bars(False) is True
    try:
        assert not show_bar()
    finally:
        assert set_progress_bars(True) is False


def test_a_log_gets_no_bar(monkeypatch, tmp_path) -> None:
    """stderr redirected to a file or a pipe: no stream of carriage-return updates."""
    assert _embedded_stderr(monkeypatch, io.StringIO(), tmp_path) == ""


def test_the_bar_changes_no_row(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(sys, "stderr", Terminal())
    drawn = embed_cached(TEXTS, HashEncoder(), tmp_path / "a", show_progress=True)
    with progress_bars(False):
        silent = embed_cached(TEXTS, HashEncoder(), tmp_path / "b", show_progress=True)
    assert np.array_equal(drawn, silent)


def _run_on_terminal(args: list[str], cache: Path) -> tuple[int, str]:
    """`crsim ARGS` with stderr on a pseudo-terminal (as in a console); its stderr text."""
    import subprocess

    leader, follower = pty.openpty()
    # a console's size: on a 0 x 0 terminal tqdm draws nothing at all, bar or no bar
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the follower side closed: the process is gone
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        done = subprocess.run([CRSIM, *args], stdout=subprocess.DEVNULL, stderr=follower, timeout=900,
                              env={**os.environ, "CRSIM_CACHE_DIR": str(cache)})
    finally:
        os.close(follower)
        reader.join(30)
        os.close(leader)
    return done.returncode, b"".join(chunks).decode(errors="replace")


def test_crsim_run_progress_false_embeds_without_a_bar(tiny_catalog_dir, tmp_path) -> None:
    """A dense run embeds the catalog on a cold cache: with its stderr a terminal, the bar shows
    unless `progress=false`; the episodes logged are the same bytes either way."""
    common = ["run", f"environment.catalog={tiny_catalog_dir}", "environment.target_pool_size=5",
              "recommender=dense", "dense_embedding_model=minilm-int8", "embedding_model=minilm-int8",
              "episodes=2", "max_turns=2"]
    status, shown = _run_on_terminal([*common, f"hydra.run.dir={tmp_path / 'on'}"], tmp_path / "cache-on")
    assert status == 0, shown[-2000:]
    assert "Embedding 24 item documents" in shown  # the control: a cold cache on a terminal draws it
    status, silent = _run_on_terminal([*common, "progress=false", f"hydra.run.dir={tmp_path / 'off'}"],
                                      tmp_path / "cache-off")
    assert status == 0, silent[-2000:]
    assert "Embedding" not in silent and "it/s" not in silent and "text/s" not in silent, silent[-2000:]
    assert list((tmp_path / "cache-off" / "dense").glob("*.npy"))  # it did embed, on a cold cache
    on, off = ((tmp_path / name / "episodes.jsonl").read_bytes() for name in ("on", "off"))
    assert on == off
