"""Plots (dupack.plot, `dupack plot`, the results' `plot` accessors), drawn
from real runs and sweeps: each kind writes a real image and draws the
series it promises; input that does not fit the kind is one `error:` line
and exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

import dupack
from dupack.plot import PlotError
from tests.conftest import QUICKSTART, run_cli, run_subprocess

FLOW = "f3"  # quickstart's lossy flow: it has errors, queue drops, fast retransmits and timeouts


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SACK run of the quickstart, f3 and the bottleneck traced, saved as `dupack run` saves it."""
    res = dupack.run(
        QUICKSTART, seed=1, overrides=["run.duration=10s", "tcp.variant=sack"],
        trace=[FLOW], series=[FLOW, "bottleneck"],
    )
    return res.save(tmp_path_factory.mktemp("plot") / "run")


@pytest.fixture(scope="module")
def plain_run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same scenario without --trace."""
    return dupack.run(QUICKSTART, seed=2, overrides=["run.duration=5s"]).save(tmp_path_factory.mktemp("plot") / "plain")


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plot") / "sweep"
    dupack.sweep(
        QUICKSTART,
        grid={"tcp.variant": ["reno", "sack"], "topology.bottleneck.queue.limit_packets": [10, 30]},
        seeds=[1, 2, 3],
        overrides=["run.duration=5s"],
        out=out,
        workers=1,
        progress=False,
    )
    return out


def _labels(fig) -> set[str]:
    ax = fig.axes[0]
    return {h.get_label() for h in [*ax.get_lines(), *ax.collections, *ax.patches, *ax.containers]}


def _check_png(path: Path) -> None:
    import matplotlib.image as mpimg

    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = mpimg.imread(path)
    assert img.shape[0] > 100 and img.shape[1] > 100
    assert img.std() > 0.01, "the image is blank"


def test_tsg_draws_sends_retransmissions_ack_sack_losses_and_events(run_dir: Path, tmp_path: Path) -> None:
    from dupack.plot import load, plot

    run = load(run_dir)
    fig = plot("tsg", [run])
    labels = _labels(fig)
    assert {"send", "retransmission", "ACK", "SACK block", "fast retransmit", "lost (queue drop)"} <= labels
    t = run.trace
    t = t[t["flow"].astype(str) == FLOW]
    # The ACK line passes through every cumulative ACK that reached the
    # sender, and each SACK block is one tick over exactly its bytes.
    ack = next(line for line in fig.axes[0].get_lines() if line.get_label() == "ACK")
    acks = t[t["kind"] == "ack"]
    assert list(ack.get_ydata()) == [float(x) for x in acks["seq"]]
    ticks = next(c for c in fig.axes[0].collections if c.get_label() == "SACK block")
    blocks = t[t["kind"] == "sack"]
    segs = ticks.get_segments()
    assert len(segs) == len(blocks) > 0
    assert [(s[0][1], s[1][1]) for s in segs] == [
        (float(a), float(a + n)) for a, n in zip(blocks["seq"], blocks["len"], strict=True)
    ]
    # A block lies above the cumulative ACK it came with.
    ack_before = acks["seq"].reindex(t.index).ffill().loc[blocks.index]
    assert (blocks["seq"].astype("float64") > ack_before.astype("float64")).all()
    t = run.trace
    send = next(line for line in fig.axes[0].get_lines() if line.get_label() == "send")
    assert len(send.get_xdata()) == int((t["kind"] == "send").sum())
    retx = next(line for line in fig.axes[0].get_lines() if line.get_label() == "retransmission")
    assert len(retx.get_xdata()) == int((t["kind"] == "retransmit").sum())
    # Losses of both kinds happened to f3, and each is drawn.
    for kind, label in (("drop_error", "lost (link error)"), ("drop_queue", "lost (queue drop)")):
        n = int((t["kind"] == kind).sum())
        if n:
            line = next(line for line in fig.axes[0].get_lines() if line.get_label() == label)
            assert len(line.get_xdata()) == n

    out = tmp_path / "tsg.png"
    r = run_cli("plot", "tsg", str(run_dir), "--flow", FLOW, "--from", "1", "--to", "4", "-o", str(out))
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    assert r.stdout == f"wrote {out}\n"
    _check_png(out)


def test_tsg_window_keeps_only_its_packets(run_dir: Path) -> None:
    from dupack.plot import plot

    fig = plot("tsg", [run_dir], start=2.0, end=3.0)
    send = next(line for line in fig.axes[0].get_lines() if line.get_label() == "send")
    xs = list(send.get_xdata())
    assert xs and min(xs) >= 2.0 and max(xs) <= 3.0


def test_cwnd_with_band_and_events(run_dir: Path, tmp_path: Path) -> None:
    res_flows = dupack.plot.load(run_dir).flows
    fig = dupack.plot.plot("cwnd", [run_dir], band=4)
    labels = _labels(fig)
    assert {f"{FLOW} cwnd", f"{FLOW} ssthresh", "fast retransmit", "small window (cwnd < 4 segments)"} <= labels
    f3 = res_flows[res_flows["flow"] == FLOW].iloc[0]
    marks = next(line for line in fig.axes[0].get_lines() if line.get_label() == "fast retransmit")
    assert len(marks.get_xdata()) == int(f3["fast_retransmits"])
    # In segments: the first value is the initial window, a few segments, not bytes.
    cw = next(line for line in fig.axes[0].get_lines() if line.get_label() == f"{FLOW} cwnd")
    assert 1 <= cw.get_ydata()[0] <= 10

    out = tmp_path / "cwnd.svg"
    r = run_cli("plot", "cwnd", str(run_dir), "--band", "4", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    text = out.read_text(encoding="utf-8")
    assert text.lstrip().startswith("<?xml") and "<svg" in text


def test_queue_marks_drops(run_dir: Path, tmp_path: Path) -> None:
    run = dupack.plot.load(run_dir)
    fig = dupack.plot.plot("queue", [run])
    labels = _labels(fig)
    assert {"queue", "queue drop"} <= labels
    fwd = run.links[(run.links["link"] == "bottleneck") & (run.links["direction"] == "fwd")].iloc[0]
    drops = next(line for line in fig.axes[0].get_lines() if line.get_label() == "queue drop")
    # One mark per instant the drop counter grew: at most the drops, at least one.
    assert 1 <= len(drops.get_xdata()) <= int(fwd["drops_queue"])
    q = next(line for line in fig.axes[0].get_lines() if line.get_label() == "queue")
    assert max(q.get_ydata()) == fwd["max_queue_packets"]

    out = tmp_path / "q.png"
    r = run_cli("plot", "queue", str(run_dir), "--link", "bottleneck:rev", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    _check_png(out)


def test_bars_over_runs_and_sweeps(run_dir: Path, plain_run_dir: Path, sweep_dir: Path, tmp_path: Path) -> None:
    from dupack.plot import plot

    fig = plot("bars", [run_dir, plain_run_dir], metric="timeouts")
    assert {"mean over runs", "min–max", "95 % CI of the mean"} <= _labels(fig)
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == ["f0", "f1", "f2", "f3"]

    fig = plot("bars", [sweep_dir], by="variant")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["reno", "sack"]
    res = dupack.SweepResult.load(sweep_dir)
    heights = [p.get_height() for p in fig.axes[0].patches]
    for variant, h in zip(["reno", "sack"], heights, strict=True):
        runs = res.flows[res.flows["variant"] == variant].groupby("job")["goodput_kbps"].mean()
        assert h == pytest.approx(runs.mean())

    out = tmp_path / "bars.png"
    r = run_cli("plot", "bars", str(sweep_dir), "--by", "topology.bottleneck.queue.limit_packets", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    _check_png(out)


def test_ndup_histogram_counts_the_timeouts(sweep_dir: Path, tmp_path: Path) -> None:
    res = dupack.SweepResult.load(sweep_dir)
    fig = res.plot.ndup()
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1", "2", "≥3"]
    assert {c.get_label().split(" (")[0] for c in ax.containers if c.get_label().startswith(("reno", "sack"))} == {"reno", "sack"}
    # Bar heights times the runs give back the stored timeouts.
    runs = len(res.runs)
    total = sum(p.get_height() for p in ax.patches) * (runs / 2)
    assert total == pytest.approx(float(res.flows["timeouts"].sum()))

    out = tmp_path / "ndup.png"
    r = run_cli("plot", "ndup", str(sweep_dir), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    _check_png(out)


def test_sweep_curve_per_variant_with_band(sweep_dir: Path, tmp_path: Path) -> None:
    res = dupack.SweepResult.load(sweep_dir)
    fig = res.plot.sweep(x="topology.bottleneck.queue.limit_packets", y="goodput_kbps")
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"reno", "sack"}
    assert list(lines["sack"].get_xdata()) == [10, 30]
    s = res.summary()
    want = s[s["tcp.variant"] == "sack"].sort_values("topology.bottleneck.queue.limit_packets")["goodput_kbps_mean"]
    assert list(lines["sack"].get_ydata()) == pytest.approx(list(want))
    assert len(ax.collections) == 2  # one CI band per curve
    # The only numeric swept path is the default x axis.
    assert res.plot.sweep().axes[0].get_xlabel() == "topology.bottleneck.queue.limit_packets"

    out = tmp_path / "sweep.png"
    r = run_cli("plot", "sweep", str(sweep_dir), "--x", "topology.bottleneck.queue.limit_packets", "--y", "timeouts",
                "--log-x", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    _check_png(out)


def test_a_log_axis_is_ticked_at_the_values_measured_in_plain_numbers(sweep_dir: Path) -> None:
    """No tick label is mathtext (matplotlib's powers of ten, slow to typeset)."""
    from matplotlib.figure import Figure

    from dupack.plot.draw import log_x_axis

    ax = dupack.SweepResult.load(sweep_dir).plot.sweep(log_x=True).axes[0]
    assert ax.get_xscale() == "log"
    assert list(ax.get_xticks()) == [10, 30]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["10", "30"]
    assert not any(t.get_text() for t in ax.get_xticklabels(minor=True))

    # Many values: matplotlib places the ticks, labelled as numbers are written.
    values = [10.0 ** (k / 4) for k in range(-12, 1)]  # 0.001 ... 1, 13 values
    fig = Figure()
    ax = fig.add_subplot()
    ax.plot(values, values)
    log_x_axis(ax, values)
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert {"0.001", "0.01", "0.1", "1"} <= set(labels)
    assert not any("$" in t for t in labels)
    assert not any(t.get_text() for t in ax.get_xticklabels(minor=True))


def test_an_svg_keeps_its_text_as_text(run_dir: Path, tmp_path: Path) -> None:
    """Editable and searchable: the title is a <text> element, not glyph outlines."""
    out = dupack.plot.save(dupack.plot.plot("cwnd", [run_dir]), tmp_path / "cwnd.svg")
    text = out.read_text(encoding="utf-8")
    assert "<text" in text and f"{FLOW} cwnd" in text
    assert "<path id=\"DejaVuSans" not in text


def test_the_same_figure_saves_to_the_same_svg_bytes(run_dir: Path, tmp_path: Path) -> None:
    """No random clip-path names and no date: two reproductions of the same runs compare file by file."""
    a = dupack.plot.save(dupack.plot.plot("cwnd", [run_dir]), tmp_path / "a.svg")
    b = dupack.plot.save(dupack.plot.plot("cwnd", [run_dir]), tmp_path / "b.svg")
    assert "clip-path" in a.read_text(encoding="utf-8") and "<dc:date>" not in a.read_text(encoding="utf-8")
    assert a.read_bytes() == b.read_bytes()


def test_run_accessor_in_memory() -> None:
    res = dupack.run(QUICKSTART, seed=1, overrides=["run.duration=3s"], trace=["f0"], series=["f0", "bottleneck"])
    assert "send" in _labels(res.plot.tsg())
    assert "f0 cwnd" in _labels(res.plot.cwnd("f0"))
    assert "queue" in _labels(res.plot.queue("bottleneck"))
    assert [t.get_text() for t in res.plot.bars().axes[0].get_xticklabels()] == ["f0", "f1", "f2", "f3"]
    with pytest.raises(PlotError, match="no traced flow named 'f1'"):
        res.plot.tsg("f1")


def test_a_runs_series_lines_are_its_rows_of_each_entity_and_variable(run_dir: Path) -> None:
    # flow_series groups the series once (a long run has hundreds of
    # thousands of records); each line is the rows a whole-column comparison
    # selects, in their order, and a pair with no rows is empty.
    import numpy as np
    import pandas as pd

    from dupack.plot import load
    from dupack.plot.load import _rows_by

    run = load(run_dir)
    s = run.series
    pairs = {(str(e), str(v)) for e, v in zip(s["entity"], s["variable"], strict=True)}
    assert len(pairs) > 5
    for entity, variable in [*sorted(pairs), ("f0", "no_such_variable")]:
        naive = s[(s["entity"].astype(str) == entity) & (s["variable"].astype(str) == variable)]
        pd.testing.assert_frame_equal(run.flow_series(entity, variable), naive[["time_s", "value"]].reset_index(drop=True))
    # Missing values belong to no pair, and never to a neighbouring one.
    a = pd.Series(["x", None, "y", "x", "y", None], dtype="category")
    b = pd.Series(["p", "q", None, "q", "p", "p"])
    rows = {k: v.tolist() for k, v in _rows_by(a, b).items()}
    assert rows == {("x", "p"): [0], ("x", "q"): [3], ("y", "p"): [4]}
    assert all(isinstance(v, np.ndarray) for v in _rows_by(a, b).values())


def test_untraced_run_refuses_tsg() -> None:
    res = dupack.run(QUICKSTART, seed=1, overrides=["run.duration=1s"])
    with pytest.raises(PlotError, match="needs a packet trace"):
        res.plot.tsg()
    with pytest.raises(PlotError, match="needs time series"):
        res.plot.cwnd()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["tsg", "{plain}"], "tsg needs a packet trace"),
        (["cwnd", "{plain}"], "cwnd needs time series"),
        (["queue", "{plain}"], "queue needs time series"),
        (["tsg", "{run}", "--flow", "f9"], "no traced flow named 'f9'"),
        (["cwnd", "{run}", "--flow", "f0"], "no flow named 'f0' with a time series"),
        (["queue", "{run}", "--link", "access0"], "no link direction 'access0:fwd'"),
        (["tsg", "{sweep}"], "tsg needs one run with a packet trace"),
        (["sweep", "{run}"], "sweep needs one sweep directory"),
        (["sweep", "{sweep}", "--x", "tcp.variant", "--log-x"], "--log-x needs positive numbers"),
        (["sweep", "{sweep}", "--x", "nope"], "'nope' is not swept"),
        (["sweep", "{sweep}", "--x", "tcp.variant", "--y", "nope"], "unknown metric 'nope'"),
        (["bars", "{run}", "--metric", "flow"], "unknown metric 'flow'"),
        (["bars", "{run}", "--by", "colour"], "cannot group by 'colour'"),
        (["tsg", "{tmp}"], "is not a result directory"),
        (["tsg", "{tmp}/missing"], "does not exist"),
        (["tsg", "{run}/flows.csv"], "is not a result directory"),
        (["pie", "{run}"], "unknown plot kind 'pie'"),
        (["tsg", "{run}", "--band", "4"], "--band does not apply to tsg plots"),
        (["cwnd", "{run}", "--band", "0"], "--band must be a number of segments > 0"),
        (["cwnd", "{run}", "--from", "5", "--to", "2"], "0 <= from < to"),
        (["cwnd", "{run}", "--from", "soon"], "--from must be a time in seconds"),
        (["tsg", "{run}", "-o", "{tmp}/x.jpg"], "--out must name a .png or .svg file"),
        (["tsg", "{run}", "-o", "{tmp}/no/such/dir/x.png"], "cannot write"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], fragment: str, run_dir: Path, plain_run_dir: Path,
                                          sweep_dir: Path, tmp_path: Path) -> None:
    full = [a.format(run=run_dir, plain=plain_run_dir, sweep=sweep_dir, tmp=tmp_path) for a in args]
    if "-o" not in full:
        full += ["-o", str(tmp_path / "out.png")]
    r = run_cli("plot", *full)
    assert r.exit_code == 2, (r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], r.stderr
    assert r.stdout == ""
    assert not (tmp_path / "out.png").exists()


def test_bad_input_as_a_user_sees_it(plain_run_dir: Path, tmp_path: Path) -> None:
    r = run_subprocess("plot", "tsg", str(plain_run_dir), "-o", str(tmp_path / "x.png"))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: tsg needs a packet trace"), r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_plot_writes_kind_png_by_default(run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = run_cli("plot", "cwnd", str(run_dir))
    assert r.exit_code == 0, r.stderr
    _check_png(tmp_path / "cwnd.png")


@pytest.mark.parametrize(("command", "usage"), [("plot", "dupack plot [OPTIONS] KIND RESULTS..."),
                                                ("report", "dupack report [OPTIONS] RESULTS...")])
def test_help_usage_reads_as_typed(command: str, usage: str) -> None:
    r = run_cli(command, "--help", env={"COLUMNS": "100", "TERM": "dumb"})
    assert r.exit_code == 0, r.stderr
    assert f"Usage: {usage}" in r.stdout
    assert "{" not in r.stdout.splitlines()[1]
