"""Scenario 2: one long flow over a lossy link, goodput against PFTK and Mathis.

Also CUBIC (`+cc=cubic`, RFC 9438) against ns-3's TcpCubic, with the first
flow's congestion window over time from both tools (`window_stats`); the
dumbbell of scenario 3 reuses those helpers."""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass, field
from typing import Any

from bench import mirror
from validation import models
from validation.common import SCENARIOS, Estimate, estimate, load_toml, parallel_map, rel
from validation.ns3peer import WindowTrace
from validation.peerapi import Peer, Transfer, Unsupported, supports

PS = (0.001, 0.003, 0.01, 0.03, 0.1)
RTTS_MS = (20, 100, 300)
# Reno is the protocol PFTK models (triple-duplicate and timeout loss
# indications, one loss recovered per fast retransmit); NewReno is the
# suite's default variant.
VARIANTS = ("reno", "newreno")
# ns-3's SACK recoveries (ns-2.35 has neither): RFC 6675 with its step (3)
# Limited Transmit, dupack's closest mirror of ns-3's SACK (bench/mirror.py,
# NS3_MIRROR, says why), and ns-3's default, the same with PRR; at one RTT,
# every p (ns-3 is the slow peer of the suite).
NS3_VARIANTS = ("rfc6675+lt", "rfc6675+prr+lt")
NS3_RTT_MS = 100
QUICK = [("reno", 0.01, 100), ("newreno", 0.003, 300)]
# CUBIC runs against ns-3 only (ns-2.35's mirrors have no CUBIC), over the
# three recoveries ns-3 mirrors: SACK-less classic (NewReno), RFC 6675, and
# RFC 6675 with PRR (validation/ns3peer.py).
CUBIC_VARIANTS = ("newreno+cc=cubic", "rfc6675+lt+cc=cubic", "rfc6675+prr+lt+cc=cubic")
CUBIC_PS = (0.001, 0.01, 0.03)
# ns-3's ssthresh in dupack: the ns-3 SACK rows once more, dupack alone, with
# `loss_ssthresh = "pipe"` (half of RFC 6675's pipe at the fast retransmit
# and at every timeout, as ns-3's TcpSocketBase sets it), so that the report
# can show what that departure from RFC 6675 §5 (4.2) accounts for
# (validation/report.py, `ns3_pipe_ssthresh`); with `+prr`, ns-3's PRR
# arithmetic as well (`prr_arithmetic = "ns3"`: RecoverFS from pipe, one SMSS
# more per SACKing dupack, `ns3_prr_arithmetic`).
NS3_ARITH = {"loss_ssthresh": "pipe", "prr_arithmetic": "ns3"}
# ns-2's window arithmetic in dupack (the same-loss transfers and scenario 1
# use it): half of min(cwnd, rwnd) in whole segments as ns-2's slowdown(),
# cwnd grown by a fraction of a segment per ACK, and growth on the ACK that
# ends Reno's and NewReno's recovery. The Reno and NewReno rows once more,
# dupack alone and the same seeds, with these: the control that separates
# what the arithmetic does to the event counts from the luck of the draws
# (validation/report.py, s2_ns2_arith).
NS2_ARITH = {"loss_ssthresh": "window", "ca_increase": "fractional", "recovery_exit_growth": "grow"}
NS3_ARITH_VARIANTS = ("rfc6675+lt", "rfc6675+prr+lt")
CUBIC_QUICK = [(v, 0.01, 100) for v in CUBIC_VARIANTS]
# ns-3's CUBIC arithmetic in dupack (`tcp.cubic_arithmetic = "ns3"`: whole
# segments, growth by counting ACKs, ssthresh from cwnd, Linux's
# Reno-friendly scale; crates/dupack-sim/src/tcp/cc/cubic_ns3.rs): the SACK
# CUBIC rows once more, dupack alone and the same seeds, so that the report
# can show what ns-3's departures from RFC 9438 account for; with `+prr`,
# ns-3's PRR arithmetic as well (`prr_arithmetic = "ns3"`, which `+prr`-less
# variants ignore); and ns-3's pipe, which keeps a SACKed retransmission until
# the cumulative ACK passes it (`rfc6675_pipe = "ns3"`, validation/report.py
# `ns3_sacked_rexmit_pipe`).
CUBIC_NS3 = {"cubic_arithmetic": "ns3", "prr_arithmetic": "ns3", "rfc6675_pipe": "ns3"}
CUBIC_NS3_VARIANTS = ("rfc6675+lt+cc=cubic", "rfc6675+prr+lt+cc=cubic")
MSS = 1000
RATE = 100e6
LOSSES = 2000  # expected losses per run: sets the duration


def doc(variant: str, p: float, rtt_ms: int, duration: float) -> dict[str, Any]:
    d = load_toml(SCENARIOS / "lossy_link.toml")
    d["tcp"]["variant"] = variant
    hop = d["topology"]["hops"][0]
    hop["fwd_error"]["p"] = p
    hop["delay"] = f"{rtt_ms / 2}ms"
    d["run"]["duration"] = f"{duration:.0f}s"
    # ns-3's timer rules and its wire for the cases run against ns-3 alone (bench/mirror.py).
    return mirror.apply(d, mirror.ns3_overrides(variant))


def path_rtt(rtt_ms: int) -> float:
    """Propagation RTT plus one data packet's and one ACK's serialisation."""
    return rtt_ms / 1000 + (MSS + 40 + 40) * 8 / RATE


def duration(p: float, rtt_ms: int, quick: bool) -> float:
    rate = models.mathis(p, path_rtt(rtt_ms))  # packets per second, roughly
    d = LOSSES / (p * rate)
    return float(min(max(math.ceil(d / 10) * 10, 200), 2000 if quick else 4000))


@dataclass
class Row:
    variant: str
    p: float
    rtt_ms: int
    duration: float
    goodput: dict[str, Estimate]  # peer -> kbit/s
    timeouts: dict[str, Estimate]
    pftk_kbps: float
    mathis_kbps: float
    # dupack relative to the peer (per cent), per seed, when both tools lose
    # exactly the same data packets (see same_losses).
    same_losses: dict[str, list[float]] = field(default_factory=dict)
    retransmitted: dict[str, Estimate] = field(default_factory=dict)
    unsupported: dict[str, str] = field(default_factory=dict)  # peer -> why its columns are empty
    fast_retransmits: dict[str, Estimate] = field(default_factory=dict)
    # peer -> WINDOW statistic -> estimate over the seeds (CUBIC rows only).
    window: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    # dupack's mean RTT sample (s), PFTK with it (kbit/s), and the share of
    # dupack's loss episodes that started with a timeout (see pftk_point).
    rtt_measured_s: float = math.nan
    pftk_measured_kbps: float = math.nan
    timeout_share: float = math.nan
    arith: bool = False  # dupack alone with ns-3's ssthresh, and PRR with `+prr` (NS3_ARITH)
    # peer -> (dupack's, the peer's) (timeouts, fast retransmits, retransmitted
    # segments) of each same-loss transfer.
    same_events: dict[str, list[tuple[tuple[int, int, int], tuple[int, int, int]]]] = field(default_factory=dict)
    ns2_arith: bool = False  # dupack alone with ns-2's window arithmetic (NS2_ARITH)
    cubic_ns3: bool = False  # dupack alone with ns-3's CUBIC arithmetic (CUBIC_NS3)


def cases(quick: bool) -> list[tuple[str, float, int]]:
    if quick:
        return list(QUICK)
    return [(v, p, r) for v in VARIANTS for r in RTTS_MS for p in PS] + [(v, p, NS3_RTT_MS) for v in NS3_VARIANTS for p in PS]


def cubic_cases(quick: bool) -> list[tuple[str, float, int]]:
    return list(CUBIC_QUICK) if quick else [(v, p, r) for v in CUBIC_VARIANTS for r in RTTS_MS for p in CUBIC_PS]


def is_cubic(variant: str) -> bool:
    return "cc=cubic" in variant.split("+")


# --------------------------------------------------------------------------
# The congestion window of one flow over time, from both tools

# The statistics compared, each in segments: the time-weighted mean, median
# and 90th percentile of cwnd over the run (goodput is about the mean window
# per RTT, the percentiles show the shape of the sawtooth), and the mean
# window just before a fast retransmit (the window at which random loss
# stops each CUBIC epoch, which W_max, K and ssthresh follow).
WINDOW = (("mean", "mean cwnd"), ("p50", "median cwnd"), ("p90", "90th pct cwnd"), ("at_fr", "cwnd at a fast retransmit"))


def window_stats(w, end: float) -> dict[str, float]:
    """WINDOW's statistics of a trace (anything with t, cwnd and events) up to `end` seconds."""
    import numpy as np

    t = np.asarray(w.t, dtype=float)
    c = np.asarray(w.cwnd, dtype=float)
    keep = t < end
    t, c = t[keep], c[keep]
    dt = np.diff(np.append(t, end))
    order = np.argsort(c, kind="stable")
    cum = np.cumsum(dt[order]) / dt.sum()

    def quantile(q: float) -> float:
        return float(c[order][np.searchsorted(cum, q)])

    # The window just before each fast retransmit: the last value set strictly earlier.
    ev = np.asarray([e for e in w.events if t[0] < e < end], dtype=float)
    at = c[np.searchsorted(t, ev, side="left") - 1] if len(ev) else np.asarray([math.nan])
    return {"mean": float((c * dt).sum() / dt.sum()), "p50": quantile(0.5), "p90": quantile(0.9), "at_fr": float(at.mean())}


def dupack_window(doc: dict[str, Any], seed: int) -> WindowTrace:
    """The first flow's window from dupack's time series (`cwnd`, `fast_retransmit`)."""
    import dupack

    flow = doc["flows"][0]["name"] if doc.get("flows") else "f0"
    # Only these two variables: with every one that changes (snd_una, srtt, rto, ...) the longest runs (p = 0.1 %,
    # RTT 20 ms, 1040 s, with ns-3's RTT sample from every segment: bench/mirror.py, NS3_RTO) would hold about
    # 11 million records, above the default limit of 10 million.
    res = dupack.run(doc, seed=seed, series=[flow], series_variables=["cwnd", "fast_retransmit"])
    s = res.series
    assert not s.attrs.get("truncated"), "dupack's series was truncated"
    s = s[s.entity == flow]
    cw = s[s.variable == "cwnd"]
    mss = mirror.size(doc["tcp"]["mss"])
    fr = s[s.variable == "fast_retransmit"]
    return WindowTrace(cw.time_s.tolist(), (cw.value / mss).tolist(), fr.time_s.tolist())


def greedy_runs(name: str, peer: Peer, d: dict[str, Any], seeds: int, window: bool):
    """A peer's per-seed flows, and per-seed WINDOW statistics of the first
    flow when `window` (None where the peer gives no window trace). The
    seeds run side by side (common.parallel_map); each run is seeded, so
    the results are those of one seed after the other."""
    dur = mirror.seconds(d["run"]["duration"])

    def one(seed: int) -> tuple[list, dict[str, float] | None]:
        if window and name == "dupack":
            return peer.greedy(d, seed), window_stats(dupack_window(d, seed), dur)
        if window and supports(peer, "greedy_window"):
            fl, w = peer.greedy_window(d, seed)
            return fl, window_stats(w, dur)
        return peer.greedy(d, seed), None

    done = parallel_map(one, range(1, seeds + 1))
    stats = [s for _, s in done if s is not None]
    return [fl for fl, _ in done], (stats or None)


def window_estimates(stats: list[dict[str, float]] | None) -> dict[str, Estimate]:
    if not stats:
        return {}
    return {k: estimate([s[k] for s in stats if not math.isnan(s[k])]) for k, _ in WINDOW}


# At p >= 3 % the flow lives on timeouts (RTO >= 1 s, many RTTs) and the
# seed-to-seed spread of goodput is several times larger than elsewhere;
# these runs are short, so they get more replications.
HIGH_LOSS = 0.03
HIGH_LOSS_SEEDS = 30


def run_case(variant: str, p: float, rtt_ms: int, peers: dict[str, Peer], seeds: int, quick: bool,
             arith: bool = False, ns2_arith: bool = False, cubic_ns3: bool = False) -> Row:
    dur = duration(p, rtt_ms, quick)
    if p >= HIGH_LOSS and not quick:
        seeds = max(seeds, HIGH_LOSS_SEEDS)
    d = doc(variant, p, rtt_ms, dur)
    if arith:
        d["tcp"].update(NS3_ARITH)
    if ns2_arith:
        d["tcp"].update(NS2_ARITH)
    if cubic_ns3:
        d["tcp"].update(CUBIC_NS3)
    good: dict[str, Estimate] = {}
    tos: dict[str, Estimate] = {}
    rex: dict[str, Estimate] = {}
    frs: dict[str, Estimate] = {}
    win: dict[str, dict[str, Estimate]] = {}
    unsupported: dict[str, str] = {}
    dupack_runs: list = []
    cubic = is_cubic(variant)
    for name, peer in peers.items():
        if not supports(peer, "greedy"):
            continue
        try:
            flows, stats = greedy_runs(name, peer, d, seeds, window=cubic)
        except Unsupported as e:
            unsupported[name] = str(e)
            continue
        runs = [f[0] for f in flows]
        if name == "dupack":
            dupack_runs = runs
        if stats:
            win[name] = window_estimates(stats)
        good[name] = estimate([r.goodput_kbps for r in runs])
        tos[name] = estimate([r.timeouts for r in runs])
        rex[name] = estimate([r.retransmitted for r in runs])
        frs[name] = estimate([r.fast_retransmits for r in runs])
    rtt = path_rtt(rtt_ms)
    # T0: the RTO, which the 1 s minimum sets at every RTT of the grid (RFC 6298 §2.4).
    t0 = max(1.0, mirror.seconds(d["tcp"]["rto"]["min"]))
    kbps = MSS * 8 / 1000
    # ns-2's same-loss mirror (fall_floyd.tcl) has no CUBIC.
    # A peer without the variant (ns-2 has no RFC 6675) has no same-loss column either.
    same = {name: [] for name, peer in peers.items()
            if name != "dupack" and supports(peer, "transfer") and not cubic and name not in unsupported}
    same_events: dict[str, list[tuple[tuple[int, int, int], tuple[int, int, int]]]] = {name: [] for name in same}
    for seed in range(1, min(seeds, SAME_LOSS_SEEDS) + 1 if same else 1):
        done = same_losses(variant, p, rtt_ms, seed, {n: peers[n] for n in ["dupack", *same]})
        for name in same:
            # Goodput is packets / completion time: dupack relative to the peer.
            same[name].append(rel(done[name].time_s, done["dupack"].time_s))
            same_events[name].append((done["dupack"].events(), done[name].events()))
    row = Row(variant, p, rtt_ms, dur, good, tos, models.pftk(p, rtt, t0) * kbps, models.mathis(p, rtt) * kbps, same, rex,
              unsupported, frs, win, arith=arith, same_events=same_events, ns2_arith=ns2_arith, cubic_ns3=cubic_ns3)
    if dupack_runs:
        # PFTK again with the mean RTT dupack's sender measured, and the
        # share of its loss episodes that began with a timeout (PFTK's Q).
        row.rtt_measured_s = sum(r.rtt_mean_s for r in dupack_runs) / len(dupack_runs)
        row.pftk_measured_kbps = models.pftk(p, row.rtt_measured_s, t0) * kbps
        episodes = sum(r.timeout_episodes + r.fast_retransmits for r in dupack_runs)
        row.timeout_share = sum(r.timeout_episodes for r in dupack_runs) / episodes if episodes else math.nan
    return row


SAME_LOSS_SEEDS = 3
SAME_LOSS_EVENTS = 400  # losses per same-loss transfer


def same_losses(variant: str, p: float, rtt_ms: int, seed: int, peers: dict[str, Peer]) -> dict[str, Transfer]:
    """One transfer in which every tool loses exactly the
    same data packets (its completion time and the sender's counts): a Bernoulli(p) list drawn here, given to dupack's
    `droplist` and to ns-2's ErrorModel/List (validation/ns2/fall_floyd.tcl).
    This removes the two tools' different random streams from the
    comparison, so what differs is the model alone.

    The path is scenario 2's link behind a 10 Gbit/s, zero-delay first hop
    (the scenario-1 mirror has two hops)."""
    packets = int(SAME_LOSS_EVENTS / p)
    rng = random.Random(f"{variant}/{p}/{rtt_ms}/{seed}")
    # Retransmissions are counted too: draw for 1.5× the segments.
    drops = [i for i in range(1, int(packets * 1.5)) if rng.random() < p]
    d = copy.deepcopy(s1_doc())
    d["name"] = f"validation-same-losses-{variant}-{p}-{rtt_ms}-{seed}"
    d["tcp"]["variant"] = variant
    d["receiver"]["window"] = "1000000B"
    access, link = d["topology"]["hops"]
    access.update(rate="10Gbps", delay="0ms", queue={"limit_packets": 2000})
    link.update(rate=f"{RATE / 1e6:g}Mbps", delay=f"{rtt_ms / 2}ms", queue={"limit_packets": 2000})
    link["fwd_error"]["packets"] = drops
    d["flows"][0]["bytes"] = f"{packets * MSS}B"
    d["run"]["duration"] = "20000s"
    return {name: peer.transfer(d) for name, peer in peers.items()}


def s1_doc() -> dict[str, Any]:
    return load_toml(SCENARIOS / "fall_floyd.toml")


def run(peers: dict[str, Peer], quick: bool, seeds: int) -> list[Row]:
    rows = [run_case(v, p, r, peers, seeds, quick) for v, p, r in cases(quick) + cubic_cases(quick)]
    alone = {"dupack": peers["dupack"]}
    if not quick and "ns3" in peers:
        rows += [run_case(v, p, NS3_RTT_MS, alone, seeds, quick, arith=True) for v in NS3_ARITH_VARIANTS for p in PS]
    if not quick and "ns2" in peers:
        rows += [run_case(v, p, r, alone, seeds, quick, ns2_arith=True) for v, p, r in cases(quick) if v in VARIANTS]
    return rows + cubic_controls(peers, quick, seeds)


def cubic_controls(peers: dict[str, Peer], quick: bool, seeds: int) -> list[Row]:
    """The SACK CUBIC rows again in dupack alone with ns-3's CUBIC arithmetic (CUBIC_NS3)."""
    if quick or "ns3" not in peers:
        return []
    alone = {"dupack": peers["dupack"]}
    return [run_case(v, p, r, alone, seeds, quick, cubic_ns3=True) for v, p, r in cubic_cases(quick)
            if v in CUBIC_NS3_VARIANTS]


def run_cubic(peers: dict[str, Peer], quick: bool, seeds: int) -> list[Row]:
    """The CUBIC rows alone (validation/report.py --cubic)."""
    return [run_case(v, p, r, peers, seeds, quick) for v, p, r in cubic_cases(quick)] + cubic_controls(peers, quick, seeds)


PFTK_POINT_TOL = 0.10  # the per-point agreement the report judges


def pftk_point(r: Row) -> tuple[float, float, str]:
    """dupack's goodput over PFTK with the measured RTT, PFTK's own timeout
    share Q̂ at its expected window, and, where the ratio leaves ±10 %, which
    of PFTK's assumptions the measurements show failing ("" otherwise)."""
    ratio = r.goodput["dupack"].mean / r.pftk_measured_kbps
    q_model = models.pftk_timeout_share(r.p, models.pftk_expected_window(r.p))
    if abs(ratio - 1) <= PFTK_POINT_TOL:
        return ratio, q_model, ""
    q = r.timeout_share
    if ratio > 1 and q < q_model:
        why = (f"timeouts start {q:.0%} of dupack's loss episodes, PFTK's Q̂ assumes {q_model:.0%}: PFTK takes a loss to "
               "end its round (every later packet of the round lost too), while these losses are independent, so "
               "more losses leave three duplicate ACKs behind them")
    elif ratio < 1 and q > q_model:
        why = (f"timeouts start {q:.0%} of dupack's loss episodes, more than PFTK's Q̂ of {q_model:.0%}: a fast "
               "retransmit that loses its retransmission, or a second loss in the window, ends in a timeout PFTK "
               "does not count")
    elif ratio < 1:
        why = (f"not the timeout share ({q:.0%} against Q̂ {q_model:.0%}): with T0 = 1 s PFTK charges each timeout "
               "one minimum RTO, while a timeout here costs its backoffs and the slow start after it")
    else:
        why = f"not the timeout share ({q:.0%} against Q̂ {q_model:.0%})"
    return ratio, q_model, why
