"""The quick subset of the ns-3.44 cross-validation (validation/ns3peer.py, docs/validation.md).

Each test builds one of the project's ns-3 programs against the PyPI `ns3`
wheel (bench/ns3build.py; cached after the first build, about a minute on
two cores without a cache) and runs it beside dupack. They need the wheel
(`pip install --no-deps 'ns3==3.44.post0'`, or the `bench` extra) and g++;
otherwise they are skipped with the reason. scripts/test does not install
the wheel: ns-3 validation is opt-in (README, "Validation").
"""

from __future__ import annotations

import pytest

from validation import report, s2_lossy, s3_dumbbell
from validation.common import rel
from validation.peers import PEERS

NS3 = PEERS["ns3"]
WHY = NS3.available()
needs_ns3 = pytest.mark.skipif(WHY is not None, reason=f"ns-3 not available: {WHY}")

# Scenario 2 with SACK-less NewReno: ns-3's recovery is RFC 6675's pipe fed
# by duplicate ACKs, which sends less during recovery than dupack's RFC 5681
# window inflation (docs/validation.md, `ns3_pipe_recovery`: 7 to 9 % lower
# goodput in the traced seeds). The bound stated here is that gap plus the
# spread of two short seeds.
S2_NEWRENO_TOL = 15.0  # per cent


@needs_ns3
def test_dumbbell_with_sack_agrees_with_ns3() -> None:
    # SACK is where both tools run the same algorithm (RFC 6675 with a real
    # scoreboard): the validation's own targets apply.
    peers = {"dupack": PEERS["dupack"], "ns3": NS3}
    row = s3_dumbbell.run_case(10, 0.01, "sack", peers, seeds=3, duration=50)
    d, n = row.metrics["dupack"], row.metrics["ns3"]
    assert abs(rel(d["goodput"].mean, n["goodput"].mean)) <= report.GOODPUT_TOL, (d["goodput"], n["goodput"])
    assert abs(d["jain"].mean - n["jain"].mean) <= report.JAIN_TOL, (d["jain"], n["jain"])


@needs_ns3
def test_lossy_link_newreno_is_close_to_ns3_and_reno_has_no_ns3_column() -> None:
    peers = {"dupack": PEERS["dupack"], "ns3": NS3}
    row = s2_lossy.run_case("newreno", 0.01, 100, peers, seeds=2, quick=True)
    d, n = row.goodput["dupack"].mean, row.goodput["ns3"].mean
    assert abs(rel(d, n)) <= S2_NEWRENO_TOL, (d, n)
    # ns-3 has no Reno: the row keeps dupack's figures and says why ns-3's are missing.
    reno = s2_lossy.run_case("reno", 0.01, 100, peers, seeds=1, quick=True)
    assert "ns3" not in reno.goodput
    assert "no reno" in reno.unsupported["ns3"], reno.unsupported


def test_cubic_variants_mirror_tcpcubic_over_the_base_recovery() -> None:
    from validation import ns3peer

    assert ns3peer.mirror("newreno+cc=cubic") == ("newreno", "classic", "cubic")
    assert ns3peer.mirror("rfc6675+lt+cc=cubic") == ("sack", "classic", "cubic")
    assert ns3peer.mirror("rfc6675+prr+lt+cc=cubic") == ("sack", "prr", "cubic")
    assert ns3peer.mirror("rfc6675+prr+lt") == ("sack", "prr", "newreno")
    assert ns3peer.mirror("reno+cc=cubic") is None
    # ns-3's SACK always does RFC 6675 §5 step (3): RFC 6675 without it is no mirror.
    assert ns3peer.mirror("rfc6675") is None and ns3peer.mirror("rfc6675+prr") is None


@needs_ns3
def test_sack_timeouts_at_high_loss_agree_with_ns3() -> None:
    # The lossy link at p = 10 %, RTT 100 ms: a loss in a window of three or
    # four segments is repaired by a fast retransmit only if SACKs release
    # new segments (RFC 6675 §5 step (3)); ns-3 does that, and dupack's
    # `rfc6675+lt` is its mirror. Without step (3) dupack's `rfc6675` timed
    # out 251 times per run here against ns-3's 161 and 156. The mirror
    # carries ns-3's timer rules and its window growth at the end of
    # CA_LOSS (bench/mirror.py, NS3_RTO and NS3_TCP): without the latter,
    # each timeout's extra round trip at one segment is missing and dupack's
    # goodput is some 7 % above ns-3's.
    # With ns-3's ssthresh as well (`ns3_pipe_ssthresh`, the control rows;
    # and the window growth on the ACK that ends a recovery, `ns3_exit_growth`,
    # which the mirror carries) goodput agrees too; with RFC 5681's ssthresh
    # dupack's is some 8 % above ns-3's.
    peers = {"dupack": PEERS["dupack"], "ns3": NS3}
    rfc = s2_lossy.run_case("rfc6675+lt", 0.1, 100, peers, seeds=2, quick=True)
    for events in (rfc.timeouts, rfc.fast_retransmits, rfc.retransmitted):
        d, n = events["dupack"].mean, events["ns3"].mean
        assert abs(rel(d, n)) <= report.EVENTS_TOL, (d, n)
    assert rel(rfc.goodput["dupack"].mean, rfc.goodput["ns3"].mean) > 0, rfc.goodput
    row = s2_lossy.run_case("rfc6675+lt", 0.1, 100, peers, seeds=2, quick=True, arith=True)
    for events in (row.timeouts, row.fast_retransmits, row.retransmitted):
        d, n = events["dupack"].mean, events["ns3"].mean
        assert abs(rel(d, n)) <= report.EVENTS_TOL, (d, n)
    d, n = row.goodput["dupack"].mean, row.goodput["ns3"].mean
    assert abs(rel(d, n)) <= report.GOODPUT_TOL, (d, n)


@needs_ns3
@pytest.mark.parametrize("p", [0.0, 0.05])
def test_dumbbell_sack_timeouts_agree_with_ns3_under_its_rules(p: float) -> None:
    # N = 40: with ns-3's timer rules (the mirror of the rows run against
    # ns-3 alone: a fast retransmit leaves the RTO running, `ns3_rto_keep`;
    # a new ACK ends the backoff, `ns3_rto_collapse`; only the first partial
    # ACK of a recovery restarts the timer, `ns3_partial_ack_timer`; an RTT
    # sample from every segment sent once) and its window growth when a
    # timeout's loss phase ends (`ns3_loss_exit_growth`), dupack's timeouts,
    # fast retransmits and retransmitted segments are within the
    # validation's ±10 % of ns-3's, with random loss (5 %) and without (ns-3
    # is then deterministic, and so are dupack's three seeds). With ns-3's
    # ssthresh in dupack as well (`ns3_pipe_ssthresh`): since the mirror
    # grows the window on the ACK that ends a recovery as ns-3 does
    # (`ns3_exit_growth`), RFC 5681's larger ssthresh alone puts dupack's
    # fast retransmits some 11 % above ns-3's at p = 0.
    peers = {"dupack": PEERS["dupack"], "ns3": NS3}
    row = s3_dumbbell.run_case(40, p, "rfc6675+lt", peers, seeds=3, duration=200, ns3_arith=True)
    d, n = row.metrics["dupack"], row.metrics["ns3"]
    for key in ("timeouts", "fast_retransmits", "retransmitted"):
        assert abs(rel(d[key].mean, n[key].mean)) <= report.EVENTS_TOL, (key, d[key], n[key])
    # The timer rules are the cause of most of the timeouts' gap: with
    # 4.4BSD's, Linux's and ns-2's rules (and RFC 6298's) instead, the same
    # case times out far less often than ns-3 does.
    import dupack

    doc = s3_dumbbell.doc(40, p, "rfc6675+lt", 200)
    assert (doc["tcp"]["rto"]["on_fast_retransmit"], doc["tcp"]["rto"]["backoff_reset"]) == ("keep", "new_ack")
    assert (doc["tcp"]["rfc6675_rto_reset"], doc["tcp"]["timeout_exit_growth"]) == ("first", "above_recover")
    doc["tcp"]["rto"].update(on_fast_retransmit="restart", backoff_reset="sample", sampling="timed")
    doc["tcp"]["rfc6675_rto_reset"] = "every"
    ours = []
    for seed in (1, 2, 3):
        doc["run"]["seed"] = seed
        ours.append(int(dupack.run(doc).flows.timeouts.sum()))
    assert sum(ours) / 3 < 0.85 * n["timeouts"].mean, (ours, n["timeouts"])


def test_window_statistics_are_time_weighted() -> None:
    from validation.ns3peer import WindowTrace

    # 10 segments for 1 s, 20 for 3 s; a fast retransmit at 2.5 s sees 20.
    w = s2_lossy.window_stats(WindowTrace([0.0, 1.0], [10.0, 20.0], [2.5]), end=4.0)
    assert w == {"mean": 17.5, "p50": 20.0, "p90": 20.0, "at_fr": 20.0}


@needs_ns3
def test_cubic_on_the_dumbbell_agrees_with_ns3() -> None:
    # CUBIC over RFC 6675 (SACK), where both tools run the same recovery: goodput
    # and Jain's index within the validation's targets, and the first flow's
    # time-averaged window within the CUBIC section's tolerance. Eight seeds:
    # Jain's index over ten flows varies by ±0.03 from seed to seed in both
    # tools, so three seeds' means can differ by more than the target when
    # the tools agree (seeds 1-3: dupack 0.976, ns-3 0.960; seeds 1-8:
    # 0.973 and 0.967).
    peers = {"dupack": PEERS["dupack"], "ns3": NS3}
    row = s3_dumbbell.run_case(10, 0.01, "rfc6675+lt+cc=cubic", peers, seeds=8, duration=50)
    d, n = row.metrics["dupack"], row.metrics["ns3"]
    assert abs(rel(d["goodput"].mean, n["goodput"].mean)) <= report.GOODPUT_TOL, (d["goodput"], n["goodput"])
    assert abs(d["jain"].mean - n["jain"].mean) <= report.JAIN_TOL, (d["jain"], n["jain"])
    # The window is the first flow's alone, so it also carries that flow's
    # share, which varies by ±10 % between seeds: within the tolerance, or
    # (as the report's "≈") the two 95 % intervals overlap.
    a, b = d["cwnd_mean"], n["cwnd_mean"]
    assert abs(rel(a.mean, b.mean)) <= report.CWND_TOL or abs(a.mean - b.mean) <= a.half + b.half, (a, b)


@needs_ns3
def test_ns3s_cubic_arithmetic_closes_the_cubic_gap_to_ns3() -> None:
    # The lossy link at p = 1 %, RTT 20 ms, CUBIC over RFC 6675: with RFC
    # 9438's arithmetic dupack's window at a fast retransmit is some 40 %
    # above ns-3's and its goodput 15 % above (docs/validation.md, "CUBIC
    # against ns-3"). ns-3's TcpCubic counts in whole segments, grows one
    # segment per `cnt` ACKs, truncates the cubic increment and sets
    # ssthresh from whole segments of cwnd; `tcp.cubic_arithmetic = "ns3"`
    # mirrors that, and the gap closes: the window statistics come within
    # the CUBIC section's ±10 %, goodput to within a third of its gap.
    peers = {"dupack": PEERS["dupack"], "ns3": NS3}
    variant, p, rtt_ms, seeds = "rfc6675+lt+cc=cubic", 0.01, 20, 4
    rfc = s2_lossy.run_case(variant, p, rtt_ms, peers, seeds=seeds, quick=True)
    ns3 = s2_lossy.run_case(variant, p, rtt_ms, peers, seeds=seeds, quick=True, cubic_ns3=True)
    assert ns3.cubic_ns3 and not rfc.cubic_ns3

    def gap(row, key: str) -> float:
        if key == "goodput":
            return rel(row.goodput["dupack"].mean, row.goodput["ns3"].mean)
        return rel(row.window["dupack"][key].mean, row.window["ns3"][key].mean)

    # The gap exists with RFC 9438's arithmetic ...
    assert gap(rfc, "at_fr") > report.CWND_TOL, rfc.window
    assert gap(rfc, "goodput") > report.GOODPUT_TOL, rfc.goodput
    # ... and closes with ns-3's.
    for key in ("at_fr", "mean"):
        assert abs(gap(ns3, key)) <= report.CWND_TOL, (key, ns3.window)
    assert abs(gap(ns3, "goodput")) <= abs(gap(rfc, "goodput")) / 3, (rfc.goodput, ns3.goodput)


@needs_ns3
def test_ns3s_wire_closes_the_cubic_timeout_gap_on_the_dumbbell() -> None:
    # N = 40, p = 1 %, CUBIC over RFC 6675 with ns-3's CUBIC arithmetic:
    # with the exact clock dupack had about 25 % fewer timeouts than ns-3
    # and 20 % more fast retransmits. The cause is ns-3's wire (`ns3_wire`,
    # docs/validation.md "Traced on the dumbbell"): each frame's time
    # rounded to the nanosecond, with a 2-byte PPP header, so a flow's
    # back-to-back segment always reaches the router 1 ns before another
    # flow's and takes the queue's last place. The rows run against ns-3
    # alone mirror it (`wire.tx_time = "per_frame"`, `wire.header = "2B"`):
    # timeouts, fast retransmits and retransmitted segments within the
    # validation's ±10 % (measured: -1.3 %, +0.5 %, +0.8 % on these seeds).
    import dupack

    peers = {"dupack": PEERS["dupack"], "ns3": NS3}
    row = s3_dumbbell.run_case(40, 0.01, "rfc6675+lt+cc=cubic", peers, seeds=3, duration=100, cubic_ns3=True)
    d, n = row.metrics["dupack"], row.metrics["ns3"]
    for key in ("timeouts", "fast_retransmits", "retransmitted"):
        assert abs(rel(d[key].mean, n[key].mean)) <= report.EVENTS_TOL, (key, d[key], n[key])
    # Without it, on the exact clock, the gap is back.
    doc = s3_dumbbell.doc(40, 0.01, "rfc6675+lt+cc=cubic", 100, cubic_ns3=True)
    assert doc["wire"] == {"tx_time": "per_frame", "header": "2B"}
    del doc["wire"]
    exact = [int(dupack.run(doc, seed=seed).flows.timeouts.sum()) for seed in (1, 2, 3)]
    assert sum(exact) / 3 < 0.85 * n["timeouts"].mean, (exact, n["timeouts"])


@needs_ns3
def test_ns3s_prr_arithmetic_closes_the_prr_gap_to_ns3() -> None:
    # The same point with PRR: ns-3.44's TcpPrrRecovery counts one SMSS
    # more per SACKing duplicate ACK and takes RecoverFS from pipe, so it
    # sends more during a recovery than RFC 6937 (`ns3_prr_arithmetic`).
    # With ns-3's CUBIC arithmetic alone dupack's goodput is below ns-3's
    # (-3.4 % on these seeds; -9 % before the CUBIC mirror took the least
    # smoothed RTT, the exit ACK's whole advance and W_max through a
    # timeout); `tcp.prr_arithmetic = "ns3"` (in the control,
    # s2_lossy.CUBIC_NS3) raises it by several per cent, to within half the
    # goodput tolerance (+1.2 %); the same seeds in both dupack runs.
    from validation import s2_lossy

    peers = {"dupack": PEERS["dupack"], "ns3": NS3}
    variant, p, rtt_ms, seeds = "rfc6675+prr+lt+cc=cubic", 0.01, 20, 4
    assert s2_lossy.CUBIC_NS3["prr_arithmetic"] == "ns3"
    saved = dict(s2_lossy.CUBIC_NS3)
    try:
        s2_lossy.CUBIC_NS3["prr_arithmetic"] = "rfc6937"
        cubic_only = s2_lossy.run_case(variant, p, rtt_ms, peers, seeds=seeds, quick=True, cubic_ns3=True)
    finally:
        s2_lossy.CUBIC_NS3.clear()
        s2_lossy.CUBIC_NS3.update(saved)
    both = s2_lossy.run_case(variant, p, rtt_ms, peers, seeds=seeds, quick=True, cubic_ns3=True)

    def gap(row) -> float:
        return rel(row.goodput["dupack"].mean, row.goodput["ns3"].mean)

    assert gap(cubic_only) < 0 and gap(both) - gap(cubic_only) > 2.0, (cubic_only.goodput, both.goodput)
    assert abs(gap(both)) <= report.GOODPUT_TOL / 2 and abs(gap(both)) < abs(gap(cubic_only)), (
        cubic_only.goodput, both.goodput)


@needs_ns3
def test_ns3s_pipe_closes_the_cubic_goodput_gap_on_the_lossy_link() -> None:
    # p = 3 %, RTT 20 ms, CUBIC over RFC 6675: with ns-3's CUBIC arithmetic
    # dupack's counts and windows matched ns-3's and its goodput stayed 7 %
    # above. The cause is ns-3's pipe (`ns3_sacked_rexmit_pipe`): a SACKed
    # retransmission stays in it until the cumulative ACK, so a recovery
    # whose first retransmission is lost again runs out of window before
    # the RTO ends it. With `tcp.rfc6675_pipe = "ns3"` in the control
    # (s2_lossy.CUBIC_NS3) goodput is within tolerance (measured +0.9 % on
    # these seeds, +7.6 % without it); the same seeds in both dupack runs.
    peers = {"dupack": PEERS["dupack"], "ns3": NS3}
    variant, p, rtt_ms, seeds = "rfc6675+lt+cc=cubic", 0.03, 20, 10
    assert s2_lossy.CUBIC_NS3["rfc6675_pipe"] == "ns3"
    both = s2_lossy.run_case(variant, p, rtt_ms, peers, seeds=seeds, quick=True, cubic_ns3=True)
    saved = dict(s2_lossy.CUBIC_NS3)
    try:
        s2_lossy.CUBIC_NS3["rfc6675_pipe"] = "rfc6675"
        rfc_pipe = s2_lossy.run_case(variant, p, rtt_ms, {"dupack": PEERS["dupack"]}, seeds=seeds, quick=True,
                                     cubic_ns3=True)
    finally:
        s2_lossy.CUBIC_NS3.clear()
        s2_lossy.CUBIC_NS3.update(saved)
    ns3 = both.goodput["ns3"].mean
    with_rule, without = rel(both.goodput["dupack"].mean, ns3), rel(rfc_pipe.goodput["dupack"].mean, ns3)
    assert abs(with_rule) <= report.GOODPUT_TOL / 2, (both.goodput, rfc_pipe.goodput)
    assert without > report.GOODPUT_TOL and without - with_rule > 4.0, (both.goodput, rfc_pipe.goodput)
    # The counts stay where they were: the rule moves time, not events.
    for key in ("timeouts", "fast_retransmits"):
        d, n = getattr(both, key)["dupack"].mean, getattr(both, key)["ns3"].mean
        assert abs(rel(d, n)) <= report.EVENTS_TOL, (key, d, n)


def test_the_call_recorder_reads_tcpcubics_log() -> None:
    # validation/ns3_cubic_calls.py on a log in ns-3's format: the lines of
    # Update, which IncreaseWindow calls, belong to the IncreaseWindow; the
    # window before a call that did not change it comes from the window
    # trace; a GetSsThresh that CA_LOSS follows is a timer expiry; the first
    # IncreaseWindow after CA_RECOVERY -> CA_OPEN ends a recovery.
    from validation.ns3_cubic_calls import calls

    o = "0x5602a0, 0x5602b0"
    NOT_ENOUGH = "Not enough segments have been ACKed to increment cwnd.Until now "
    log = [
        f"+1.000000000s 1 TcpCubic:PktsAcked({o}, 1, +3.46878e+08ns)",
        f"+1.000000000s 1 TcpCubic:IncreaseWindow({o}, 1)",
        "+1.000000000s 1 TcpCubic:Update(0x5602a0)",
        "+1.000000000s 1 TcpCubic:Update(): target>cwnd. cnt=7",
        "+1.000000000s 1 TcpCubic:IncreaseWindow(): In CongAvoid, updated to cwnd 8000",
        f"+1.500000000s 1.5 TcpCubic:IncreaseWindow({o}, 1)",
        "+1.500000000s 1.5 TcpCubic:Update(0x5602a0)",
        "+1.500000000s 1.5 TcpCubic:IncreaseWindow(): " + NOT_ENOUGH + "2 cnd 8",
        f"+2.000000000s 2 TcpCubic:CongestionStateSet({o}, 3)",
        f"+2.000000000s 2 TcpCubic:GetSsThresh({o}, 8000)",
        "+2.000000000s 2 TcpCubic:GetSsThresh(): Loss at cWnd=8 segments in flight=8",
        "+2.000000000s 2 TcpCubic:GetSsThresh(): SsThresh = 5000",
        f"+2.500000000s 2.5 TcpCubic:CongestionStateSet({o}, 0)",
        f"+2.500000000s 2.5 TcpCubic:IncreaseWindow({o}, 3)",
        "+2.500000000s 2.5 TcpCubic:Update(0x5602a0)",
        "+2.500000000s 2.5 TcpCubic:IncreaseWindow(): " + NOT_ENOUGH + "5 cnd 6",
        f"+3.000000000s 3 TcpCubic:GetSsThresh({o}, 5000)",
        "+3.000000000s 3 TcpCubic:GetSsThresh(): Loss at cWnd=5 segments in flight=5",
        "+3.000000000s 3 TcpCubic:GetSsThresh(): SsThresh = 3000",
        f"+3.000000000s 3 TcpCubic:CongestionStateSet({o}, 4)",
        "+3.000000000s 3 TcpCubic:CubicReset(0x5602a0, 0x5602b0)",
    ]
    window = [(0, 1000), (1_000_000_000, 8000), (2_000_000_000, 5000)]
    assert calls(log, window) == [
        "P 1000000000 346878000",
        "I 1000000000 1 7000 4294967295 8000 0",
        "I 1500000000 1 8000 4294967295 8000 0",
        "S 2000000000 8000 5000 0",
        "I 2500000000 3 5000 5000 5000 1",
        "S 3000000000 5000 3000 1",
    ]


def test_the_call_recorder_keeps_the_rtt_samples_that_can_set_the_least_delay() -> None:
    # A PktsAcked is kept only if its smoothed RTT is below the least ns-3
    # took; within CubicDelta (10 ms) of an epoch's start (an Update that
    # prints lastMaxCwnd) ns-3 takes none, so a lower one there is kept and
    # so is the next at the same value; a timer expiry forgets the least.
    from validation.ns3_cubic_calls import calls

    o = "0x5602a0, 0x5602b0"

    def pkts(t: str, rtt: str) -> str:
        return f"+{t}s 1 TcpCubic:PktsAcked({o}, 1, +{rtt}ns)"

    log = [
        pkts("1.000000000", "4e+08"),
        pkts("1.100000000", "5e+08"),  # above the least: not kept
        f"+1.200000000s 1 TcpCubic:IncreaseWindow({o}, 1)",
        "+1.200000000s 1 TcpCubic:Update(0x5602a0)",
        "+1.200000000s 1 TcpCubic:Update(): lastMaxCwnd <= m_cWnd. K=0 and origin=4",
        "+1.200000000s 1 TcpCubic:IncreaseWindow(): Not enough segments have been ACKed to increment cwnd.",
        pkts("1.205000000", "3e+08"),  # 5 ms into the epoch: kept, not taken
        pkts("1.215000000", "3e+08"),  # the same value after 10 ms: kept, taken
        pkts("1.300000000", "3e+08"),  # not below the least taken
        f"+2.000000000s 2 TcpCubic:GetSsThresh({o}, 4000)",
        "+2.000000000s 2 TcpCubic:GetSsThresh(): Loss at cWnd=4 segments in flight=4",
        "+2.000000000s 2 TcpCubic:GetSsThresh(): SsThresh = 2000",
        f"+2.000000000s 2 TcpCubic:CongestionStateSet({o}, 4)",
        pkts("2.500000000", "6e+08"),  # after the expiry: kept
    ]
    got = [r for r in calls(log, [(0, 4000)]) if r.startswith("P")]
    assert got == [
        "P 1000000000 400000000",
        "P 1205000000 300000000",
        "P 1215000000 300000000",
        "P 2500000000 600000000",
    ]


@needs_ns3
@pytest.mark.parametrize("case, seconds", [("dumbbell", 20.0), ("lossy", 5.0)])
def test_the_recorded_tcpcubic_calls_are_ns3s(case: str, seconds: float) -> None:
    # The recordings the mirror is replayed against (dupack-sim's
    # `replays_ns3s_calls_and_decides_as_ns3_does`) are what ns-3 does today:
    # the first seconds recorded again give the same calls.
    import tempfile
    from pathlib import Path

    from validation import ns3_cubic_calls

    def before(text: str, t_ns: float) -> list[str]:
        return [r for r in text.splitlines()[1:] if int(r.split()[1]) < t_ns]

    cut = (seconds - 1) * 1e9
    first = before(ns3_cubic_calls.FIXTURES[case].read_text(), cut)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "calls.txt"
        assert ns3_cubic_calls.main(["--case", case, "--duration", str(seconds), "--out", str(out)]) == 0
        again = before(out.read_text(), cut)
    assert len(first) > 100 and again == first
