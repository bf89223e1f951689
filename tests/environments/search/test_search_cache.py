from pathlib import Path

from environments.search.cache import (
    cache_dir_for,
    cache_root,
    content_key,
    write_dir_atomic,
    write_file_atomic,
)


def test_cache_root_follows_env(monkeypatch, tmp_path):
    monkeypatch.setenv("CRSIM_CACHE_DIR", str(tmp_path / "c"))
    assert cache_root() == tmp_path / "c"
    monkeypatch.delenv("CRSIM_CACHE_DIR")
    assert cache_root() == Path.home() / ".cache" / "crsim"
    assert cache_dir_for("bm25", tmp_path) == tmp_path / "bm25" and (tmp_path / "bm25").is_dir()


def test_content_key_depends_on_order_and_boundaries():
    assert content_key("a", "b") != content_key("b", "a")
    assert content_key("ab", "c") != content_key("a", "bc")


def test_atomic_writes_leave_no_temporaries(tmp_path):
    write_file_atomic(tmp_path / "f.bin", lambda p: p.write_bytes(b"x"))
    assert (tmp_path / "f.bin").read_bytes() == b"x"
    write_dir_atomic(tmp_path / "d", lambda p: (p / "a").write_text("1"))
    # a second writer of the same entry loses quietly; the first complete entry stays
    write_dir_atomic(tmp_path / "d", lambda p: (p / "a").write_text("2"))
    assert (tmp_path / "d" / "a").read_text() == "1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "f.bin"]


def test_failed_write_leaves_nothing(tmp_path):
    def boom(path):
        path.write_bytes(b"partial")
        raise RuntimeError("disk full")

    for writer in (write_file_atomic, write_dir_atomic):
        try:
            writer(tmp_path / "entry", boom if writer is write_file_atomic else lambda p: boom(p / "x"))
        except RuntimeError:
            pass
    assert list(tmp_path.iterdir()) == []
