"""Looking inside a run from Python and the CLI: time series, packet
traces and pcapng captures, checked against Wireshark's own TCP analysis
(tshark) and an independent pcapng reader (dpkt)."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dupack
from tests.conftest import QUICKSTART, run_subprocess

CLASSIC = ["tahoe", "reno", "newreno", "sack"]


def lossy_run(variant: str, pcap: Path) -> dupack.RunResult:
    """The quickstart dumbbell (f3's access link loses 1 % of data), captured
    on f3's access link: what f3's sender sent and the ACKs it received."""
    return dupack.run(QUICKSTART, overrides=[f"tcp.variant={variant}"], series=["f3"], pcap={"access3": pcap})


def tshark_fields(pcap: Path, *fields: str) -> pd.DataFrame:
    args = ["tshark", "-r", str(pcap), "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"]
    for f in fields:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True, timeout=120).stdout
    return pd.read_csv(io.StringIO(out), sep="\t", header=None, names=list(fields))


needs_tshark = pytest.mark.skipif(
    shutil.which("tshark") is None, reason="tshark (Debian package tshark) is not installed; scripts/test installs it"
)


@needs_tshark
@pytest.mark.parametrize("variant", CLASSIC)
def test_wireshark_counts_the_retransmissions_fast_retransmits_and_dupacks_dupack_counted(variant: str, tmp_path: Path) -> None:
    pcap = tmp_path / "access3.pcapng"
    r = lossy_run(variant, pcap)
    f3 = r.flows.set_index("flow").loc["f3"]
    df = tshark_fields(
        pcap,
        "frame.time_epoch",
        "tcp.len",
        "tcp.seq",
        "tcp.analysis.retransmission",
        "tcp.analysis.fast_retransmission",
        "tcp.analysis.duplicate_ack",
        "tcp.analysis.bytes_in_flight",
    )
    assert f3.retransmitted_segments > 10 and f3.fast_retransmits > 5, "the run must exercise recovery"
    # Wireshark marks every resent segment as a retransmission (fast ones too).
    assert df["tcp.analysis.retransmission"].notna().sum() == f3.retransmitted_segments
    assert df["tcp.analysis.fast_retransmission"].notna().sum() == f3.fast_retransmits
    assert df["tcp.analysis.duplicate_ack"].notna().sum() == f3.dupacks_received

    # Bytes in flight. Wireshark's value for a new data segment is its end
    # minus the highest ACK the capture has shown, less the bytes the SACK
    # blocks of the last ACK cover. The capture is at the sender (data as it
    # leaves, ACKs as they arrive), so that is dupack's snd_una (and, with
    # SACK, its scoreboard's SACKed bytes) at the capture instant; an ACK and
    # a transmission at the same nanosecond may come in either order, so the
    # value just before the instant is accepted too.
    s = r.series
    data = df[(df["tcp.len"] > 0) & df["tcp.analysis.retransmission"].isna()]
    end = (data["tcp.seq"] + data["tcp.len"] - 1).to_numpy()  # relative seq starts at 1 after the SYN
    t = data["frame.time_epoch"].to_numpy()

    def at(var: str, when: np.ndarray, before: bool) -> np.ndarray:
        v = s[(s.entity == "f3") & (s.variable == var)]
        if v.empty:
            return np.zeros(len(when))
        times, values = v.time_s.to_numpy(), v.value.to_numpy()
        i = np.searchsorted(times, when - 1e-12, side="left") - 1 if before else np.searchsorted(times, when + 1e-12, side="right") - 1
        return values[np.maximum(i, 0)]

    ours_after = end - at("snd_una", t, False) - at("sacked", t, False)
    ours_before = end - at("snd_una", t, True) - at("sacked", t, True)
    theirs = data["tcp.analysis.bytes_in_flight"].to_numpy()
    same = (theirs == ours_after) | (theirs == ours_before)
    if variant == "sack":
        # Wireshark knows only the (at most 4) blocks of the last ACK; the
        # sender's scoreboard remembers every block it was told. Where they
        # differ Wireshark can only count fewer bytes as SACKed.
        assert same.mean() > 0.98
        assert (theirs[~same] > np.minimum(ours_after, ours_before)[~same]).all()
    else:
        assert same.all(), data[~same].head()


def _epbs(pcap: Path) -> list[tuple[float, bytes]]:
    import dpkt

    with pcap.open("rb") as fh:
        return list(dpkt.pcapng.Reader(fh))


def test_a_pcapng_reader_finds_the_headers_as_modelled(tmp_path: Path) -> None:
    import dpkt

    pcap = tmp_path / "a.pcapng"
    r = dupack.run(QUICKSTART, overrides=["tcp.variant=sack", "tcp.timestamps=true"], trace=["f3"], pcap={"access3": pcap})
    sent = r.trace[r.trace.kind.isin(["send", "retransmit"])]
    pkts = [dpkt.ip.IP(buf) for _, buf in _epbs(pcap)]
    syn, syn_ack = pkts[0].data, pkts[1].data
    assert syn.flags & dpkt.tcp.TH_SYN and not syn.flags & dpkt.tcp.TH_ACK
    assert syn_ack.flags & dpkt.tcp.TH_SYN and syn_ack.flags & dpkt.tcp.TH_ACK
    kinds = {o for o, _ in dpkt.tcp.parse_opts(syn.opts)}
    assert {dpkt.tcp.TCP_OPT_MSS, dpkt.tcp.TCP_OPT_SACKOK, dpkt.tcp.TCP_OPT_WSCALE, dpkt.tcp.TCP_OPT_TIMESTAMP} <= kinds
    isn = syn.seq
    data = [p for p in pkts[2:] if p.len > p.hl * 4 + p.data.off * 4]
    # Every segment the sender sent, in order, at seq = ISN + 1 + offset mod 2^32.
    assert [(p.data.seq - isn - 1) % 2**32 for p in data] == [int(x) % 2**32 for x in sent.seq]
    assert all(p.len == 20 + p.data.off * 4 + 1460 for p in data)
    acks = [p.data for p in pkts[2:] if p.src != pkts[0].src]
    sack_acks = [a for a in acks if any(o == dpkt.tcp.TCP_OPT_SACK for o, _ in dpkt.tcp.parse_opts(a.opts))]
    assert sack_acks, "a lossy SACK run has ACKs with SACK blocks"
    for a in sack_acks:
        blocks = dict(dpkt.tcp.parse_opts(a.opts))[dpkt.tcp.TCP_OPT_SACK]
        edges = [int.from_bytes(blocks[i : i + 4], "big") for i in range(0, len(blocks), 4)]
        # Blocks lie above the cumulative ACK, in the sender's sequence space.
        assert all((e - a.ack) % 2**32 < 2**31 for e in edges)
    assert all(dpkt.tcp.TCP_OPT_TIMESTAMP in dict(dpkt.tcp.parse_opts(p.data.opts)) for p in data)


def test_series_keep_their_invariants_and_count_the_events() -> None:
    r = dupack.run(QUICKSTART, series=["*"])
    s = r.series
    flows = r.flows.set_index("flow")
    for name, f in flows.iterrows():
        mine = s[s.entity == name]
        cwnd = mine[mine.variable == "cwnd"].value
        assert (cwnd >= 1460).all() and cwnd.iloc[-1] == f.final_cwnd
        assert mine[mine.variable == "snd_una"].value.is_monotonic_increasing
        assert (mine.variable == "timeout").sum() == f.timeouts
        assert (mine.variable == "fast_retransmit").sum() == f.fast_retransmits
    q = s[(s.entity == "bottleneck:fwd") & (s.variable == "queue")].value
    assert q.max() <= 30 and q.min() >= 0
    assert not s.attrs["truncated"]


def test_series_variables_keep_those_rows_of_the_whole_series() -> None:
    # The chosen variables' rows are exactly those of the whole series; the
    # record limit counts only them (the limit that cuts every variable
    # short leaves the cwnd alone whole).
    whole = dupack.run(QUICKSTART, series=["*"]).series
    chosen = dupack.run(QUICKSTART, series=["*"], series_variables=["cwnd", "queue", "timeout"])
    some = whole[whole.variable.isin(["cwnd", "queue", "timeout"])].reset_index(drop=True)
    got = chosen.series
    assert set(got.variable) == {"cwnd", "queue", "timeout"} and len(got) == len(some) < len(whole)
    pd.testing.assert_frame_equal(got[["time_s", "value"]], some[["time_s", "value"]])
    assert (got.entity.astype(str) == some.entity.astype(str)).all()
    assert (got.variable.astype(str) == some.variable.astype(str)).all()
    pd.testing.assert_frame_equal(chosen.flows, dupack.run(QUICKSTART).flows)
    cwnd = whole[whole.variable == "cwnd"]
    cut = dupack.run(QUICKSTART, series=["*"], series_max=len(cwnd), series_variables=["cwnd"]).series
    assert len(cut) == len(cwnd) and not cut.attrs["truncated"]
    assert dupack.run(QUICKSTART, series=["*"], series_max=len(cwnd)).series.attrs["truncated"]


@pytest.mark.parametrize(
    ("kwargs", "error", "fragment"),
    [
        ({"series": ["*"], "series_variables": ["cwnd", "window"]}, dupack.ScenarioError, 'no variable named "window"'),
        ({"series_variables": ["cwnd"]}, ValueError, "name the flows and links whose series to keep with series="),
        ({"series": ["*"], "series_variables": "cwnd"}, TypeError, "series_variables must be a list of names"),
    ],
)
def test_bad_series_variables(kwargs: dict, error: type, fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        dupack.run(QUICKSTART, **kwargs)


def test_observing_changes_no_result() -> None:
    plain = dupack.run(QUICKSTART)
    seen = dupack.run(QUICKSTART, series=["*"], trace=["f0", "f3"])
    a, b = plain.flows.drop(columns=[]), seen.flows
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(plain.links, seen.links)


def test_the_cli_saves_series_trace_and_captures_beside_the_results(tmp_path: Path) -> None:
    out = tmp_path / "o"
    p = run_subprocess("run", str(QUICKSTART), "--trace", "f3,bottleneck", "--pcap", "access3", "--pcap", "bottleneck:fwd", "-o", str(out), "-q")
    assert p.returncode == 0, p.stderr
    for name in ["series.parquet", "trace.parquet", "access3.pcapng", "bottleneck-fwd.pcapng", "result.json"]:
        assert (out / name).stat().st_size > 0, name
    s = pd.read_parquet(out / "series.parquet")
    assert set(s.entity.unique()) == {"f3", "bottleneck:fwd", "bottleneck:rev"}
    assert set(pd.read_parquet(out / "trace.parquet").flow.unique()) == {"f3"}
    assert "series" not in (out / "result.json").read_text()
    few = tmp_path / "few"
    p = run_subprocess("run", str(QUICKSTART), "--trace", "f3,bottleneck", "--series-vars", "cwnd",
                       "--series-vars", "queue", "-o", str(few), "-q")
    assert p.returncode == 0, p.stderr
    kept = pd.read_parquet(few / "series.parquet")
    assert set(kept.variable.astype(str)) == {"cwnd", "queue"}
    assert len(kept) == s.variable.isin(["cwnd", "queue"]).sum()
    # The bottleneck's fwd capture holds data only, of every flow (besides
    # the synthesised SYN-ACKs that tell Wireshark each flow's options).
    import dpkt

    segs = [dpkt.ip.IP(b).data for _, b in _epbs(out / "bottleneck-fwd.pcapng")]
    ports = {t.sport for t in segs if not t.flags & dpkt.tcp.TH_SYN}
    assert ports == {10000, 10001, 10002, 10003}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--trace", "f9"], "--trace: no flow or link named 'f9'"),
        (["--trace", "link:f0"], "--trace: no link named 'f0'"),
        (["--trace", "f0,,f1"], "--trace needs comma-separated"),
        (["--pcap", "nolink"], "--pcap: no link named"),
        (["--pcap", "access0:sideways"], "--pcap: no link named \"access0:sideways\""),
        (["--pcap", "../x"], "--pcap needs LINK"),
        (["--trace", "f0", "--series-vars", "cwnd,wnd"], '--series-vars: no variable named "wnd"; a flow\'s are cwnd,'),
        (["--series-vars", "cwnd"], "--series-vars chooses among the variables of the time series"),
        (["--trace", "f0", "--series-vars", "cwnd,"], "--series-vars needs comma-separated variable names"),
    ],
)
def test_bad_observation_options_get_one_line_and_exit_2(args: list[str], fragment: str, tmp_path: Path) -> None:
    p = run_subprocess("run", str(QUICKSTART), *args, "-o", str(tmp_path / "o"), "-q")
    assert p.returncode == 2
    assert p.stderr.startswith("error: ") and p.stderr.count("\n") == 1, p.stderr
    assert fragment in p.stderr, p.stderr
