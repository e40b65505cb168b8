"""The benchmark's configuration mirror (bench/mirror.py): every case hands ns-2
and ns-3 the same TCP and link settings as the dupack scenario it times, so
that the report's side-by-side results compare like with like (issue 6)."""

from __future__ import annotations

import math

import pytest

from bench import measure, mirror, report
from bench import run as bench_run

CASES = bench_run.cases(quick=False)


def _args(argv: list[str]) -> dict[str, str]:
    return dict(a.split("=", 1) for a in argv)


def test_the_cases_are_the_issues_grid() -> None:
    a = [c for c in CASES if c.group == "a"]
    assert sorted({c.flows for c in a}) == [10, 40, 200]
    assert {c.overrides["topology.access.fwd_error.p"] for c in a} == {0.0, 0.01, 0.05}
    assert {c.overrides["tcp.variant"] for c in a} == {"newreno", "sack", "rfc6675+lt"}
    assert all(c.duration == 200 for c in a)
    assert sorted(c.flows for c in CASES if c.group == "c-flows") == [1, 10, 100, 1000, 10000]
    # ns-3 would take hours at 10,000 flows; ns-2 gets a longer limit there.
    big = [c for c in CASES if c.flows == 10000]
    assert [c.ns3 for c in big] == [False] and big[0].ns2 and big[0].ns2_timeout
    assert all(c.ns3 for c in CASES if c.flows < 10000 and c.overrides.get("tcp.variant") != "sack")
    assert big[0].ns3_note and not any(c.ns3_note for c in CASES if c.flows < 10000)
    assert len([c for c in CASES if c.group == "b"]) == 3
    # ns-2's all-pairs routing does not finish at 10,000 senders: that case alone gives its routes explicitly.
    assert big[0].ns2_routing == "manual" and "routing=manual" in big[0].ns2_cmd()
    assert all(c.ns2_routing == "static" and not any(a.startswith("routing=") for a in c.ns2_cmd())
               for c in CASES if c.flows < 10000)


@pytest.mark.skipif(__import__("shutil").which("ns") is None, reason="ns-2 ('ns') is not installed")
@pytest.mark.parametrize("scenario, overrides", [
    ("scaling.toml", {"topology.senders": 5, "run.duration": "5s", "tcp.variant": "sack"}),
    ("unfairness.toml", {"topology.senders": 3, "run.duration": "5s"}),
    ("rpld.toml", {"run.duration": "20s"}),
])
def test_ns2s_explicit_routes_are_its_computed_ones(scenario: str, overrides: dict) -> None:
    # tcp_bench.tcl routing=manual must change nothing but ns-2's set-up: the same output to the byte.
    import subprocess

    outputs = []
    for routing in ("static", "manual"):
        case = mirror.Case("c-flows", "x", scenario, overrides, ns2_routing=routing)
        r = subprocess.run(case.ns2_cmd(), capture_output=True, text=True, timeout=120, check=True)
        assert "FLOW 0 " in r.stdout and "END " in r.stdout, r.stdout
        routes = [line for line in r.stdout.splitlines() if line.startswith("ROUTES ")]
        # Manual routing gave every route itself: two per sender and two for the sink (the dumbbells), or
        # one each way (the one-link case); ns-2's own computation none.
        n = case.flows
        explicit = (2 * n + 2 if case.doc["topology"]["kind"] == "dumbbell" else 2) if routing == "manual" else 0
        assert routes == [f"ROUTES routing={routing} explicit={explicit}"], routes
        outputs.append([line for line in r.stdout.splitlines() if not line.startswith("ROUTES ")])
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_ns2_and_ns3_get_the_scenarios_tcp_settings(case) -> None:
    tcp, rcv, rto = case.doc["tcp"], case.doc["receiver"], case.doc["tcp"]["rto"]
    mss = mirror.size(tcp["mss"])
    for argv in _peer_args(case):
        a = _args(argv)
        assert int(a["mss"]) == mss
        assert int(a["iw"]) == tcp["initial_window"]
        assert int(a["dupthresh"]) == tcp["dupthresh"]
        assert float(a["tick"]) == mirror.seconds(rto["granularity"])
        assert float(a["minrto"]) == mirror.seconds(rto["min"])
        assert float(a["initrto"]) == mirror.seconds(rto["initial"])
        assert float(a["duration"]) == case.duration
    if case.ns2:
        assert _args(mirror.ns2_args(case.doc))["variant"] == tcp["variant"]
        # ns-2's window_ is in whole packets (64000 B of 536-byte segments: 119).
        assert int(_args(mirror.ns2_args(case.doc))["window"]) == mirror.size(rcv["window"]) // mss
    if case.ns3:
        # ns-3's SACK is RFC 6675 with step (3): dupack's rfc6675+lt runs against it; its receive buffer is in bytes.
        want = {"newreno": "newreno", "rfc6675+lt": "sack"}[tcp["variant"]]
        assert _args(mirror.ns3_args(case.doc))["variant"] == want
        assert int(_args(mirror.ns3_args(case.doc))["window"]) == mirror.size(rcv["window"])


def _peer_args(case) -> list[list[str]]:
    """The argument lists of the peers this case runs."""
    return ([mirror.ns2_args(case.doc)] if case.ns2 else []) + ([mirror.ns3_args(case.doc)] if case.ns3 else [])


def test_each_sack_flavour_is_timed_against_its_closest_peer() -> None:
    """Fall & Floyd's SACK (`sack`, ns-2's Sack1) against ns-2; RFC 6675 with its Limited Transmit (`rfc6675+lt`,
    ns-3's SACK) against ns-3; every `sack` case of (a) and (b) has an `rfc6675+lt` twin with the same network,
    and NewReno both."""
    ab = [c for c in CASES if c.group in ("a", "b")]
    for c in ab:
        v = c.overrides["tcp.variant"]
        assert (c.ns2, c.ns3) == {"newreno": (True, True), "sack": (True, False), "rfc6675+lt": (False, True)}[v]
    # The network is the same; the cases run against ns-3 alone also take ns-3's timer rules (mirror.NS3_RTO,
    # mirror.NS3_TCP), and those of `sack` ns-2's Sack1 guard and ACK size (mirror.NS2_SACK, NS2_SACK_RECEIVER).
    timer = ({f"tcp.rto.{k}" for k in mirror.NS3_RTO} | {f"tcp.{k}" for k in mirror.NS3_TCP}
             | {f"wire.{k}" for k in mirror.NS3_WIRE}
             | {f"tcp.{k}" for k in mirror.NS2_SACK} | {f"receiver.{k}" for k in mirror.NS2_SACK_RECEIVER})
    key = lambda c: (c.group, tuple(sorted((k, v) for k, v in c.overrides.items()  # noqa: E731
                                           if k != "tcp.variant" and k not in timer)))
    sack = sorted(key(c) for c in ab if c.overrides["tcp.variant"] == "sack")
    assert sack and sack == sorted(key(c) for c in ab if c.overrides["tcp.variant"] == "rfc6675+lt")
    for c in ab:
        ns3_alone = c.ns3 and not c.ns2
        assert all((c.doc["tcp"]["rto"].get(k) == v) == ns3_alone for k, v in mirror.NS3_RTO.items()), c.label
        assert all((c.doc["tcp"].get(k) == v) == ns3_alone for k, v in mirror.NS3_TCP.items()), c.label
        assert all((c.doc.get("wire", {}).get(k) == v) == ns3_alone for k, v in mirror.NS3_WIRE.items()), c.label
        is_sack = c.overrides["tcp.variant"] == "sack"
        assert all((c.doc["tcp"].get(k) == v) == is_sack for k, v in mirror.NS2_SACK.items()), c.label
        assert all((c.doc["receiver"].get(k) == v) == is_sack for k, v in mirror.NS2_SACK_RECEIVER.items()), c.label
    # What the benchmark does not pair passes through for validation/ns3peer.py to set (or tcp_bench.cc to refuse).
    other = _args(mirror.ns3_args(mirror.apply(CASES[0].doc, {"tcp.variant": "rfc6675+cc=cubic"})))
    assert other["variant"] == "rfc6675+cc=cubic"


@pytest.mark.parametrize("case", [c for c in CASES if c.group != "b"], ids=lambda c: c.label)
def test_the_dumbbells_links_and_loss_are_mirrored(case) -> None:
    topo = case.doc["topology"]
    for argv in _peer_args(case):
        a = _args(argv)
        assert int(a["n"]) == topo["senders"]
        assert float(a["access_rate"]) == mirror.rate(topo["access"]["rate"])
        assert float(a["bneck_rate"]) == mirror.rate(topo["bottleneck"]["rate"])
        assert int(a["bneck_q"]) == topo["bottleneck"]["queue"]["limit_packets"]
        assert float(a["loss"]) == topo["access"]["fwd_error"]["p"]


def test_bit_errors_become_ns2s_per_packet_loss_and_stay_a_ber_for_ns3() -> None:
    case = next(c for c in CASES if c.group == "b")
    err = case.doc["topology"]["hops"][0]["fwd_error"]
    mss = mirror.size(case.doc["tcp"]["mss"])
    want = 1 - (1 - err["ber"]) ** (8 * (mss + mirror.HEADER_BYTES))
    assert math.isclose(float(_args(mirror.ns2_args(case.doc))["loss"]), want, rel_tol=1e-12)
    assert float(_args(mirror.ns3_args(case.doc))["ber"]) == err["ber"]


def test_results_are_summarised_alike_for_every_tool() -> None:
    rows = [{"g": 100.0, "k": 1}, {"g": 300.0, "k": 2}]
    s = measure.summarise(rows, lambda r: r["g"], {"fr": lambda r: r["k"]}, events=None)
    assert s["goodput"] == 400.0 and s["fr"] == 3 and s["events"] is None
    assert math.isclose(s["jain"], 400.0**2 / (2 * (100.0**2 + 300.0**2)))


def test_silent_flows_are_counted_and_left_out_of_the_second_jain_index() -> None:
    rows = [{"g": 0.0}, {"g": 100.0}, {"g": 300.0}]
    s = measure.summarise(rows, lambda r: r["g"], {})
    assert s["silent"] == 1
    assert math.isclose(s["jain_alive"], 400.0**2 / (2 * (100.0**2 + 300.0**2)))
    assert s["jain"] < s["jain_alive"]


def test_ns3_flows_that_never_sent_data_never_opened_their_connection() -> None:
    case = next(c for c in CASES if c.group == "a" and c.flows == 10)
    line = "FLOW {} rx_bytes={} data_pkts={} rexmit_pkts=0 acks_rx=1 fast_rexmits=0 timeouts={} first_data_ms={}"
    flows = [line.format(0, 0, 0, 0, -1), line.format(1, 0, 9, 8, 75)]
    flows += [line.format(i, 5000, 6, 0, 60) for i in range(2, 10)]
    m = measure.ns3_metrics("\n".join(flows + ["END sim=200 events=1234"]), case)
    assert (m["silent"], m["unopened"], m["to"]) == (2, 1, 8)
    assert m["silent_opened"] == [(75, 9)]


def test_the_n200_report_names_the_silent_flows_and_the_syn_retry_control() -> None:
    case = next(c for c in CASES if c.group == "a" and c.flows == 200)

    def tool(silent, jain, jain_alive, unopened=0):
        return {"silent": silent, "jain": jain, "jain_alive": jain_alive, "unopened": unopened}

    res = [{"case": case, "dupack": tool(0, 0.93, 0.93), "ns2": tool(0, 0.95, 0.95), "ns3": tool(76, 0.56, 0.91, 42)}]
    res[0]["ns3"]["silent_opened"] = [(72, 9), (79, 9), (75, 8), (127472, 1)]
    controls = [{"kind": "synretries", "label": case.label, "syn6": tool(83, 0.55, 0.95, 44), "ns3": res[0]["ns3"]}]
    text = "\n".join(report.silent_flows(res, controls))
    assert "dupack 0, ns-2 0, ns-3 76 (42 of them never opened" in text
    assert "there the silent flows are the whole difference" in text and "share less evenly" not in text
    assert "dupack 0.930, ns-2 0.950, ns-3 0.910" in text
    assert "every flow of dupack and ns-2 delivered data" in text
    assert "Of the 4 silent flows that did open (over the cases above), 3 sent their first data segment" in text
    assert "(72–79 ms), as the flows that run did, and 1 later (127.5–127.5 s); none had a segment" in text
    assert "(1–9)" in text
    assert "83 silent flows (44 never opened), Jain's index 0.550, against 76 (42)" in text
    # Jain's index over the running flows far from dupack's: the silent flows are not the whole story.
    res[0]["ns3"] = tool(8, 0.84, 0.87, 1)
    text = "\n".join(report.silent_flows(res, []))
    assert "share less evenly" in text and "whole difference" not in text
    # Nothing to say when no tool has a silent flow.
    quiet = [{"case": case, "dupack": tool(0, 0.9, 0.9), "ns2": None, "ns3": tool(0, 0.9, 0.9)}]
    assert report.silent_flows(quiet, []) == []


def test_the_seed_control_says_whether_a_jain_gap_is_real_and_whether_the_window_arithmetic_explains_it() -> None:
    d = [0.932, 0.931, 0.935, 0.940, 0.942, 0.938, 0.936, 0.912]
    n2 = [0.957, 0.949, 0.959, 0.954, 0.951, 0.956, 0.947, 0.956]
    row = {"kind": "seeds", "label": "N=200 p=0.01 sack", "dupack": d, "dupack_ns2_arith": [x + 0.002 for x in d],
           "ns2": n2}
    text = "\n".join(report.seed_spread([row, {"kind": "prr"}]))
    assert "seeds 1–8" in text and "standard errors: not the luck of one seed" in text
    assert "too little to explain it" in text and "1 µs" not in text
    row["dupack_ns2_arith"] = n2
    assert "most of the gap" in "\n".join(report.seed_spread([row]))
    # With the same seeds under a 1 µs send delay in both tools: does the gap remain?
    row["dupack_tiebreak"] = [0.80, 0.78, 0.79, 0.81]
    row["ns2_tiebreak"] = [0.79, 0.80, 0.78, 0.80]
    text = "\n".join(report.seed_spread([row]))
    assert "dupack 0.795 ± 0.013, ns-2 0.792 ± 0.010" in text and "within 3 standard errors: the plain gap" in text
    assert "dupack − ns-2 +0.0025 (standard error 0.0080)" in text and "; within ±0.01." in text
    # With ns-2's window arithmetic in dupack as well: judged against ±0.01 on its own.
    row["dupack_tiebreak_arith"] = [0.76, 0.77, 0.76, 0.77]
    text = "\n".join(report.seed_spread([row]))
    assert "the closest mirror of ns-2: 0.765 ± 0.006, dupack − ns-2 -0.0275 (standard error 0.0056): outside ±0.01." in text
    row["ns2_tiebreak"] = [0.95, 0.96, 0.95, 0.96]
    assert "standard errors; outside ±0.01." in "\n".join(report.seed_spread([row])).split("1 µs")[1]
    del row["dupack_tiebreak"], row["ns2_tiebreak"], row["dupack_tiebreak_arith"]
    # The same spread on both sides, no gap: not a difference the seeds can show.
    row["ns2"] = list(reversed(d))
    text = "\n".join(report.seed_spread([row]))
    assert "not a difference of the models" in text and "arithmetic moves" not in text


def test_control_runs_go_to_the_200_flow_cases_of_the_loss_rate_asked_for() -> None:
    res = [{"case": c, "ns2": {"x": 1} if c.ns2 else None, "ns3": None} for c in CASES]
    picked = bench_run.n200_cases(res, "ns2", 0.01)
    assert sorted(r["case"].label for r in picked) == ["N=200 p=0.01 newreno", "N=200 p=0.01 sack"]
    assert bench_run.n200_cases(res, "ns3", 0.01) == [], "only where that tool ran"


def test_the_ssthresh_control_says_which_counts_ns3s_ssthresh_brings_within_ten_per_cent() -> None:
    def runs(to: float, fr: float, rx: float, gp: float) -> list[dict]:
        # Two seeds around the given means.
        return [{"to": to - 1, "fr": fr - 1, "rexmit": rx - 1, "goodput": gp - 0.1},
                {"to": to + 1, "fr": fr + 1, "rexmit": rx + 1, "goodput": gp + 0.1}]

    row = {"kind": "ssthresh", "label": "64 kbps BER 3e-5 rfc6675+lt", "dupack": runs(602, 263, 1238, 13.7),
           "dupack_pipe": runs(581, 194, 1052, 12.4), "ns3": runs(571, 199, 1042, 12.4)}
    (text,) = report.ssthresh_controls([{"kind": "prr"}, row])
    assert "means over seeds 1–2" in text and "602 timeouts, 263 fast retransmits" in text
    assert "without ns-3's ssthresh timeouts (1 of 4)" in text
    assert "with ns-3's ssthresh timeouts, fast retransmits, retransmitted segments, goodput (4 of 4)" in text
    assert "accounts for the fast-retransmit gap" in text
    # When ns-3's ssthresh does not close the fast-retransmit gap, nothing is said to account for it.
    row["dupack_pipe"] = runs(581, 250, 1052, 12.4)
    (text,) = report.ssthresh_controls([row])
    assert "accounts for" not in text and "(3 of 4)" in text


def test_the_ssthresh_control_goes_to_the_slow_links_rfc6675_case_only(monkeypatch) -> None:
    res = [{"case": c, "ns3": {"x": 1} if c.ns3 else None} for c in CASES]
    calls: list[list[str]] = []

    def fake_timed(cmd: list[str], timeout: float):
        calls.append(cmd)
        raise TimeoutError  # stop at the first run: only which case is asked matters here

    monkeypatch.setattr(bench_run, "timed", fake_timed)
    assert bench_run.ns3_ssthresh_controls(res, mirror.ROOT / "exe", mirror.ROOT / "ns3", 1.0, None) == []
    (cmd,) = calls
    assert "tcp.variant=\"rfc6675+lt\"" in cmd and "run.seed=1" in cmd and any("rpld.toml" in a for a in cmd)


@pytest.mark.skipif(__import__("shutil").which(__import__("os").environ.get("CXX", "g++")) is None,
                    reason="no C++ compiler: the build's name includes its version")
def test_an_ns3_programs_build_is_named_by_contents_not_by_the_checkouts_path(tmp_path, monkeypatch) -> None:
    # Two checkouts sharing a target directory share the compiled programs,
    # and validation's kept runs of them (validation/runcache.py); a change to
    # the source or to our headers is another build.
    import shutil

    from bench import ns3build

    wheel = tmp_path / "ns3"  # the wheel's directory only appears in the compiler's command
    src = ns3build.ROOT / "validation" / "ns3" / "lossy_flow.cc"
    here = ns3build.exe_path(src, wheel)
    other = tmp_path / "elsewhere"
    shutil.copytree(ns3build.COMMON, other / "bench" / "ns3")
    shutil.copy(src, other / "lossy_flow.cc")
    monkeypatch.setattr(ns3build, "COMMON", other / "bench" / "ns3")
    assert ns3build.exe_path(other / "lossy_flow.cc", wheel) == here
    (other / "bench" / "ns3" / "common.h").write_text((other / "bench" / "ns3" / "common.h").read_text() + "\n// changed\n")
    assert ns3build.exe_path(other / "lossy_flow.cc", wheel) != here


def test_a_control_with_only_the_delayed_runs_is_judged_on_them_alone() -> None:
    row = {"kind": "seeds", "label": "N=200 p=0 sack", "dupack": [], "dupack_ns2_arith": [], "ns2": [],
           "dupack_tiebreak": [0.80, 0.78, 0.79, 0.81], "ns2_tiebreak": [0.79, 0.80, 0.78, 0.80],
           "dupack_tiebreak_arith": [0.79, 0.80, 0.78, 0.80]}
    text = "\n".join(report.seed_spread([row]))
    assert text.startswith("- Control runs, N=200 p=0 sack: With a random delay of at most 1 µs")
    assert "moved by" not in text and "single trajectories" not in text
    assert "dupack − ns-2 +0.0025 (standard error 0.0080), within 3 standard errors; within ±0.01." in text
    assert "dupack − ns-2 +0.0000 (standard error 0.0068): within ±0.01." in text


def test_a_gap_is_judged_against_the_tolerance_with_its_standard_error() -> None:
    assert report.against_tolerance(-0.009, 0.006) == "within ±0.01"
    assert report.against_tolerance(-0.0300, 0.0057) == "outside ±0.01"
    assert report.against_tolerance(0.0174, 0.0074) == (
        "outside ±0.01 by less than two standard errors (these seeds cannot tell)")


def test_the_seed_controls_run_side_by_side_and_keep_each_seeds_place(monkeypatch) -> None:
    # The control runs are not timed, so they share the cores; each list of
    # Jain's indices must still be in seed order, whichever run ends first.
    import random
    import threading
    import time as _time

    res = [{"case": c, "ns2": {"x": 1} if c.ns2 else None, "ns3": None} for c in CASES]
    (row_case,) = [r for r in bench_run.n200_cases(res, "ns2", 0.05) if "sack" in r["case"].label]
    running, most, calls = [0], [0], [0]
    lock = threading.Lock()
    # The first two runs wait for each other: run one after the other, they
    # would never meet and the barrier would break (the test fails).
    meet = threading.Barrier(2, timeout=30)

    def fake_timed(cmd: list[str], timeout: float):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            calls[0] += 1
            first_two = calls[0] <= 2
        if first_two:
            meet.wait()
        _time.sleep(random.random() / 500)
        with lock:
            running[0] -= 1
        seed = next(int(a.split("=")[1]) for a in cmd if a.startswith(("run.seed=", "seed=")))
        return 0.0, 0, f"jain-of-{seed}", 0.0

    monkeypatch.setattr(bench_run, "timed", fake_timed)
    monkeypatch.setattr(bench_run, "CONTROL_WORKERS", 3)
    monkeypatch.setattr(bench_run, "TIEBREAK_SEEDS", 12)
    monkeypatch.setattr(bench_run, "dupack_metrics", lambda text: {"jain": int(text.split("-")[-1])})
    monkeypatch.setattr(bench_run, "ns2_metrics", lambda text, case: {"jain": -int(text.split("-")[-1])})
    (row,) = bench_run.ns2_seed_controls([row_case], mirror.ROOT / "exe", 1.0, None)
    assert row["dupack_tiebreak"] == list(range(1, 13)) and row["dupack_tiebreak_arith"] == list(range(1, 13))
    assert row["ns2_tiebreak"] == [-s for s in range(1, 13)]
    assert row["dupack"] == [] and row["ns2"] == [], "the runs without the delay are at p = 1 % only"
    assert most[0] > 1, "the runs overlapped"
