"""`crsim report` as a command: exit codes and the one-line error."""

from __future__ import annotations

from simulators.cli.main import main as crsim_main


def test_missing_dir_exits_2_with_one_clear_line(tmp_path, capsys):
    missing = tmp_path / "no-such-run"
    assert crsim_main(["report", str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"crsim: error: {missing}: no such log file or directory"]


def test_a_dir_without_logs_and_a_bad_metric_exit_2(tmp_path, report_sweep, capsys):
    assert crsim_main(["report", str(tmp_path / "sweep" / "good" / ".hydra")]) == 2
    assert "no episodes.jsonl in it or below it" in capsys.readouterr().err
    assert crsim_main(["report", str(report_sweep), "--metrics", "ndcg"]) == 2
    assert "crsim: error: unknown metric 'ndcg'" in capsys.readouterr().err


def test_report_command_writes_into_out(report_sweep, tmp_path, capsys):
    out = tmp_path / "elsewhere"
    assert crsim_main(["report", str(report_sweep), "--out", str(out), "--metrics", "hits@3", "mrr",
                       "--resamples", "200"]) == 0
    printed = capsys.readouterr().out
    assert str(out / "index.html") in printed and "hits@3" in printed
    assert (out / "plot-hits_at_3.png").is_file() and not (out / "plot-hits_at_10.png").exists()
    assert not (report_sweep / "report").exists()
