"""Collecting a (fake) Hydra multirun sweep and rendering the comparison."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from crsim_testing import make_episode

from simulators.metrics import default_metrics

METRICS = [m.name for m in default_metrics()]
from simulators.results.sweep import collect_sweep, render_comparison_table, summarize_sweep
from simulators.results.table import read_results_csv, results_frame, write_results_csv

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def write_job(sweep: Path, subdir: str, ranks: list[list[int]], overrides: list[str] | None) -> pd.DataFrame:
    job = sweep / subdir
    df = results_frame([make_episode(i, r) for i, r in enumerate(ranks)], max_turns=3, n_resamples=100)
    write_results_csv(df, job / "results.csv")
    if overrides is not None:
        (job / ".hydra").mkdir(parents=True)
        (job / ".hydra" / "overrides.yaml").write_text("".join(f"- {o}\n" for o in overrides))
    return df


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    sweep = tmp_path / "multirun" / "2024-01-01" / "12-00-00"
    write_job(sweep, "0", [[30, 12, 9], [40, 20, 15], [8, 4, 2]], ["recommender=bm25", "seed=1"])
    write_job(sweep, "1", [[5, 2, 1], [9, 3, 1], [1, 1, 1]], ["recommender=dense", "seed=1"])
    write_job(sweep, "2", [[50, 50, 50]], None)  # no .hydra: labelled by its subdir
    (sweep / "multirun.yaml").write_text("hydra: {}\n")
    return sweep


def render(table: object) -> str:
    console = Console(record=True, width=200)
    console.print(table)
    return console.export_text()


def test_collect_sweep(sweep: Path) -> None:
    df = collect_sweep(sweep)
    assert list(df.columns) == ["config", "turn", "metric", "mean", "ci_low", "ci_high", "n", "higher_is_better"]
    assert list(dict.fromkeys(df["config"])) == ["2", "recommender=bm25,seed=1", "recommender=dense,seed=1"]
    assert len(df) == 3 * 3 * len(METRICS)
    bm25 = df[df["config"] == "recommender=bm25,seed=1"]
    assert bm25["turn"].is_monotonic_increasing
    assert bm25["metric"].tolist()[: len(METRICS)] == list(METRICS)
    assert bm25["n"].eq(3).all()


def test_duplicate_labels_are_disambiguated(tmp_path: Path) -> None:
    write_job(tmp_path, "0", [[1, 1, 1]], ["recommender=bm25"])
    write_job(tmp_path, "1", [[2, 2, 2]], ["recommender=bm25"])
    configs = set(collect_sweep(tmp_path)["config"])
    assert configs == {"0", "1"}  # nothing tells them apart but their directories


def test_overrides_shared_by_every_job_are_left_out_of_labels(tmp_path: Path) -> None:
    write_job(tmp_path, "a", [[1, 1, 1]], ["episodes=60", "recommender=bm25"])
    write_job(tmp_path, "b", [[2, 2, 2]], ["episodes=60", "recommender=dense"])
    assert set(collect_sweep(tmp_path)["config"]) == {"recommender=bm25", "recommender=dense"}


def test_labels_with_brackets_are_not_markup(tmp_path: Path) -> None:
    write_job(tmp_path, "0", [[1, 1, 1]], ["recommender.ks=[bold]", "x=[1,5]"])
    out = render(render_comparison_table(collect_sweep(tmp_path)))
    assert "recommender.ks=[bold],x=[1,5]" in out


def test_empty_sweep_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="results.csv"):
        collect_sweep(tmp_path)


def test_comparison_table_shows_configs(sweep: Path) -> None:
    out = render(render_comparison_table(collect_sweep(sweep), title="cmp"))
    for name in ("recommender=bm25", "recommender=dense", "hits@10", "avg_position"):
        assert name in out
    frame = collect_sweep(sweep)
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) == frame.groupby(["config", "turn"]).ngroups  # one row per config and turn


def test_summarize_sweep_writes_csv_and_png(sweep: Path) -> None:
    console = Console(record=True, width=200)
    df = summarize_sweep(sweep, console=console)
    out = console.export_text()
    assert "recommender=dense,seed=1" in out
    summary = read_results_csv(sweep / "summary.csv")
    pd.testing.assert_frame_equal(summary, df, check_dtype=False)
    assert (sweep / "summary.png").read_bytes().startswith(PNG_MAGIC)
    # summary.csv at the sweep root must not be picked up as a job on a second run.
    pd.testing.assert_frame_equal(collect_sweep(sweep), df)


def test_sweep_plot_legend_is_whole_inside_the_saved_image(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hydra override labels are long; the legend used to run past the image's edges."""
    import struct

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    recommenders = ["popularity", "bm25", "dense", "zero_shot"]
    seekers = ["target_free", "target_biased_pepper"]
    for n, (recommender, seeker) in enumerate((r, s) for r in recommenders for s in seekers):
        write_job(tmp_path, str(n), [[30, 12, 9], [40, 20, 15], [8, 4, 1 + n]],
                  ["experiment=pepper", f"recommender={recommender}", f"seeker={seeker}",
                   f"recommender.question_pool={50 + n}"])  # a third varying key makes labels very long
    saved: list[tuple[Figure, dict]] = []
    original = Figure.savefig

    def recorded(fig: Figure, *args: object, **kwargs: object) -> None:
        saved.append((fig, kwargs))
        original(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", recorded)
    df = summarize_sweep(tmp_path, console=Console(record=True, width=200))
    ((fig, options),) = saved
    labels = list(dict.fromkeys(df["config"]))
    assert max(len(label) for label in labels) > 70

    fig.set_dpi(options["dpi"])  # laid out again as savefig did: Agg (a bare Figure has no renderer), its dpi
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    (legend,) = fig.legends
    shown = [text.get_text() for text in legend.get_texts()]
    assert [text.replace("\n", "") for text in shown] == labels  # every label, whole, wrapped at most
    if options.get("bbox_inches") == "tight":  # the region of the figure the PNG holds, in inches
        image = fig.get_tightbbox(renderer).padded(options.get("pad_inches", 0.1))
    else:
        image = fig.bbox_inches
    boxes = [legend.get_window_extent(renderer), *(t.get_window_extent(renderer) for t in legend.get_texts())]
    for box in (b.transformed(fig.dpi_scale_trans.inverted()) for b in boxes):
        assert image.x0 <= box.x0 and box.x1 <= image.x1 and image.y0 <= box.y0 and box.y1 <= image.y1, (box, image)
    width, height = struct.unpack(">II", (tmp_path / "summary.png").read_bytes()[16:24])
    dpi = options["dpi"]
    assert abs(width - image.width * dpi) <= 2 and abs(height - image.height * dpi) <= 2  # that region was saved
