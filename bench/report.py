"""The text of docs/performance.md: `write_report` and what it is made of.

The tables of speed and results side by side, the scaling table, the sweep and profiling sections, the
targets, the observations computed from a run (dupack against ns-2, dupack against ns-3) and the fixed
explanatory text (the configuration mirror, how each tool's numbers are obtained, the modelling
differences we can name). Everything here reads measurements (bench/run.py's results, bench/sweep.py's and
bench/callgrind.py's summaries) and runs nothing, so a report can be written again from saved measurements
(`bench/run.py --report-from`).
"""
from __future__ import annotations

import math
import os
import statistics
from pathlib import Path

from bench import callgrind, sweep
from bench.measure import GNU_TIME
from bench.mirror import ROOT

# --------------------------------------------------------------------------
# Tables


def f(x, spec=".2f", none="—"):
    return none if x is None else format(x, spec)


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def pkts(m: dict) -> int:
    return m["data"] + m["acks"]


def cpu_ratio(tool: dict | None, d: dict, spec: str) -> str:
    """' (r×)': the CPU-time ratio, when both runs have one and dupack's is measurable."""
    if not tool or not tool.get("cpu") or not d.get("cpu"):
        return ""
    return f" ({tool['cpu'] / d['cpu']:{spec}}×)"


PAIRING = (" Three variants: `newreno` against both peers; `sack` (Fall & Floyd's SACK, the mirror of ns-2's "
           "`Sack1`) against ns-2 only; `rfc6675+lt` (RFC 6675's scoreboard, NextSeg and pipe, with its step (3) "
           "Limited Transmit: the mirror of ns-3's SACK) against ns-3 only. A dash marks the peer a variant is not paired with.")


def speed_table(rows: list[dict]) -> list[str]:
    t = [
        "| case | dupack wall s | ns-2 wall s | ns-3 wall s | ns-2/dupack wall (CPU) | ns-3/dupack wall (CPU) | Mevents/s dupack / ns-3 "
        "| kpkt/s dupack / ns-2 / ns-3 | peak RSS MiB dupack / ns-2 / ns-3 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        d, s, n3 = r["dupack"], r["ns2"], r.get("ns3")
        t.append(
            f"| {r['case'].label} | {d['wall']:.3f} | {f(s and s['wall'], '.3f')} | {f(n3 and n3['wall'], '.2f')} | "
            f"{f(ratio(s and s['wall'], d['wall']), '.1f')}{'×' if s else ''}{cpu_ratio(s, d, '.1f')} | "
            f"{f(ratio(n3 and n3['wall'], d['wall']), '.0f')}{'×' if n3 else ''}{cpu_ratio(n3, d, '.0f')} | "
            f"{d['events'] / d['wall'] / 1e6:.1f} / {f(n3 and n3['events'] / n3['wall'] / 1e6, '.2f')} | "
            f"{pkts(d) / d['wall'] / 1e3:.0f} / {f(s and pkts(s) / s['wall'] / 1e3, '.0f')} / "
            f"{f(n3 and pkts(n3) / n3['wall'] / 1e3, '.0f')} | "
            f"{d['rss_kib'] / 1024:.1f} / {f(s and s['rss_kib'] / 1024, '.1f')} / {f(n3 and n3['rss_kib'] / 1024, '.1f')} |"
        )
    return t


def result_table(rows: list[dict]) -> list[str]:
    t = [
        "| case | goodput kbit/s dupack / ns-2 / ns-3 | Jain dupack / ns-2 / ns-3 | fast retransmits dupack / ns-2 / ns-3 "
        "| timeouts dupack / ns-2 / ns-3 | retransmitted segments dupack / ns-2 / ns-3 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        d, s, n3 = r["dupack"], r["ns2"] or {}, r.get("ns3") or {}
        t.append(
            f"| {r['case'].label} | {d['goodput']:.0f} / {f(s.get('goodput'), '.0f')} / {f(n3.get('goodput'), '.0f')} | "
            f"{d['jain']:.3f} / {f(s.get('jain'), '.3f')} / {f(n3.get('jain'), '.3f')} | "
            f"{d['fr']} / {s.get('fr', '—')} / {n3.get('fr', '—')} | "
            f"{d['to']} / {s.get('to', '—')} / {n3.get('to', '—')} | "
            f"{d['rexmit']} / {s.get('rexmit', '—')} / {n3.get('rexmit', '—')} |"
        )
    return t


def mean_gap(a: list[float], b: list[float]) -> tuple[float, float]:
    """mean(a) − mean(b) and the standard error of that difference (two independent samples of seeds)."""
    return (statistics.mean(a) - statistics.mean(b),
            math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b)))


def seed_spread(controls: list[dict]) -> list[str]:
    """Is dupack's Jain's index at N = 200 really below ns-2's, and is it the window arithmetic? From the
    `seeds` control runs (ns2_seed_controls)."""
    lines = []
    for c in controls:
        if c.get("kind") != "seeds":
            continue
        if len(c["dupack"]) < 2:  # only the runs with the 1 µs send delay
            lines.append(f"- Control runs, {c['label']}:" + tiebreak_line(c))
            continue
        d, w, n2 = c["dupack"], c["dupack_ns2_arith"], c["ns2"]
        k = len(d)

        def ms(xs):
            return f"{statistics.mean(xs):.3f} ± {statistics.stdev(xs):.3f}"

        gap, se = mean_gap(n2, d)
        real = abs(gap) > 3 * se
        moved = statistics.mean(w) - statistics.mean(d)
        t = c.get("dupack_ns2_timer") or []
        timer_moved = statistics.mean(t) - statistics.mean(d) if t else math.nan
        lines.append(
            f"- Control runs, {c['label']}, seeds 1–{k} (mean ± standard deviation of Jain's index): dupack "
            f"{ms(d)}, ns-2 {ms(n2)}; dupack with ns-2's window arithmetic (`loss_ssthresh = \"window\"`, "
            f"`ca_increase = \"fractional\"`, `recovery_exit_growth = \"grow\"`) {ms(w)}. "
            + (f"The gap ({gap:+.3f}) is {abs(gap) / se:.0f} standard errors: not the luck of one seed. " if real else
               f"The gap ({gap:+.3f}) is within 3 standard errors of the seeds' spread: not a difference of the "
               "models that this many seeds can show. ")
            + (f"ns-2's window arithmetic moves dupack's index by {moved:+.3f}, "
               + ("most of the gap." if abs(moved) >= abs(gap) / 2 else "too little to explain it. ")
               + (f"With ns-2's retransmission timer as well (`tcp.rto.timer = \"ns2\"`: its tick-counted RTT "
                  f"samples and fixed-point averages, min applied before the backoff) {ms(t)}, {timer_moved:+.3f} "
                  "from dupack's own: "
                  + ("most of the gap." if abs(timer_moved) >= abs(gap) / 2 else
                     "the RTO estimator does not explain it either. The other modelling differences below remain.")
                  if t else "")
               if real else "")
            + tiebreak_line(c)
        )
    return lines


def against_tolerance(gap: float, se: float, tol: float = 0.01) -> str:
    """A gap between two means judged against ±tol: within it, outside it by less than two standard errors
    (the seeds cannot tell), or outside it."""
    if abs(gap) <= tol:
        return f"within ±{tol:g}"
    if abs(gap) - tol <= 2 * se:
        return f"outside ±{tol:g} by less than two standard errors (these seeds cannot tell)"
    return f"outside ±{tol:g}"


def tiebreak_line(c: dict) -> str:
    """The same case with a random delay of at most 1 µs before each send in both tools (over more seeds): do the
    two agree once no two flows' sends are simultaneous, within ±0.01 of Jain's index, with dupack's RFC
    arithmetic and with ns-2's?"""
    d, n2 = c.get("dupack_tiebreak") or [], c.get("ns2_tiebreak") or []
    if len(d) < 2 or len(n2) < 2:
        return ""

    gap, se = mean_gap(d, n2)
    shared = len(c.get("ns2") or [])
    moved = (f" (over seeds 1–{shared} ns-2 moved by {statistics.mean(n2[:shared]) - statistics.mean(c['ns2']):+.3f})"
             if shared else "")
    out = (f" With a random delay of at most 1 µs before each send in both tools (dupack `tcp.overhead = \"1us\"`, "
           f"ns-2 `overhead_` 1e-6), far below a frame time, seeds 1–{len(d)}: dupack {statistics.mean(d):.3f} ± "
           f"{statistics.stdev(d):.3f}, ns-2 {statistics.mean(n2):.3f} ± {statistics.stdev(n2):.3f}{moved}; "
           f"dupack − ns-2 {gap:+.4f} (standard error {se:.4f}), "
           + (("within 3 standard errors: the plain gap is that of two single trajectories of the synchronised "
               "start, not of the models (docs/validation.md, scenario 3)" if shared else "within 3 standard errors")
              if abs(gap) <= 3 * se else f"{abs(gap) / se:.0f} standard errors")
           + f"; {against_tolerance(gap, se)}.")
    a = c.get("dupack_tiebreak_arith") or []
    if len(a) >= 2:
        gap_a, se_a = mean_gap(a, n2)
        out += (f" With ns-2's window arithmetic in dupack as well, the closest mirror of ns-2: "
                f"{statistics.mean(a):.3f} ± {statistics.stdev(a):.3f}, dupack − ns-2 {gap_a:+.4f} (standard error "
                f"{se_a:.4f}): {against_tolerance(gap_a, se_a)}.")
    return out


def rel(a: float, b: float) -> float:
    return (a - b) / b * 100 if b else float("nan")


def observations(res: list[dict], controls: list[dict] | None = None) -> list[str]:  # noqa: C901
    """Differences between the two tools, computed from this run."""
    both = [r for r in res if r["ns2"]]
    lines = []
    if not both:
        return ["ns-2 did not run; nothing to compare."]
    a = [r for r in both if r["case"].group == "a"]

    def spread(rows, key, fmt="{:+.1f} %"):
        vals = [(rel(r["dupack"][key], r["ns2"][key]), r["case"].label) for r in rows if r["ns2"][key]]
        if not vals:
            return "n/a"
        lo, hi = min(vals), max(vals)
        return f"from {fmt.format(lo[0])} ({lo[1]}) to {fmt.format(hi[0])} ({hi[1]})"

    if a:
        lines.append(f"- (a) aggregate goodput, dupack relative to ns-2: {spread(a, 'goodput')}.")
        lines.append(f"- (a) Jain's index, dupack relative to ns-2: {spread(a, 'jain')}.")
        lines.append(f"- (a) fast retransmits, dupack relative to ns-2: {spread(a, 'fr')}.")
        lines.append(f"- (a) timeouts, dupack relative to ns-2: {spread(a, 'to')}.")
        lines.append(f"- (a) data segments sent, dupack relative to ns-2: {spread(a, 'data')}.")
    for r in both:
        if r["case"].group != "a":
            d, s = r["dupack"], r["ns2"]
            lines.append(
                f"- {r['case'].label}: goodput {rel(d['goodput'], s['goodput']):+.1f} %, "
                f"fast retransmits {d['fr']} vs {s['fr']}, timeouts {d['to']} vs {s['to']}."
            )
    big = [r for r in a if r["case"].flows >= 200]
    if big:
        dj = [r["dupack"]["jain"] - r["ns2"]["jain"] for r in big]
        tos = sum(r["dupack"]["to"] for r in big) / len(big)
        frs = sum(r["dupack"]["fr"] for r in big) / len(big)
        lines.append(
            f"- With N = 200 each flow's share of 3 Mbps is 15 kbit/s, far less than one segment per RTT: "
            f"flows live on retransmission timeouts (on average {tos:.0f} timeouts against {frs:.0f} fast "
            f"retransmits per run in dupack, ns-2 alike). Aggregate goodput agrees, but Jain's index differs by "
            f"{min(dj):+.3f} to {max(dj):+.3f} (dupack − ns-2): which flows are starved follows the exact "
            "timing of drops and timer expiries."
        )
    lines += seed_spread(controls or [])
    zero = [r for r in a if r["case"].overrides.get("topology.access.fwd_error.p") == 0.0 and r["case"].flows == 10]
    for r in zero:
        d, s_ = r["dupack"], r["ns2"]
        if s_["to"] and abs(d["to"] - s_["to"]) / s_["to"] > 0.3:
            lines.append(
                f"- {r['case'].label}: timeouts {d['to']} vs {s_['to']}. With p = 0 nothing is random and all ten "
                "flows start at the same instant over identical links, so their slow starts overflow the "
                "bottleneck together; how many segments each flow loses in that burst decides whether NewReno "
                "(one hole per RTT) finishes recovery or times out, and that follows the order in which the two "
                "schedulers serve simultaneous events."
            )
    ct = [r for r in both if r["case"].group == "c-time"]
    if ct:
        r = max(ct, key=lambda r: r["case"].duration)
        lines.append(
            f"- Speed, not results: for the longest run ({r['case'].label}) ns-2 takes "
            f"{r['ns2']['wall'] / r['dupack']['wall']:.1f}× dupack's time, against larger ratios for short runs. "
            "ns-2's Tcl start-up (~40 ms) and its per-flow set-up weigh on short runs; in steady state with few "
            "flows its per-packet cost is within about 2× of dupack's. The ratio grows with the number of flows "
            "(see (a) at N = 200 and (c)), where ns-2's set-up grows faster than linearly ("
            + ", ".join(f"{x['ns2_setup']:.1f} s of set-up for {x['case'].flows} flows" for x in res
                        if x.get("ns2_setup") and x["case"].flows >= 100)
            + " in (c))."
        )
    return lines


def observations_ns3(res: list[dict], controls: list[dict] | None = None) -> list[str]:
    """dupack against ns-3, computed from this run."""
    both = [r for r in res if r.get("ns3")]
    if not both:
        return ["- ns-3 did not run; nothing to compare."]
    lines = []

    def spread(rows, key):
        vals = [(rel(r["dupack"][key], r["ns3"][key]), r["case"].label) for r in rows if r["ns3"][key]]
        if not vals:
            return "n/a"
        lo, hi = min(vals), max(vals)
        return f"from {lo[0]:+.1f} % ({lo[1]}) to {hi[0]:+.1f} % ({hi[1]})"

    a = [r for r in both if r["case"].group == "a"]
    if a:
        for key, name in (("goodput", "aggregate goodput"), ("jain", "Jain's index"), ("fr", "fast retransmits"),
                          ("to", "timeouts"), ("data", "data segments sent")):
            lines.append(f"- (a) {name}, dupack relative to ns-3: {spread(a, key)}.")
    for r in both:
        if r["case"].group != "a":
            d, t = r["dupack"], r["ns3"]
            lines.append(
                f"- {r['case'].label}: goodput {rel(d['goodput'], t['goodput']):+.1f} %, "
                f"fast retransmits {d['fr']} vs {t['fr']}, timeouts {d['to']} vs {t['to']}."
            )
    for v in ("newreno", "rfc6675+lt"):
        rows = [r for r in a if r["case"].overrides.get("tcp.variant") == v]
        if rows:
            sh_d = [100 * r["dupack"]["rexmit"] / max(1, r["dupack"]["data"]) for r in rows]
            sh_3 = [100 * r["ns3"]["rexmit"] / max(1, r["ns3"]["data"]) for r in rows]
            worst = max(rows, key=lambda r: r["ns3"]["rexmit"] / max(1, r["ns3"]["data"]))
            lines.append(
                f"- (a) {v}: retransmitted segments as a share of data segments sent: dupack {min(sh_d):.1f}–"
                f"{max(sh_d):.1f} %, ns-3 {min(sh_3):.1f}–{max(sh_3):.1f} % (highest: {worst['case'].label}, "
                f"goodput {worst['dupack']['goodput']:.0f} vs {worst['ns3']['goodput']:.0f} kbit/s)."
            )
    nr = [r for r in a if r["case"].overrides.get("tcp.variant") == "newreno"]
    if nr and max(r["ns3"]["rexmit"] / max(1, r["ns3"]["data"]) for r in nr) > 0.2:
        w = max(nr, key=lambda r: r["ns3"]["rexmit"] / max(1, r["ns3"]["data"]))
        sk = [r for r in a if r["case"].overrides.get("tcp.variant") == "rfc6675+lt"
              and r["case"].flows == w["case"].flows
              and r["case"].overrides.get("topology.access.fwd_error.p") == w["case"].overrides.get("topology.access.fwd_error.p")]
        sk_txt = (f"; the same run with SACK (dupack's `rfc6675+lt`): ns-3 {sk[0]['ns3']['to']} timeouts and {sk[0]['ns3']['rexmit']} "
                  f"retransmissions, dupack {sk[0]['dupack']['to']} and {sk[0]['dupack']['rexmit']}") if sk else ""
        lines.append(
            f"- {w['case'].label}: ns-3's NewReno (SACK off) has {w['ns3']['to']} timeouts and "
            f"{w['ns3']['rexmit']} retransmitted segments against dupack's {w['dupack']['to']} and "
            f"{w['dupack']['rexmit']} (ns-2: {(w['ns2'] or {}).get('to', '—')} and {(w['ns2'] or {}).get('rexmit', '—')})"
            f"{sk_txt}. After each timeout ns-3 marks every outstanding segment lost "
            "(`TcpTxBuffer::SetSentListLost`) and resends them all, up to a 64-segment window, which accounts for "
            "the retransmission count."
        )
    for c_ in controls or []:
        if c_.get("kind", "prr") != "prr":
            continue
        cl, pr, d = c_["classic"], c_["prr"], c_["dupack"]
        lines.append(
            f"- Control run, {c_['label']}: the same ns-3 run with ns-3's PRR recovery (`TcpPrrRecovery`, its "
            f"default) instead of `TcpClassicRecovery`, everything else equal: goodput {pr['goodput']:.0f} kbit/s "
            f"(classic {cl['goodput']:.0f}, dupack {d['goodput']:.0f}), {pr['to']} timeouts (classic {cl['to']}, "
            f"dupack {d['to']}), {pr['rexmit']} retransmitted segments (classic {cl['rexmit']}, dupack "
            f"{d['rexmit']}). "
            + ("The excess timeouts and retransmissions of the ns-3 NewReno column therefore come from ns-3's "
               "classic-recovery path with SACK off, not from the set-up shared with dupack (buffers, RTO floor, "
               "loss, windows). "
               if pr["to"] <= 2 * max(1, d["to"]) and pr["rexmit"] <= 2 * max(1, d["rexmit"]) else
               "Switching the recovery algorithm does not remove the difference, so its cause is elsewhere. ")
            + "We keep classic recovery in the mirror because it is the algorithm dupack's NewReno implements "
            "(RFC 6582 with window inflation); PRR (RFC 6937) is a different one."
        )
    lines += ssthresh_controls(controls or [])
    c = [r for r in both if r["case"].group.startswith("c")]
    if c:
        short = [r for r in c if r["case"].duration <= 20]
        if short:
            g = [rel(r["dupack"]["goodput"], r["ns3"]["goodput"]) for r in short]
            rx = [r["ns3"]["rexmit"] / max(1, r["dupack"]["rexmit"]) for r in short]
            longest = max(c, key=lambda r: r["case"].duration)
            lines.append(
                f"- (c) is NewReno throughout. In the 20 s runs ns-3's goodput is {min(g):.0f}–{max(g):.0f} % below "
                f"dupack's, with {min(rx):.1f}–{max(rx):.1f}× dupack's retransmitted segments: the same NewReno "
                f"behaviour as in (a), plus the handshake, which matters most in short runs. Over "
                f"{longest['case'].label} the two agree within "
                f"{abs(rel(longest['dupack']['goodput'], longest['ns3']['goodput'])):.1f} %."
            )
        ten = [r for r in c if r["case"].flows == 10 and r["case"].duration >= 200]
        k = [r for r in c if r["case"].flows == 1000]
        if ten and k:
            lines.append(
                f"- Speed: ns-3 simulates {pkts(ten[0]['ns3']) / ten[0]['ns3']['wall'] / 1e3:.0f} k packets/s with "
                f"10 flows and {pkts(k[0]['ns3']) / k[0]['ns3']['wall'] / 1e3:.0f} k/s with 1000, while its set-up "
                f"alone stays at {k[0].get('ns3_setup', float('nan')):.1f} s: its per-packet work grows with the "
                "number of flows. In ns-3.44 the receiving socket is found by a walk over the node's endpoint list "
                "(`Ipv4EndPointDemux`) and a static route by a walk over the route list (`Ipv4StaticRouting`); the "
                "sink holds 1000 endpoints and the router 1000 routes here. That is why the ns-3/dupack ratio is "
                "largest for 1000 flows."
            )
    big = [r for r in a if r["case"].flows >= 200]
    if big:
        def tot(tool, key):
            return sum((r[tool] or {}).get(key, 0) for r in big)

        n2 = (f" (ns-2: {tot('ns2', 'to') / max(1, tot('dupack', 'to')):.2f}× and "
              f"{tot('ns2', 'fr') / max(1, tot('dupack', 'fr')):.2f}×)") if all(r["ns2"] for r in big) else ""
        for v in ("newreno", "rfc6675+lt"):
            bv = [r for r in big if r["case"].overrides.get("tcp.variant") == v and r["ns3"]]
            if not bv:
                continue
            to3 = sum(r["ns3"]["to"] for r in bv) / max(1, sum(r["dupack"]["to"] for r in bv))
            fr3 = sum(r["ns3"]["fr"] for r in bv) / max(1, sum(r["dupack"]["fr"] for r in bv))
            j3 = [r["ns3"]["jain"] for r in bv]
            jd = [r["dupack"]["jain"] for r in bv]
            j2 = [r["ns2"]["jain"] for r in bv if r["ns2"]]
            lines.append(
                f"- N = 200, {v}: ns-3 counts {to3:.2f}× dupack's timeouts and {fr3:.2f}× its fast retransmits; "
                f"Jain's index ns-3 {min(j3):.2f}–{max(j3):.2f}, dupack {min(jd):.2f}–{max(jd):.2f}"
                + (f", ns-2 {min(j2):.2f}–{max(j2):.2f}" if j2 else "") + "; aggregate goodput agrees."
            )
        lines.append(
            "- At N = 200 each flow has a few segments in flight at most, so whether a loss is repaired by fast "
            "retransmit or by a timeout depends on how many duplicate ACKs a window that small produces and on "
            "what the sender does after a timeout; which flows starve follows from that. With SACK off ns-3 "
            "differs from dupack's NewReno: after an RTO it marks every outstanding segment lost and resends from "
            "the first, and it emulates a scoreboard from duplicate ACKs. With SACK on both follow RFC 6675 "
            "(`IsLost` may start a recovery before the third duplicate ACK; the scoreboard is kept across a "
            "timeout), and ns-3 starts every connection with a handshake whose SYNs share the full queue (below)."
        )
        lines += silent_flows(big, controls or [])
    return lines


# How close Jain's index over the flows that delivered data must be to dupack's for the report to say that
# ns-3's silent flows alone make the difference (the indices of dupack and ns-2 differ by up to 0.03).
SILENT_JAIN_TOLERANCE = 0.03


def ssthresh_controls(controls: list[dict]) -> list[str]:
    """The `ssthresh` control runs (bench/run.py, ns3_ssthresh_controls): (b)'s rfc6675+lt over several seeds,
    dupack with the mirror as it is and with ns-3's ssthresh as well, against ns-3."""
    lines = []
    keys = (("to", "timeouts"), ("fr", "fast retransmits"), ("rexmit", "retransmitted segments"),
            ("goodput", "goodput"))
    for c_ in controls:
        if c_.get("kind") != "ssthresh":
            continue
        n = len(c_["ns3"])
        mean = {who: {k: statistics.mean(m[k] for m in c_[who]) for k, _ in keys} for who in ("dupack", "dupack_pipe", "ns3")}

        def counts(who: str) -> str:
            m = mean[who]
            return (f"{m['to']:.0f} timeouts, {m['fr']:.0f} fast retransmits, {m['rexmit']:.0f} retransmitted segments, "
                    f"{m['goodput']:.1f} kbit/s")

        def within(who: str) -> list[str]:
            return [name for k, name in keys if abs(rel(mean[who][k], mean["ns3"][k])) <= 10]

        agree = {who: within(who) for who in ("dupack", "dupack_pipe")}
        lines.append(
            f"- Control runs, {c_['label']}, means over seeds 1–{n} (the tables hold seed 1 only): dupack with the "
            f"mirror as it is {counts('dupack')}; dupack with ns-3's ssthresh as well (`tcp.loss_ssthresh = \"pipe\"`: "
            f"half of RFC 6675's pipe where RFC 6675 §5 (4.2) halves FlightSize, as ns-3's `TcpSocketBase` sets it) "
            f"{counts('dupack_pipe')}; ns-3 {counts('ns3')}. Within ±10 % of ns-3: "
            + "; ".join(f"{'with' if who == 'dupack_pipe' else 'without'} ns-3's ssthresh "
                        + (", ".join(a) if a else "none") + f" ({len(a)} of {len(keys)})"
                        for who, a in agree.items())
            + "."
            + (" So that departure of ns-3 from the RFC accounts for the fast-retransmit gap: on this path (13 % "
               "packet loss, windows of a few segments) half of pipe after a loss is below half of FlightSize, the "
               "window stays lower and fewer losses are found by three duplicate ACKs."
               if "fast retransmits" in agree["dupack_pipe"] and "fast retransmits" not in agree["dupack"] else "")
        )
    return lines


def silent_flows(big: list[dict], controls: list[dict]) -> list[str]:
    """Where Jain's index at N = 200 differs: flows that delivered nothing in the whole run."""
    lines = []
    for r in big:
        d, n2, n3 = r["dupack"], r["ns2"], r["ns3"]
        if not n3 or max(d["silent"], (n2 or {}).get("silent", 0), n3["silent"]) == 0:
            continue
        n2_txt = f", ns-2 {n2['silent']}" if n2 else ""
        n2_j = f", ns-2 {n2['jain_alive']:.3f}" if n2 else ""
        lines.append(
            f"- {r['case'].label}: flows that delivered no data in {r['case'].duration:.0f} s: dupack "
            f"{d['silent']}{n2_txt}, ns-3 {n3['silent']} ({n3['unopened']} of them never opened the "
            f"connection: no SYN got through and back). Jain's index over the flows that delivered data: dupack "
            f"{d['jain_alive']:.3f}{n2_j}, ns-3 {n3['jain_alive']:.3f} (over all flows: dupack {d['jain']:.3f}, "
            f"ns-3 {n3['jain']:.3f})."
        )
    if lines:
        others = "every flow of dupack and ns-2 delivered data" if all(
            r["dupack"]["silent"] == 0 and (r["ns2"] or {}).get("silent", 0) == 0 for r in big
        ) else "dupack and ns-2 have silent flows too (above)"
        quiet = [r for r in big if r["ns3"] and r["ns3"]["silent"] > 0]
        whole = [r["case"].label for r in quiet
                 if abs(r["ns3"]["jain_alive"] - r["dupack"]["jain_alive"]) <= SILENT_JAIN_TOLERANCE]
        part = [r["case"].label for r in quiet if r["case"].label not in whole]
        split = (f"In {', '.join(whole)} Jain's index over the flows that delivered data is within "
                 f"{SILENT_JAIN_TOLERANCE} of dupack's: there the silent flows are the whole difference. " if whole
                 else "")
        split += (f"In {', '.join(part)} ns-3's flows that run also share less evenly than dupack's; that part "
                  "of the difference lies among the running flows, where the recovery differences above apply. "
                  if part else "")
        opened = [x for r in quiet for x in r["ns3"].get("silent_opened", [])]
        early = [t for t, _ in opened if t < 1000]
        late = [t for t, _ in opened if t >= 1000]
        opened_txt = ""
        if opened:
            opened_txt = f"Of the {len(opened)} silent flows that did open (over the cases above), "
            if early:
                opened_txt += (f"{len(early)} sent their first data segment within the first second "
                               f"({min(early)}–{max(early)} ms), as the flows that run did")
            if late:
                opened_txt += (", and " if early else "") + (
                    f"{len(late)} later ({min(late) / 1e3:.1f}–{max(late) / 1e3:.1f} s)")
            opened_txt += (f"; none had a segment delivered, whether it sent one copy or several "
                           f"({min(n for _, n in opened)}–{max(n for _, n in opened)}). ")
        lines.append(
            f"- {split}The silent flows never get going. Those that never open the connection: at t = 0 every "
            "flow sends its SYN at once and the 200 SYNs reach the 150-packet bottleneck queue together; those "
            "that do not fit are retried after the same fixed timeout (`ConnTimeout` 1 s, then doubled), so "
            f"together again, into a queue the open connections keep full. {opened_txt}dupack and ns-2 model no "
            f"handshake; in this run {others}. The mirror lets a connection retry its SYN for ever (`ConnCount` "
            "2³⁰), as dupack's flows never give up."
        )
    for c_ in controls:
        if c_.get("kind") == "synretries":
            lines.append(
                f"- Control run, {c_['label']}: the same ns-3 run with ns-3's default `ConnCount` of 6 SYN "
                f"retries: {c_['syn6']['silent']} silent flows ({c_['syn6']['unopened']} never opened), Jain's "
                f"index {c_['syn6']['jain']:.3f}, against {c_['ns3']['silent']} ({c_['ns3']['unopened']}) and "
                f"{c_['ns3']['jain']:.3f} in the mirror."
            )
    return lines


EXPLANATIONS_NS3 = """\
Modelling differences between dupack and ns-3 we can name (each documented in the configuration mirror):

- **Handshake.** ns-3 TCP always opens the connection; data starts one RTT after t = 0 (≈ 60 ms in (a), 560 ms
  in (b)), and with 200 flows the SYNs and SYN-ACKs share queues with data.
- **PPP header and rounding.** Every ns-3 packet carries 2 more bytes on a point-to-point link: a 1040-byte data
  packet takes as long as 1042 bytes would in dupack or ns-2, 0.2 % of capacity; and ns-3 rounds each frame's
  transmission time to the nanosecond, which on the dumbbell decides who gets the queue's last place when two
  segments arrive at one instant (`ns3_wire` in docs/validation.md). The `rfc6675+lt` rows mirror both in dupack
  (`[wire]`); the `newreno` rows, run against ns-2 from the same dupack case, keep the exact clock.
- **Recovery.** ns-3's recovery is built on its RFC 6675 scoreboard for both variants (with SACK off,
  duplicate ACKs stand in for SACK blocks); on a full ACK it sets cwnd = ssthresh, dupack
  min(ssthresh, FlightSize + MSS). With SACK on, ns-3 and dupack's `rfc6675+lt` (its pairing here) both run
  RFC 6675 (`IsLost`, `NextSeg`, `pipe`); ns-3 sends up to 4 SACK blocks per ACK instead of 3. ns-3 sends new
  data whenever cwnd exceeds pipe (`TcpSocketBase::AvailableWindow`), so before a recovery each SACKed segment
  releases a new one: RFC 6675 §5 step (3), Limited Transmit governed by pipe, which ns-3 does with SACK
  whatever its `LimitedTransmit` attribute says. Without it (dupack's plain `rfc6675`) a loss in a window of
  three or four segments waits for the timer: at N = 10, p = 5 %, dupack's `rfc6675` timed out 602 times over
  4 seeds against 222 for `rfc6675+lt` and 246 for ns-3 (docs/validation.md, scenario 2, has the lossy link).
- **Slow start.** ns-3 grows cwnd by `segmentsAcked` × MSS per ACK (an ACK that covers several segments, as after
  a recovery, grows it by several MSS); dupack (RFC 5681: at most one MSS per ACK) and ns-2 by one MSS per ACK.
- **Random streams.** MRG32k3a streams in ns-3 against PCG-64 in dupack: statistically alike, not identical.
"""


EXPLANATIONS = """\
Causes we can name (each is a documented modelling difference, not a tuning knob left unset):

- **Duplicate ACKs under SACK.** dupack counts duplicate ACKs by RFC 5681 §2 for every variant; ns-2's
  `Sack1` counts only those that carry new SACK information and, during fast recovery, grows `pipe`
  differently on partial ACKs (`partial_ack_` off: `pipe` is decremented twice and no new segment is
  forced). This moves SACK fast-retransmit and timeout counts in both directions.
- **ssthresh after a loss.** ns-2's `slowdown()` halves `min(cwnd_, window_)`; dupack halves FlightSize
  (RFC 5681 eq. 4). They agree while the sender is cwnd-limited and differ just after recovery.
- **Arithmetic.** ns-2 keeps `cwnd_` in packets as a double and `ssthresh_` as an integer number of packets
  (floored, at least 2); dupack keeps both in bytes. Congestion avoidance (`cwnd += MSS²/cwnd`) is the
  same rule, but rounding differs after each halving.
- **RTO.** Both are RFC 6298 with a 1 s floor and 1 ms clock, but ns-2 measures RTT in whole ticks with
  its fixed-point `t_srtt_`/`t_rttvar_` (3 and 2 fraction bits); dupack keeps nanoseconds. The 1 s
  floor hides this while srtt + 4·rttvar stays below 1 s; it does not with 200 flows, where a full
  150-packet buffer adds 0.4 s of queueing and most losses end in a timeout.
- **ACK size.** ns-2 ACKs are 40 bytes even when they carry SACK blocks; dupack adds the option bytes
  (12–28 bytes). The ACK path is never congested here, so this only shifts ACK arrival times by
  microseconds.
- **Random streams.** Both draw Bernoulli losses independently per access link, but from different
  generators (ns-2 MRG32k3a, dupack PCG-64), so the loss patterns are statistically alike and not
  identical. With p = 0 the runs are deterministic in both tools and differences come from the items above
  alone; the per-flow numbers of the synchronised start (all flows at t = 0) are sensitive to the order
  of simultaneous events, which the two schedulers break differently (dupack: explicit class, then the
  identity of the channel or flow; ns-2: FIFO of insertion).
"""

MIRROR = """\
| setting | dupack (bench/scenarios/*.toml) | ns-2 (bench/ns2/tcp_bench.tcl) | ns-3 (bench/ns3/tcp_bench.cc) |
|---|---|---|---|
| segment size | `tcp.mss` = 1000 B (536 B in (b)) | `packetSize_` 1040 (576) with `useHeaders_ false`: the whole packet (validation/ns2/mirror.tcl; with headers added by ns-2, its seqno-0 packet would lack them) | `TcpSocket::SegmentSize` 1000 (536) |
| headers | 20 IP + 20 TCP = 40 B per data packet (+ SACK option bytes on ACKs: RFC 2018's layout, 12/20/28 B; in the `sack` cases ns-2's 8 B per block, `receiver.sack_option_size = "ns2"`) | included in `packetSize_`; ACKs 40 B (`Agent/TCPSink packetSize_`), + 8 B per SACK block (`TCPSink/Sack1`) | 20 IP + 20 TCP (no options on data: timestamps and window scaling off), SACK option bytes on ACKs, **+ 2 B PPP header** on every packet on the wire (PointToPointNetDevice; not configurable), and each frame's transmission time rounded to the nanosecond on its own (`DataRate::CalculateBytesTxTime`); dupack's `rfc6675+lt` rows take both (`wire.header = "2B"`, `wire.tx_time = "per_frame"`, bench/mirror.py `NS3_WIRE`), the `newreno` rows, shared with ns-2, do not |
| first ACK | opens cwnd | `delay_growth_ false` (the 2.35 default resets cwnd on it, as after a SYN) | opens cwnd (no special case after the handshake) |
| initial window | `initial_window` = 1 | `windowInit_` 1 | `TcpSocket::InitialCwnd` 1 |
| receiver window | `receiver.window` = 64000 B | `window_` 64 packets (119 in (b)) | `TcpSocket::RcvBufSize` 64000 B (advertised ≤ 64000, `WindowScaling` off) |
| handshake | none | `syn_ false` | always (SYN, SYN-ACK: data starts one RTT later; `ConnTimeout` 1 s) |
| limited transmit | off (`newreno`, `sack`); RFC 6675 §5 step (3), new data while cwnd − pipe ≥ 1 MSS, in the `rfc6675+lt` rows | `singledup_ 0` (ns-2.35 default is 1) | `TcpSocketBase::LimitedTransmit` false, which acts only without SACK: with SACK ns-3 always sends while cwnd exceeds pipe (`AvailableWindow`), RFC 6675's step (3) |
| dupthresh | 3 | `numdupacks_` 3 | `TcpSocketBase::ReTxThreshold` 3 |
| RTO | RFC 6298 fine timer, G = 1 ms, initial 1 s, min 1 s, max 60 s, backoff ≤ ×64 | `tcpTick_` 0.001, `rtxcur_init_` 1.0, `minrto_` 1.0, `maxrto_` 60, backoff ≤ 64 (fixed in ns-2) | `ClockGranularity` 1 ms, `RttEstimator::InitialEstimation` 1 s, `MinRto` 1 s, doubling capped at 60 s (fixed in ns-3); `DataRetries` 2³⁰ and `ConnCount` 2³⁰ (the defaults, 6 each, would abort a connection after 6 back-to-back timeouts or give up opening it after 6 lost SYNs) |
| RTO at a fast retransmit | restarted with the retransmission (`tcp.rto.on_fast_retransmit = "restart"`, as 4.4BSD and Linux); `"keep"` in the `rfc6675+lt` rows, the cases run against ns-3 alone | restarted (`reset_rtx_timer(1,0)` in `dupack_action` and `Sack1`'s `recv`) | not restarted: `TcpSocketBase::SendDataPacket` schedules `ReTxTimeout` only when it is not running, so it keeps its deadline from the last ACK of new data |
| RTO backoff, partial ACKs, RTT samples | the backoff lasts until a new RTT sample (`tcp.rto.backoff_reset = "sample"`, RFC 6298 §5); every partial ACK of an RFC 6675 recovery restarts the timer (`tcp.rfc6675_rto_reset = "every"`, RFC 6298 §5.3); one segment timed at a time (`tcp.rto.sampling = "timed"`); in the `rfc6675+lt` rows `"new_ack"`, `"first"` and `"per_segment"`, as ns-3 | cleared where the sample is taken (`newack`); one segment timed (`rtt_seq_`) | `NewAck` recomputes the RTO from SRTT and RTTVAR whenever it restarts the timer, which ends the backoff at the first new ACK; in recovery only the first partial ACK restarts it (`NewAck(ackNumber, m_isFirstPartialAck)`); a sample from every segment sent once (`RttHistory`) |
| growth after a timeout | every ACK of new data grows cwnd (RFC 5681 §3.1, `tcp.timeout_exit_growth = "acked"`); in the `rfc6675+lt` rows `"above_recover"`, as ns-3 | every ACK (`opencwnd`) | the ACK that ends `CA_LOSS` counts only the whole segments above `m_recover` (`ProcessAck`), so an ACK that ends there does not grow cwnd |
| ACKs | every segment (`ack = "every"`) | `Agent/TCPSink`, `Agent/TCPSink/Sack1` (no DelAck) | `TcpSocket::DelAckCount` 1 |
| SACK | against ns-2: the `sack` variant (Fall & Floyd); against ns-3: the `rfc6675+lt` variant (RFC 6675 with its step (3) Limited Transmit); 3 blocks per ACK | `Agent/TCP/Sack1`, `maxSackBlocks_` 3 | `TcpSocketBase::Sack` true (RFC 6675 scoreboard in `TcpTxBuffer`); up to 4 blocks per ACK, as many as fit in the 40 option bytes without timestamps (not configurable) |
| NewReno | partial-ACK retransmit, timer reset on the first partial ACK, full ACK: cwnd = min(ssthresh, FlightSize + MSS) | `Agent/TCP/Newreno`, `newreno_changes1_ 1`, `partial_window_deflation_ 1`, `exit_recovery_fix_ 1` | `TcpNewReno` congestion control, `Sack` false, recovery `TcpClassicRecovery` (not ns-3's default PRR): cwnd inflation by dupacks, partial-ACK retransmit, full ACK: cwnd = ssthresh |
| ssthresh on loss | max(FlightSize / 2, 2 MSS) | min(cwnd, window) / 2 in packets, ≥ 2 | max(BytesInFlight / 2, 2 MSS) (`TcpNewReno::GetSsThresh`) |
| queues | DropTail, limit = packets *waiting* | DropTail `queue-limit` = limit + 1 (ns-2 drops when length + 1 ≥ limit) | no queue disc (`TrafficControlHelper::Uninstall` after addressing); the device's `DropTailQueue` `MaxSize` = limit packets: the device dequeues a packet when it starts sending it, so the queue holds waiting packets only, as in dupack |
| loss (a), (c) | Bernoulli p on data packets of the access links (fwd) | `ErrorModel`, `unit pkt`, `rate_` p, on the sender→router direction via `link-lossmodel` (after the link: a lost packet used its transmission time, as in dupack) | our `DataLoss` error model as the router-side device's `ReceiveErrorModel` (after the transmission time); only packets with TCP payload are lost (SYN/ACK/FIN never) |
| loss (b) | BER 3·10⁻⁵: a packet of s bytes is lost with 1 − (1 − BER)^(8s) | per-packet equivalent: `unit pkt`, `rate_` = 1 − (1 − 3·10⁻⁵)^(8·576) = 0.1293 (every data packet is 576 B). ns-2's `unit bit` was not used: its `CorruptBit` draws from a table precomputed for the fixed sizes `datapktsize_`/`cntrlpktsize_`, not the packet's own size | `DataLoss` with the BER applied to each data packet's own IP size, as dupack |
| routing | implicit | `$ns` static routes from the topology | static default routes (`Ipv4StaticRoutingHelper`), no global route computation |
| random numbers | PCG-64 per link, from the seed | MRG32k3a, one `RNG` per lossy link (a stream of its own), at the seed's substream | MRG32k3a streams (`RngSeedManager` run = seed, one stream per lossy link) |
| start | all flows at t = 0 | all `FTP start` at t = 0 | all `BulkSendApplication`s at t = 0 (`SendSize` = MSS, unlimited) |
"""


def ns2_counters() -> str:
    return """\
How the ns-2 numbers are obtained (agent variables read at the end of the run, no trace file):

- goodput: the sink's `bytes_` (bytes of packets delivered in order, **headers included**) ÷ (packetSize + 40)
  × packetSize × 8 ÷ duration. dupack: `bytes_delivered` at the receiver, the same quantity.
- timeouts: the sender's `nrexmit_`, incremented on every retransmission-timer expiry with data outstanding
  (each backoff counts), as dupack's `timeouts`.
- fast retransmits: `ncwndcuts_ − nrexmit_`. `ncwndcuts_` counts every call of `slowdown()`: one per fast
  retransmit and one per timeout here (no ECN, no idle periods). dupack: `fast_retransmits`.
- retransmitted segments: `nrexmitpack_`; data packets sent: `ndatapack_`; ACKs received: `nackpack_`.
- simulated packets per second (both tools): (data packets sent + ACKs received by the senders) ÷ wall time.
- events per second: dupack (`run.events`: events popped from its queue) and ns-3 (`Simulator::GetEventCount()`:
  events executed); ns-2 has no event counter that OTcl can read. The two counts are not the same unit of work:
  ns-3 schedules several events per packet and hop (transmit complete, channel delivery, application and socket
  callbacks), dupack one arrival per packet and hop, an end of transmission only where packets are lost or
  queue on a lossy or observed link, and one timer per endpoint.

How the ns-3 numbers are obtained (bench/ns3/tcp_bench.cc prints them at the end of the run):

- goodput: `PacketSink::GetTotalRx()` (payload bytes delivered in order to the application) × 8 ÷ duration.
- fast retransmits and timeouts: the congestion-control object of each sender is our subclass of `TcpNewReno`
  that counts `CongestionStateSet(CA_RECOVERY)` (called once per entry into fast recovery) and
  `CongestionStateSet(CA_LOSS)` (called on every expiry of the retransmission timer, each backoff included).
- retransmitted segments: the socket's `Retransmission` trace source; data packets sent: `Tx` with payload;
  ACKs received: the sender socket's `Rx`.
- the program skips `Simulator::Destroy()` and exits right after printing (tear-down of thousands of objects
  is not simulation work; dupack and ns-2 also exit without freeing).
"""


def write_report(res: list[dict], m: dict, args, path: Path, elapsed: float, sweep_res: dict | None = None,
                 prof: dict | None = None, controls: list[dict] | None = None) -> None:
    L = []
    L.append("# Performance: dupack, ns-2 and ns-3 on identical scenarios\n")
    L.append(
        "Generated by `python bench/run.py"
        + (" --quick" if args.quick else "")
        + "`; do not edit by hand (issue 6). Sections: machine, method and configuration mirror; (a), (b), (c) "
        "with the speed and the results of the three tools side by side; scaling; sweep throughput; profiling "
        "notes; targets; where the results differ and why; then, each measured by its own script, the dupack "
        "command end to end (bench/cli.py), sweeps on a Dask cluster (bench/dask_sweep.py) and `dupack reproduce` "
        "end to end (bench/reproduce.py).\n"
    )
    L.append("## Machine and versions\n")
    L.append(f"- date: {m['date']}; dupack commit {m['commit']}")
    if m.get("later"):
        later = m["later"]
        what = later.get("what", "the sweep throughput and the profile")
        L.append(f"- {what} {'were' if ' and ' in what or what.endswith('runs') else 'was'} measured again later: {later['date']}, dupack commit "
                 f"{later['commit']}, 1-minute load average {later['load']} (`bench/run.py --cases-from`)")
    L.append(f"- CPU: {m['cpu']}; `nproc` = {m['nproc']}; memory {m['mem']}; {m['os']}")
    # Measurements made before the benchmark recorded its profile were of the release profile.
    profile = m.get("profile", "release profile of the workspace: thin LTO, 4 codegen units")
    L.append(f"- {m['rustc']} ({profile}); {m['ns2']}; Python {m['python']}")
    L.append(
        f"- {m['ns3']}: the wheel's libraries are a CMake *release* build with logging and asserts compiled in "
        "(`NS3_LOG_ENABLE`, `NS3_ASSERT_ENABLE` in its `ns3Targets.cmake`), shared libraries, no LTO across "
        "modules. An ns-3 built with `--build-profile=optimized` would be somewhat faster; we time ns-3 as "
        f"installed from PyPI. Our program is compiled by {m['cxx']} with `-O2 -std=c++20` (bench/ns3build.py)."
    )
    L.append(
        f"- the whole benchmark took {elapsed / 60:.1f} minutes; runs are sequential and single-threaded; "
        f"1-minute load average when it started: {m['load']} on {m['nproc']} cores. Other jobs on a shared machine "
        "inflate wall times, and the shortest runs most (a 50 ms run that waits for a core can take 3× its CPU "
        "time), so the speed tables give the CPU-time ratio (user + system) in brackets beside the wall-time "
        "ratio; the callgrind counts below do not depend on the load at all\n"
    )
    L.append("## Method\n")
    L.append(
        "Each run is a separate process: dupack's `bench_scenario` example (scenario TOML in, result JSON out), "
        "`ns bench/ns2/tcp_bench.tcl` and the ns-3 program `bench/ns3/tcp_bench.cc` (compiled once against the "
        "`ns3` wheel and cached by source hash). Wall time is measured around the process (start-up, parsing, "
        "set-up and output included); runs shorter than 0.5 s are repeated and the best of 7 is kept, runs shorter than 5 s the best of 3. Peak RSS is GNU "
        "time's `%M` for the simulator process itself" + ("" if os.path.exists(GNU_TIME) else
        " (here /usr/bin/time was missing: `ru_maxrss` from `wait4`, which includes about 16 MiB of the "
        "forked Python interpreter)") + ". dupack's own `run.wall_time_s` (simulation only) is in the JSON "
        "for reference; all ratios here use process wall time for every tool. Simulated packets per second = "
        "(data packets sent + ACKs received by the senders) ÷ wall time.\n"
    )
    L.append("### Configuration mirror\n")
    L.append(MIRROR)
    L.append(ns2_counters())
    groups = [
        ("a", "(a) The unfairness dumbbell",
         "N greedy senders, 1 Mbps / 10 ms access links with Bernoulli loss p on data, a 3 Mbps / 20 ms "
         "bottleneck with a 150-packet DropTail buffer, "
         + ("50 s (`--quick`: N = 10 only)." if args.quick else "200 s.") + PAIRING),
        ("b", "(b) One long flow over a lossy slow link",
         "64 kbps, 280 ms one-way, BER 3·10⁻⁵ on data packets, MSS 536 B, "
         + ("500 s (`--quick`)." if args.quick else "2000 s.") + PAIRING),
        ("c-flows", "(c) Scaling with the number of flows",
         "N NewReno flows at a fixed 300 kbit/s share each: bottleneck N × 300 kbps with 15 N packets of "
         "buffer, 1 % access loss, same links otherwise."),
        ("c-time", "(c) Scaling with simulated time", "10 flows of the scaling scenario, 10× and 100× longer."),
    ]
    for g, title, desc in groups:
        rows = [r for r in res if r["case"].group == g]
        if not rows:
            continue
        L.append(f"## {title}\n")
        L.append(desc + "\n")
        L.append("### Speed\n")
        L += speed_table(rows)
        L.append("")
        L.append("### Results side by side\n")
        L += result_table(rows)
        L.append("")
        notes = [f"{r['case'].label}: {r[k]}" for r in rows for k in ("ns2_note", "ns3_note") if r.get(k)]
        if notes:
            L.append("Note: " + "; ".join(notes) + ".\n")
    # Scaling summary
    L.append("## Scaling\n")
    L.append(
        "Cost per flow and simulated second (process wall time ÷ (flows × simulated seconds)). \"Set-up alone\" "
        "is the same run with 1 ms of simulated time: reading the scenario and building the network.\n"
    )
    L.append("| run | flows × sim s | µs per flow-s dupack / ns-2 / ns-3 | set-up alone s dupack / ns-2 / ns-3 | "
             "peak RSS MiB dupack / ns-2 / ns-3 | dupack events per flow-s | dupack Mevents/s (simulation only) | "
             "ns per event dupack / bare-queue floor |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    sc = [r for r in res if r["case"].group.startswith("c")]
    for r in sc:
        c = r["case"]
        fs = c.flows * c.duration
        s, n3 = r["ns2"], r.get("ns3")
        L.append(
            f"| {c.label} | {fs:.0f} | {r['dupack']['wall'] / fs * 1e6:.1f} / {f(s and s['wall'] / fs * 1e6, '.1f')} / "
            f"{f(n3 and n3['wall'] / fs * 1e6, '.0f')} | {f(r.get('dupack_setup'), '.3f')} / {f(r.get('ns2_setup'), '.2f')} / "
            f"{f(r.get('ns3_setup'), '.2f')} | {r['dupack']['rss_kib'] / 1024:.1f} / {f(s and s['rss_kib'] / 1024, '.1f')} / "
            f"{f(n3 and n3['rss_kib'] / 1024, '.1f')} | {r['dupack']['events'] / fs:.0f} | "
            f"{r['dupack']['events'] / r['dupack']['core_wall'] / 1e6:.1f} | "
            f"{r['dupack']['core_wall'] / r['dupack']['events'] * 1e9:.0f} / {f(r.get('heap_floor_ns'), '.0f')} |"
        )
    L.append("")
    manual = [r["case"].label for r in sc if getattr(r["case"], "ns2_routing", "static") == "manual"]
    if manual:
        L.append(
            f"ns-2 runs {', '.join(manual)} with its routes given explicitly (tcp_bench.tcl `routing=manual`: "
            "`rtproto Manual`, a default route from each sender and from the sink to the router, a route from the "
            "router to each node next to it). Its default computes every pair of nodes' routes before the run, "
            "which at 10,000 senders takes over 9 GB and had not finished after five minutes; the two give the same "
            "routes, and at 1000 senders the same output to the byte, in half the time (9.6 s against 19.6 s on "
            "2 December 2026) and 179 against 284 MiB peak RSS. The other cases keep ns-2's default, as its users run it.\n"
        )
    if any(r.get("heap_floor_ns") for r in sc):
        L.append(
            "The floor is the engine's event queue alone (`heap_floor` example, measured in this run beside each "
            "case): pop the earliest of about two pending events per flow and schedule one 0–20 ms later, nothing "
            "else. What a run spends per event above it is the simulation: channels, packets, endpoints.\n"
        )
    L += sweep_section(sweep_res)
    L += profile_section(prof)
    L.append("## Targets\n")
    L += targets(res, sweep_res)
    L.append("")
    L.append("## Where results differ and why\n")
    L.append("### dupack and ns-2\n")
    L.append("Observed in this run:\n")
    L += observations(res, controls)
    L.append("")
    L.append(EXPLANATIONS)
    L.append("### dupack and ns-3\n")
    L.append("Observed in this run:\n")
    L += observations_ns3(res, controls)
    L.append("")
    L.append(EXPLANATIONS_NS3)
    L.append("## Not covered\n")
    L.append(
        "- Criterion micro-benchmarks exist (`cargo bench -p dupack-sim -- --quick`: event queue, SACK "
        "scoreboard with 1000 holes, DropTail, RED and ECN-RED enqueue, one ARQ frame, the 10-flow dumbbell for "
        "20 s), and `cargo bench -p dupack-batch -- --quick`: one run's rows into a sweep's columns, through serde "
        "and by position.\n"
        "- The sweep figure times `dupack.sweep` and `dupack sweep` on one grid shape (one scenario, seeds "
        "only); grids over many scenario values parse one document per point, which is not measured.\n"
    )
    # The whole-command section (bench/cli.py --write-doc, measured separately) is kept as it was.
    kept = ""
    if path.exists():
        old = path.read_text()
        start = old.find("\n## The dupack command end to end")
        if start >= 0:
            kept = old[start:]
    path.write_text("\n".join(L).rstrip("\n") + "\n" + kept if kept else "\n".join(L))


def sweep_section(sw: dict | None) -> list[str]:
    L = ["## Sweep throughput\n"]
    if not sw:
        L.append("Not measured in this run (`--no-sweep`, or the dupack package is not importable by the "
                 "interpreter that ran bench/run.py).\n")
        return L
    L.append(
        f"A grid of {sw['runs']} runs (seeds 1…{sw['runs']}) of one scenario ({sw['scenario']}) at three simulated "
        f"durations, on {sw['workers']} workers, four ways (bench/sweep.py): **rust**, the `sweep_grid` example, "
        f"{sw['workers']} threads calling `dupack_sim::run` in one process, nothing serialised or written; **api**, a "
        f"process pool of {sw['workers']} calling `dupack.run(scenario, seed)` (Python, the PyO3 call, the JSON "
        "result and its pandas tables); **api+store**, the same plus `RunResult.save()` (result.json, two Parquet "
        "files, two CSV files, scenario.json); **cli**, "
        f"{sw['workers']} concurrent `dupack run FILE -s … --seed N -q -o DIR` processes (interpreter start-up, "
        "imports, the run and the store). Overhead = (path's wall time − rust's) ÷ path's wall time: the share "
        f"of the sweep not spent simulating. Per-run overhead = (wall − rust wall) × {sw['workers']} ÷ runs. The "
        "in-process paths are best of 3, the CLI grid runs once. On a loaded machine the first table is noisy "
        "(a negative overhead means the process pool happened to beat the two threads); the second table, "
        "measured inside each call, is the robust one.\n"
    )
    if sw.get("png"):
        rel_png = os.path.relpath(sw["png"], ROOT / "docs")
        L.append(f"![Sweep throughput]({rel_png})\n")
        if "sweep_paired" in sw["rows"][0]:
            L.append(
                "In the right panel, sweep and sweep+store are measured against the bare sweep run alongside "
                "(the paired measure below); the other paths against rust.\n"
            )
    L += sweep.table(sw)
    L.append("")
    L.append(
        "Inside each API call (summed over the grid, so independent of pool scheduling and of other jobs between "
        "calls): the simulation as the core timed it (`run.wall_time_s`), the rest of `dupack.run` (Python, "
        "PyO3, building the result), and `RunResult.save()`:\n"
    )
    L += sweep.split_table(sw)
    L.append("")
    if "sweep_wall" in sw["rows"][0]:
        L.append(
            f"Through `dupack.sweep` and `dupack sweep` (bench/sweep.py's sweep paths; grids of at least "
            f"{sw['sweep_runs']} runs"
            + (f" and at least {sw['sweep_seconds']:g} s long when run from Rust" if "sweep_seconds" in sw else "")
            + ", the size of a real sweep of short runs, so that start-up is shared and the results of one chunk are "
            "stored while the workers run the next, as they would be there): "
            f"**sweep**, `dupack.sweep(scenario, seeds=…, workers={sw['workers']})` in a warmed-up process, the "
            "core's worker threads returning the results as columns and the pandas tables built from them, "
            "nothing written; **sweep+store**, the same with `out=DIR` (one Parquet part per table and chunk); "
            f"**cli-sweep**, one `dupack sweep FILE --seeds 1..N -j {sw['workers']} -q -o DIR` "
            "process (interpreter start-up and imports included). Each is compared with rust on the same grid; "
            "per-run overhead in µs:\n"
        )
        L += sweep.sweep_table(sw)
        L.append("")
        if "sweep_paired" in sw["rows"][0]:
            L.append(
                "That comparison takes two separate measurements, a separate process and a few seconds apart, and "
                "on this machine the very same runs vary by up to a quarter between two such measurements. So each "
                "sweep path is also measured against a **bare** sweep of the same grid run just before or after it "
                "in the same process (`dupack.sweep(..., _discard_results=True)`: the same jobs on the same worker "
                "threads, each result dropped unread by the worker that made it; its baseline is the core's sweep "
                "call alone, without the Python around it), alternating which goes first; the overhead is the "
                "median over the pairs of (wall − bare) ÷ wall. This is the figure the target is judged by:\n"
            )
            L += sweep.paired_table(sw)
            L.append("")
    rows = sw["rows"]
    rest = [(r["split_api"]["call"] - r["split_api"]["core"]) / sw["runs"] * 1000 for r in rows]
    store = [r["split_store"]["store"] / sw["runs"] * 1000 for r in rows]
    cli = [(r["wall"]["cli"] - r["wall"]["rust"]) * sw["workers"] / sw["runs"] for r in rows]
    L.append(
        f"What this says: the PyO3 call and building the result object cost {min(rest):.1f}–{max(rest):.1f} ms per "
        f"run, under 5 % of a call once the simulation itself takes more than about {20 * max(rest):.0f} ms "
        f"(here: a 10-flow dumbbell for ~100 simulated seconds). `RunResult.save()` (two Parquet files written by "
        f"the extension, two CSV and two JSON files) costs {min(store):.0f}–{max(store):.0f} ms per run, and the CLI "
        f"{1e3 * min(cli):.0f}–{1e3 * max(cli):.0f} ms per run, almost all of it the start-up of a Python interpreter "
        "(\"The dupack command end to end\" below says where those milliseconds go). dupack simulates a 10-flow dumbbell at "
        "thousands of simulated seconds per wall second, so a run of \"≥ 1 s simulated\" lasts milliseconds and "
        "any per-run file I/O or process start dominates it.\n"
    )
    return L


def profile_section(prof: dict | None) -> list[str]:
    L = ["## Profiling notes\n"]
    L.append("### Where the time goes\n")
    if not prof:
        L.append("callgrind was not run (`--no-profile`, or valgrind is missing: `apt-get install valgrind`).\n")
    else:
        L.append(
            "`valgrind --tool=callgrind --cache-sim=yes` on the release `bench_scenario` (bench/callgrind.py), "
            "two runs of the scaling scenario with the same work per flow-second: 10 flows for 50 s and 1000 "
            "flows for 5 s. Instruction counts are exact and do not depend on the machine's load; the cache "
            "columns are callgrind's simulated caches, a model of the real ones.\n"
        )
        L += callgrind.markdown(prof)
        L.append("")
        labels = list(prof)
        sm, bg = prof[labels[0]], prof[labels[-1]]
        ipe_s, ipe_b = sm["ir_total"] / sm["events"], bg["ir_total"] / bg["events"]

        def share(r, key):
            return 100 * sum(v for k, v in r["ir"].items() if key in k) / r["ir_total"]

        def heap_share(r):
            # The queue's methods are inlined into the standard library's heap.
            return 100 * sum(v for k, v in r["ir"].items() if "EventQueue" in k or "BinaryHeap" in k) / r["ir_total"]

        d1_s, d1_b = sm["d1mr"] / sm["events"], bg["d1mr"] / bg["events"]
        ll_s, ll_b = sm["dlmr"] / sm["events"], bg["dlmr"] / bg["events"]
        L.append(
            f"- Instructions per event grow from {ipe_s:.0f} ({labels[0]}) to {ipe_b:.0f} ({labels[-1]}), "
            f"{ipe_b / ipe_s:.2f}×; the event heap's share of instructions goes from "
            f"{heap_share(sm):.0f} % to {heap_share(bg):.0f} %: a binary heap's pop costs "
            "O(log n) comparisons and moves of whole entries, and with 1000 flows the heap holds one timer per "
            "endpoint plus one arrival per busy channel, thousands of entries, against tens with 10 flows."
        )
        L.append(
            f"- L1 data read misses per event grow {d1_b / d1_s:.0f}× (from {d1_s:.2f} to {d1_b:.2f}); "
            f"last-level misses stay small in both ({ll_s:.3f} and {ll_b:.3f} per event: the whole state of 1000 "
            "flows, ~15 MiB, fits in callgrind's simulated last-level cache). The instructions grow by "
            f"{ipe_b / ipe_s:.2f}× while the measured cost per event grows by more (the Mevents/s column of the "
            "scaling table): the rest is memory latency of L1 misses (heap entries, flow state and queued "
            "packets spread over megabytes), which instruction counts do not show."
        )
        L.append(
            f"- `memcpy` is {share(bg, 'memcpy'):.0f} % of instructions with 1000 flows "
            f"({share(sm, 'memcpy'):.0f} % with 10). Packets no longer move between queues and channels (they stay "
            "in the pool, below); what is left is mostly the segment an endpoint hands out (136 bytes, most of it "
            "the SACK-block array that only ACKs use) copied from its output queue into a new packet.\n"
        )
    L.append("### What was changed and what each change bought\n")
    L.append(
        "- **One arrival event per channel** (commit b4a923c). Before, every packet in flight had its own event in "
        "the heap; now each channel keeps its in-flight packets in FIFO order and the heap holds one event per "
        "channel (the next arrival). The heap shrinks from O(packets in flight) to O(channels); on a single "
        "1 Gbit/s flow, with thousands of packets in flight, the run became 1.7× faster.\n"
        "- **RACK per-ACK work** (commit fdaf846). RACK's loss detection scanned the whole send order on "
        "every ACK; it now looks at the newly delivered segments and at the front of the send order only. A "
        "long high-BDP RACK run went from 66 s to 0.18 s.\n"
        "- **Tried and rejected: a 4-ary heap with the key packed in a u128** (commit e830b03 keeps only its "
        "test). It popped events in exactly the same order (checked against an ordered set) but ran the "
        "1000-flow scaling case in 1.46–1.63 s against 1.06–1.07 s for the standard library's binary heap, "
        "so the binary heap stays. Packing the key alone, earlier, changed nothing measurable.\n"
        "- **The frame on the wire waits where it will propagate** (commit 553c0e5). A frame that starts its "
        "transmission goes straight to the tail of its channel's propagation FIFO, with its arrival instant, "
        "instead of into an `on_wire` slot from which the end of the transmission copied it (through a return "
        "value) into the FIFO. On 10 flows × 50 s (callgrind): `memcpy` instructions 23.9 M → 17.7 M (−26 %), "
        "all instructions 133.9 M → 129.7 M; wall time about −10 % on both scaling runs (interleaved best of 7: "
        "10 flows × 1000 s 0.381 → 0.346 s, 1000 flows × 10 s 0.658 → 0.593 s). Results are bit-identical on 17 "
        "scenarios (the benchmark's and the shipped ones).\n"
        "- **Smaller steps on the same path.** `tx_time` divides in 64 bits whenever a packet's "
        "bit-nanoseconds fit (always; the 128-bit division is a library call that was 2 % of a run), and an "
        "arriving packet goes to its endpoint or next hop by reference, copied only into the next queue "
        "(`memcpy` instructions a further −12 %). About 2 % and 5 % of wall time, results bit-identical.\n"
        "- **Tried and rejected: a monotone radix heap** (simulated time never goes backwards, so an event can "
        "live in bucket `bit_length(time XOR last popped time)`: pushes are appends, pops refill from the lowest "
        "non-empty bucket; equal-time events in a small heap by class and insertion order). It popped the "
        "same order and gave bit-identical results on the 1000-flow scaling case, but its bucket moves cost "
        "more than the heap saved: 32 % of the profile samples (push 25 %, refill 7 %) against 23 % for "
        "`BinaryHeap::pop`, 1.09 s against 1.02 s (best of 5). Event times are nanoseconds spread over tens "
        "of milliseconds, so an event moves through many buckets before it is popped.\n"
        "- **Simultaneous events ordered by identity** (commit e80badd). Equal-time events of one class used to "
        "pop in the order they were scheduled; they now pop by what they concern (kind of event, then channel, "
        "flow or medium index). Not faster in itself, but it makes the order of simultaneous events part of the "
        "model rather than of the engine's bookkeeping, so that the changes below, which schedule events at "
        "other moments, could be checked bit for bit. Results changed once (ties between equal-time arrivals on "
        "different channels); docs/validation.md was regenerated and its summary did not move.\n"
        "- **The end of a transmission is an event only when something happens at its instant** (commit "
        "48b0195). The error model now draws a frame's fate when its transmission starts (the same draws: frames "
        "end in the order they start, from the channel's own streams), so a surviving frame joins the "
        "propagation FIFO at once. The end of its transmission is scheduled only for a lost frame, a frame with "
        "others waiting behind it, or under ARQ; otherwise it is applied at its own instant when the channel is "
        "next offered a frame or at the end of the run. The 10-flow dumbbell of (a) drops from 580 k to 392 k "
        "events. Wall time (interleaved best of 7 of `bench_scenario`, the same binary pairs in one run): "
        "(a) N = 10, p = 0.01 0.043 → 0.034 s; 1000 flows × 10 s 0.672 → 0.536 s.\n"
        "- **Packets live in a pool** (commit 414c951). A packet (176 bytes) was copied into the queue, onto the "
        "wire, out of the propagation FIFO and on to the next hop; `memmove` was 16 % of a dumbbell run. Now "
        "every packet is written once into the world's pool and queues and channels pass a 4-byte handle; queue "
        "disciplines hold a handle with the two fields they read (size, ECN). A new end-of-run invariant checks "
        "that every living packet is held by a channel. (a) N = 10: 0.034 → 0.029 s; 1000 flows × 10 s 0.536 → "
        "0.460 s; 10 flows × 1000 s 0.225 → 0.132 s.\n"
        "- **A heap entry is one `u128`** (commit 6e6572e): the time, the class and the event's 62-bit identity, "
        "from which the event is decoded when popped; 16-byte entries compared in one integer comparison "
        "instead of 32-byte entries compared as a tuple. (a) N = 10: 0.029 → 0.027 s; 1000 flows × 10 s "
        "0.460 → 0.423 s.\n"
        "- **A popped entry is replaced, not removed** (commit 5ebc48a). Handling an event nearly always "
        "schedules one, so a pop and a push cost the heap two sifts; the popped entry now stays at the top until "
        "the next `schedule` overwrites it and sifts it down once (or the next pop removes it). The same entries, "
        "so the same order. Also, a channel keeps the transmission time of the last frame size it served (one "
        "64-bit division per packet less). (a) N = 10: 0.027 → 0.026 s; (a) N = 200: 0.049 → 0.038 s; 1000 "
        "flows × 10 s 0.423 → 0.366 s. Over the five commits: 1.66× on (a) N = 10, 1.67× on N = 200, 1.84× on "
        "1000 flows × 10 s and 1.89× on 10 flows × 1000 s, every result bit-identical to the identity-ordered "
        "engine on the 17 scenarios.\n"
        "- **One heap look per event, one division per packet** (commit ddf1a14). The loop pops the next event "
        "only if it is due, instead of peeking at it and then popping it, and a channel counts its busy time "
        "from the transmission time it computed when the frame started. Bit-identical; interleaved best of 9: "
        "(a) N = 10, p = 0.01 0.029 → 0.027 s, 10 flows × 1000 s 0.133 → 0.124 s. A test now runs seven "
        "shipped scenarios (DropTail, RED, losses, ARQ, Snoop, a shared medium) with every end of transmission "
        "an event and checks that the results are exactly those of the lazy engine.\n"
        "- **Tried and rejected: a heap of our own with Floyd's replacement** (the hole at the top falls to a "
        "leaf along the smaller children, one comparison per level, and the new entry rises from there). "
        "Bit-identical; faster on the 10-flow dumbbell (0.029 s against 0.034 s) but slower on 1000 flows "
        "× 10 s (0.341 s against 0.306 s), where the heap is twelve levels deep and the standard library's "
        "sift with an early exit stops sooner.\n"
        "- **Tried and rejected: draining FIFO queues lazily.** On a channel where nothing overtakes (no ARQ, no "
        "Snoop, no trace) a waiting packet's transmission is decided when it is queued, so its fate can be drawn "
        "then and only a lost packet needs an event; the queue is drained, each frame at its own instant, when "
        "the channel is next looked at. Bit-identical, and 26 % fewer events on (a) N = 10 (392 k → 291 k), but "
        "slower: 0.0275 s against 0.0251 s, and 10 flows × 1000 s 0.127 s against 0.114 s. The events it saves "
        "are the cheapest ones (a bottleneck's end of transmission, whose heap entry is replaced in place), and "
        "every arrival and offer pays for a catch-up.\n"
        "- **The ends of a busy period replayed on plain channels** (commit b393713). The lazy drain above, "
        "taken up again where it is cheap: only on a channel with no error model (so that no frame it starts "
        "can be lost and need an event), no ARQ, Snoop, jitter or delivery trace, and nothing observing it (a "
        "time series of the link, a capture). There a queued frame starts when the one before it ends, and the "
        "channel replays those ends, each at its own instant, when it is next touched (an offer, the arrival of "
        "its propagation FIFO's head, the end of the run): one check of the wire per touch, not a catch-up of "
        "the queue's fates. Every result but the event count is the same (the golden runs hashed without it, "
        "before and after). (a) N = 10: 389,587 → 317,509 events (−18.5 %), instructions 356.8 M → 345.7 M "
        "(callgrind); simulation time, best of 21 alternated runs of the two binaries: (a) N = 10 26.6 → 25.0 ms, "
        "N = 40 29.5 → 28.0 ms, N = 200 37.3 → 35.5 ms; 10 flows × 2000 s 258.7 → 249.8 ms; 1000 flows × 20 s "
        "561 → 519 ms.\n"
        "- **Tried and rejected: handing frames over at a router that one channel alone feeds.** Where every "
        "route through a channel B comes from one channel A (on the dumbbell, the bottleneck's reverse "
        "direction and each sender's access link back), A can hand each frame to B as it starts, with the "
        "instant it will reach the router, so that its arrival there is not an event: B takes the frames "
        "handed over, each at its own instant, whenever it is next touched, and schedules the arrival at its "
        "far end from its own idle clock. Only a DropTail queue sure to have room takes a frame ahead of time "
        "(a drop could not be recorded at its instant otherwise), and A's busy-period ends become events "
        "again so that each frame is seen as it starts. Every result but the event count was the same (the "
        "266 golden runs hashed without it), and (a) had 20-23 % fewer events (N = 10: 317,509 → 245,437; N = "
        "200: 363,569 → 291,475), but 2.5 % more instructions (345.7 M → 354.5 M, callgrind) and no faster "
        "run (best of 11 alternated: N = 10 25.3 → 26.0 ms, N = 200 35.8 → 43.5 ms, 1000 flows × 20 s 541 → "
        "581 ms). Per function (callgrind), the event loop, the heap and the router's forwarding ran 38.7 M "
        "fewer instructions, and what the hand-off added or grew 47.3 M more: the catch-up at each touch, "
        "which now also started the frames handed over, 30.4 M; the hand-off itself 8.1 M; the queue's "
        "enqueue, no longer inlined, 4.3 M; the frames waiting to be taken and their arrivals computed ahead "
        "4.5 M. The work of forwarding a frame moved rather than went, and the bookkeeping came on top of it: "
        "with a heap this shallow (20 pending events at N = 10) the event itself is not the expensive part of "
        "a packet's hop.\n"
        "- **Tried and rejected: cache-line order for the channel and the packet.** `repr(C)` with the fields "
        "every packet reads first (the transmitter, the propagation FIFO and the scalars of a `Channel`; "
        "destination, size, flow and sequence numbers of a `Packet`), where the compiler had spread them over "
        "all nine lines of a `Channel` and all three of a `Packet`. No measurable change on any case: the cost is "
        "the first miss on a cold structure, and the neighbouring lines come with it.\n"
        "- **Tried and rejected: prefetching the next event's state.** Right after popping an event, peek "
        "at the heap's new top and prefetch the channel (all 9 cache lines) or the endpoint (the first 14 lines "
        "of a `Sender`, 6 of a `Receiver`) it will touch, so that the misses overlap the current event. No "
        "gain (interleaved best of 7 of `bench_scenario`: 1000 flows × 10 s 0.439 s without, 0.445 s with; "
        "10 flows × 1000 s 0.192 s and 0.194 s): the misses that cost are not in those structures' first "
        "lines but further along each event's path (the packet at a channel's head, the flow it reaches, "
        "its scoreboard), which only reading the head tells.\n"
        "- **Tried and rejected: prefetching the packet at a channel's head.** In the 1000-flow profile the "
        "hottest instruction of `Channel::put_on_wire` (about 60 % of its samples) waits for the first read of "
        "the packet taken from the 15,000-packet bottleneck queue, and `World::arrive_at` waits on the packet "
        "at the head of the propagation FIFO. Prefetching both one step ahead (the packet behind the one "
        "dequeued, and the next frame to arrive) moved those samples out of the two functions but not out of "
        "the run: bit-identical, interleaved best of 11 of `bench_scenario`, 1000 flows × 10 s 0.180 s without "
        "and 0.182 s with, (a) N = 200 0.033 s and 0.034 s. The processor already overlaps these misses with "
        "the work around them; what is left is the bandwidth of the cache hierarchy, not a latency to hide.\n"
        "- **Tried again and rejected: a 4-ary heap whose four children are one aligned cache line** (the "
        "minimum of the four found without branches). Bit-identical and no faster: (a) N = 10 0.024 s and "
        "0.025 s, 1000 flows × 10 s 0.205 s and 0.202 s, 10 flows × 1000 s 0.112 s and 0.116 s (binary heap "
        "first). The heaps are shallow: on average 20 pending events in (a) N = 10, 317 at N = 200 and 1,990 "
        "with 1000 flows, because a channel keeps one arrival event at a time.\n"
        "- **Tried and rejected: a tournament tree of slots beside the heap.** Each channel's next arrival "
        "and end of transmission, each endpoint's timer and each flow's next release had a fixed leaf of a "
        "complete binary tree whose inner nodes hold the smaller of their children, so that re-scheduling a "
        "slot recomputes its path to the root with one branch-free comparison a level and moves no entries "
        "(the other events stayed in the heap, and each pop took the smaller of the two minima). "
        "Bit-identical results; 142 events fewer on 10 flows × 2000 s (3,883,464), the later copies of "
        "lazily re-armed timers a slot no longer keeps. No faster on 10 flows × 2000 s (best of 5 of "
        "`bench_scenario`, heap first: 0.250 s and 0.252 s) and slower on 1000 flows × 10 s (0.208 s "
        "and 0.261 s): the tree has a leaf for every slot, 8,192 at 1000 flows, and every re-schedule of "
        "the event just popped walks its whole height, where the heap holds the ~2,000 pending events only "
        "and its sift stops early.\n"
        "- **Tried again and rejected: a radix heap on the whole 128-bit key** (the monotone radix heap "
        "above, with time, class and tie-break in one key, so that only entries scheduled at the current "
        "instant below the last one popped need the small heap beside it). Bit-identical and no faster: "
        "user time of `bench_scenario`, interleaved, binary heap first, (a) N = 10 × 2000 s 0.24–0.25 s "
        "and 0.26–0.28 s, 1000 flows × 20 s 0.55–0.64 s and 0.72–0.76 s, 10,000 flows × 20 s 21.0–24.4 s "
        "and 20.0–23.3 s (within the noise): the bucket moves still cost more than the shallow heap's "
        "early-exit sift.\n"
        "- **A BER link keeps the loss probability of the last packet size** (commit 176954f). "
        "1 − (1 − BER)^(8·s) was computed with `powf` for every packet, a tenth of the profile of (b); the "
        "packets a link's error model selects nearly all have one size, so the value of the last size is kept. "
        "The same function of the same size: bit-identical (golden hashes unchanged). (b)'s simulation, "
        "median of 31 on an AMD EPYC: 1.63 → 1.53 ms.\n"
        "- **Measured and not done: a smaller packet.** A `Packet` is 176 bytes, 72 of them the four SACK "
        "blocks only ACKs carry. An upper bound of what moving them out of line buys: the same binary with "
        "room for one block (48 bytes less per packet), on NewReno runs that send no SACK blocks (results "
        "unchanged), interleaved best of 7 of `bench_scenario`: (a) N = 10 30.8 → 30.1 ms (2 %), "
        "1000 flows × 10 s 275 → 269 ms best, 282 → 270 ms median (2–4 %). A representation change "
        "through every SACK user for at most that was not made.\n"
        "- **A packet's head travels with its handle** (commit b616a7e). Queues and wires carried the "
        "packet's 4-byte handle and read its size, destination and ECN field from the pool: the bottleneck's "
        "transmitter when it dequeued a packet that had waited behind thousands of others, a router when a "
        "packet arrived after milliseconds of propagation. With 10,000 flows those first reads were 13 % "
        "(`World::deliver`) and 7 % (`Channel::put_on_wire`) of the samples. The handle now carries copies of "
        "the three fields (a CE mark is written to both), and the packet is read at its endpoint only. "
        "Bit-identical (golden hashes unchanged); callgrind, 1000 flows × 3 s: L1 data read misses 9.74 M → "
        "9.30 M (−4.5 %), instructions +0.3 %; interleaved best of 7 of `bench_scenario` on a loaded host: "
        "1000 flows × 10 s 427 → 401 ms, 10,000 flows × 3 s 5.08 → 4.93 s, (a) N = 10 unchanged. The miss "
        "moved to the endpoint, which must read the segment, and the next cold structures are the channel a "
        "packet arrives on (its propagation ring) and the one it is routed to.\n"
        "- **A run starts with room for what a short run grows into** (commit 98fb701). The packet pool "
        "(256 packets), each flow's ground-truth copies (a 64-segment window) and each queue's and link's FIFO "
        "(16 entries) grew from empty one doubling at a time, copying themselves at each step; a sweep of 1 s "
        "runs spent about 2 % of its instructions there and in the allocator. Bit-identical (golden hashes "
        "unchanged); callgrind, 300 runs of (a) N = 10 × 1 s: 681.5 M → 669.9 M instructions (−1.7 %); "
        "(a) N = 10 × 200 s unchanged (356.9 M → 356.8 M). What is left of the allocator in a 1 s run (about "
        "4 % of its instructions) is the run's result (names and rows) and the world's set-up.\n"
    )
    L.append("### What would close the scaling gap\n")
    L.append(
        "The *work* per flow-second is constant (see the events column of the scaling table) and the "
        "instructions per event grow only by the factor above (a deeper heap: O(log n)). The rest of the growth "
        "is memory: with 10 flows the whole state fits in a core's L2 cache, with 1000 flows it does not. "
        "The state per flow is a `Sender` (856 bytes plus its scoreboard and send order), a `Receiver` (344 "
        "bytes plus its out-of-order list) and ground-truth counters; per channel a `Channel` (576 bytes); per "
        "packet alive 176 bytes in the pool (the 1000-flow bottleneck alone holds up to 15,000 of them, "
        "2.6 MB). An event touches a channel, a packet that has usually waited in a long queue since anything "
        "last read it, and a flow; at 1000 flows each of these is a miss to the last-level cache, where at 10 "
        "flows they are hits in L1 or L2. The profile shows it: with 1000 flows the instructions that stall are "
        "the first read of a `Channel` (its propagation ring in `World::run_events`, its fields in "
        "`World::send`), the first read of the arriving packet at its endpoint (`World::arrive_at`; routers and "
        "queues read the head the handle carries, above), and the first read of the `Sender`. Laying fields out by cache "
        "line did not help (above): the miss is the first touch, not the number of lines. What would close most "
        "of the gap is fewer cold structures per event, which means a different organisation, not tuning:\n\n"
        "- **Process events by flow, not by time, where the model allows it.** A packet's passage through "
        "uncongested hops (the access links, every ACK path) touches only its own flow's state; simulating such "
        "stretches ahead per flow, with the congested bottleneck as the only place where flows meet in time "
        "order, would keep one flow's state hot across several events. This is a change of engine (a "
        "conservative parallel-discrete-event scheme on one core), not of the data layout.\n"
        "- **Smaller per-flow and per-packet state.** A segment is 136 bytes, 64 of them four SACK blocks "
        "of two `u64` each that only ACKs use and 24 an optional timestamp pair; SACK blocks as 32-bit offsets "
        "from the cumulative ACK would bring the packet from 176 to about 136 bytes, and the fields touched on "
        "every ACK (`snd_una`, `snd_nxt`, `cwnd`, `ssthresh`, the RTO estimator) could share one cache line "
        "of the `Sender`. Both shrink the working set by a fraction, not by the factor of 100 between 10 and "
        "1000 flows.\n"
    )
    return L


def cpu_span(rows: list[dict], tool: str, target: float) -> str:
    """'; on CPU time from a× to b× (k of n cases ≥ target)' for the rows that have CPU times."""
    rs = [(r[tool]["cpu"] / r["dupack"]["cpu"], r["case"].label) for r in rows
          if r.get(tool) and r[tool].get("cpu") and r["dupack"].get("cpu")]
    if not rs:
        return ""
    lo, hi = min(rs), max(rs)
    k = sum(1 for x in rs if x[0] >= target)
    spec = ".1f" if target < 10 else ".0f"
    return (f"; on CPU time (user + system, which the machine's load does not inflate) from {lo[0]:{spec}}× "
            f"({lo[1]}) to {hi[0]:{spec}}× ({hi[1]}), {k} of {len(rs)} cases ≥ {target:g}×")


def all_ns3_ratios(res: list[dict]) -> str:
    other = [(r["ns3"]["wall"] / r["dupack"]["wall"], r["case"].label) for r in res
             if r["case"].group != "a" and r.get("ns3")]
    if not other:
        return ""
    lo, hi = min(other), max(other)
    return f" Outside (a): from {lo[0]:.0f}× ({lo[1]}) to {hi[0]:.0f}× ({hi[1]})."


def targets(res: list[dict], sweep_res: dict | None = None) -> list[str]:
    out = []
    a = [r for r in res if r["case"].group == "a" and r["ns2"]]
    if a:
        rs = [(r["ns2"]["wall"] / r["dupack"]["wall"], r["case"].label) for r in a]
        lo, hi = min(rs), max(rs)
        ok = lo[0] >= 2
        out.append(
            f"- (a) dupack ≥ 2× faster than ns-2: **{'met' if ok else 'missed'}** on wall time. ns-2/dupack wall-time "
            f"ratio from {lo[0]:.1f}× ({lo[1]}) to {hi[0]:.1f}× ({hi[1]})" + cpu_span(a, "ns2", 2) + "."
        )
    else:
        out.append("- (a) dupack ≥ 2× faster than ns-2: not measured (ns-2 did not run).")
    a3 = [r for r in res if r["case"].group == "a" and r.get("ns3")]
    if a3:
        rs = [(r["ns3"]["wall"] / r["dupack"]["wall"], r["case"].label) for r in a3]
        lo, hi = min(rs), max(rs)
        met = [x for x in rs if x[0] >= 100]
        core = [(r["ns3"]["wall"] / r["dupack"]["core_wall"], r["case"].label) for r in a3]
        verdict = "met" if lo[0] >= 100 else ("partly met" if met else "missed")
        out.append(
            f"- (a) dupack ≥ 100× faster than ns-3: **{verdict}** ({len(met)} of {len(rs)} cases). ns-3/dupack "
            f"wall-time ratio from {lo[0]:.0f}× ({lo[1]}) to {hi[0]:.0f}× ({hi[1]})" + cpu_span(a3, "ns3", 100)
            + ("" if lo[0] >= 100 else f"; the worst case misses by {100 / lo[0]:.1f}×")
            + f". Against dupack's simulation time alone (without its ~2–3 ms process start-up and scenario "
            f"parsing) the ratio is {min(core)[0]:.0f}× to {max(core)[0]:.0f}×. "
            + ("" if lo[0] >= 100 else
               f"Why: these runs take dupack {min(r['dupack']['wall'] for r in a3) * 1000:.0f}–"
               f"{max(r['dupack']['wall'] for r in a3) * 1000:.0f} ms, of which a few ms are process start-up, while ns-3's "
               "per-packet cost is that of a general-purpose packet simulator (reference-counted `Packet` "
               "objects with header serialisation, several scheduled events per packet and hop, callbacks "
               "through `Ptr`/`Callback` indirections, traced values, and log checks compiled into the wheel). "
               "What would close it: dupack now spends about one event per packet and hop (the arrival; the "
               "end of a transmission only where packets are lost or queue on a lossy or observed link) at "
               f"{min(r['dupack']['core_wall'] / r['dupack']['events'] for r in a3) * 1e9:.0f}–"
               f"{max(r['dupack']['core_wall'] / r['dupack']['events'] for r in a3) * 1e9:.0f} ns each "
               "(simulation time per event in these runs), after the "
               "changes in the profiling notes made it 1.7× faster; the ratio needs that divided again by the "
               "factor the target is missed by. The event queue is the largest single cost left (a quarter of "
               "the profile samples of a 10-flow run); the rest is spread thinly over the path of a packet (channel, routing, endpoint), "
               "so what is left is a different engine organisation (see the scaling notes), not a hot spot. An "
               "ns-3 built with the optimized profile would lower the ratio, not raise it.")
            + all_ns3_ratios(res)
        )
    else:
        out.append("- (a) dupack ≥ 100× faster than ns-3: not measured (ns-3 did not run).")
    cf = [r for r in res if r["case"].group == "c-flows"]
    ct = [r for r in res if r["case"].group == "c-time"]
    if cf:
        # Compare the cost per flow-second of the biggest runs; the smallest
        # ones are dominated by process start-up.
        big = [r for r in cf + ct if r["case"].flows * r["case"].duration >= 1000]
        costs = [(r["dupack"]["wall"] / (r["case"].flows * r["case"].duration) * 1e6, r["case"].label) for r in big]
        if costs:
            lo, hi = min(costs), max(costs)
            ok = hi[0] / lo[0] <= 1.5
            out.append(
                f"- (c) linear cost in flows × simulated time: **{'met' if ok else 'missed'}**. Over the runs with "
                f"≥ 1000 flow-seconds the cost per flow-second ranges from {lo[0]:.1f} µs ({lo[1]}) to "
                f"{hi[0]:.1f} µs ({hi[1]}), a spread of {hi[0] / lo[0]:.2f}× (met if ≤ 1.5×"
                + ("" if ok else f"; missed by {hi[0] / lo[0] / 1.5:.2f}×")
                + "). Smaller runs are dominated by process start-up (a few ms)."
            )
            ev = [(r["dupack"]["events"] / (r["case"].flows * r["case"].duration), r["case"].label) for r in big]
            rate_ = [(r["dupack"]["events"] / r["dupack"]["core_wall"] / 1e6, r["case"].label) for r in big]
            out.append(
                f"  The *work* is linear: events per flow-second stay between {min(ev)[0]:.0f} and {max(ev)[0]:.0f}. "
                f"What grows is the cost of one event: {max(rate_)[0]:.1f} M events/s ({max(rate_)[1]}) against "
                f"{min(rate_)[0]:.1f} M events/s ({min(rate_)[1]}). The profiling notes above show why (the state of "
                "1000 flows outgrows the caches; the instructions per event grow only with the heap's depth) and "
                "what would close it (fewer cold structures per event: an engine that simulates a flow's "
                "uncongested hops ahead, in flow order; smaller packets and per-flow state help by a fraction)."
            )
        per_event = {r["case"].flows: (r["dupack"]["core_wall"] / r["dupack"]["events"] * 1e9, r.get("heap_floor_ns"))
                     for r in cf}
        # At 10 flows the 20 s run simulates for a few milliseconds, where
        # one timer tick or page fault moves the figure by half; the longest
        # 10-flow run (of the time-scaling cases) is the steady state.
        ten = max((r for r in cf + ct if r["case"].flows == 10), key=lambda r: r["dupack"]["events"], default=None)
        if ten is not None:
            per_event[10] = (ten["dupack"]["core_wall"] / ten["dupack"]["events"] * 1e9, None)
        if 10 in per_event and 1000 in per_event:
            (c10, _), (c1k, floor1k) = per_event[10], per_event[1000]
            growth = c1k / c10
            line = (f"- Flat cost per event (10 to 1000 flows at most 1.3×, within 1.5× of the bare-queue floor): "
                    f"**{'met' if growth <= 1.3 and floor1k and c1k <= 1.5 * floor1k else 'missed'}**. "
                    f"{c10:.0f} ns per event at 10 flows ({ten['case'].label}, the longest 10-flow run), "
                    f"{c1k:.0f} ns at 1000: {growth:.2f}×")
            if floor1k:
                line += f"; the floor at 1000 flows is {floor1k:.0f} ns, so a run's event costs {c1k / floor1k:.1f}× it"
            if 10000 in per_event:
                c10k, floor10k = per_event[10000]
                line += f"; at 10,000 flows {c10k:.0f} ns" + (f" (floor {floor10k:.0f} ns)" if floor10k else "")
            out.append(line + ".")
        for flows, limit_mb in ((1000, 100), (10000, 200)):
            k = [r for r in cf if r["case"].flows == flows]
            if not k:
                continue
            mib = k[0]["dupack"]["rss_kib"] / 1024
            extra = []
            if k[0]["ns2"]:
                extra.append(f"ns-2 {k[0]['ns2']['rss_kib'] / 1024:.1f} MiB in {k[0]['ns2']['wall']:.1f} s against "
                             f"dupack's {k[0]['dupack']['wall']:.2f} s")
            elif k[0].get("ns2_note"):
                extra.append(k[0]["ns2_note"])
            if k[0].get("ns3"):
                extra.append(f"ns-3 {k[0]['ns3']['rss_kib'] / 1024:.1f} MiB")
            out.append(
                f"- (c) {flows} flows in ≤ {limit_mb} MB peak memory: "
                f"**{'met' if mib * 1.048576 <= limit_mb else 'missed'}**: "
                f"{mib:.1f} MiB ({mib * 1.048576:.1f} MB) peak RSS" + (f"; {', '.join(extra)}." if extra else ".")
            )
    if sweep_res:
        rows = sweep_res["rows"]
        parts = []
        for r in rows:
            a_, s_ = r["split_api"], r["split_store"]
            parts.append(
                f"{r['duration']}: {100 * (a_['call'] - a_['core']) / a_['call']:.1f} % without the store, "
                f"{100 * (s_['call'] - s_['core']) / s_['call']:.0f} % with it, "
                f"{100 * (r['wall']['cli'] - r['wall']['rust']) / r['wall']['cli']:.0f} % through the CLI"
            )
        longest = rows[-1]
        ok_store = 100 * (longest["split_store"]["call"] - longest["split_store"]["core"]) / longest["split_store"]["call"] <= 5
        if "sweep_wall" in rows[0]:
            cross = {m: [100 * (r["sweep_wall"][m] - r["sweep_wall"]["rust"]) / r["sweep_wall"][m] for r in rows]
                     for m in sweep.SWEEP_METHODS}
            pair = {m: [sweep.paired_overhead(r, m) for r in rows] for m in ("sweep", "sweep+store")}
            have_pair = all(v is not None for v in pair["sweep+store"])
            # The paired measure where the run has it (see the sweep section), else the comparison with rust.
            judged = pair["sweep+store"] if have_pair else cross["sweep+store"]
            ok = all(v <= 5 for v in judged)
            met_from = [r["duration"] for r, v in zip(rows, judged) if v <= 5]

            def pct(vals: list) -> str:
                return " / ".join(f"{v:.1f} %" for v in vals)

            def run_us(r: dict) -> str:
                """Simulation time of one run: the bare sweep's wall time × workers ÷ runs."""
                p = r.get("sweep_paired")
                if not p:
                    return "few hundred µs"
                n = sweep.grid_runs(sweep_res, r, "sweep_wall")
                return f"{p['best']['bare'] * sweep_res['workers'] / n * 1e6:.0f} µs"

            out.append(
                f"- Python/PyO3/store overhead ≤ 5 % of a sweep for runs of ≥ 1 s simulated: "
                f"**{'met' if ok else 'missed'}** through `dupack.sweep(..., out=DIR)` "
                "(grids: " + ", ".join(f"{sweep.grid_runs(sweep_res, r, 'sweep_wall')} runs of {r['duration']}"
                                       for r in rows) + "). "
                + (
                    "Against a bare sweep of the same grid run alongside (median of the pairs), in memory / with "
                    "the Parquet store: "
                    + "; ".join(f"{r['duration']}: {pct([pair['sweep'][k], pair['sweep+store'][k]])}"
                                for k, r in enumerate(rows))
                    + ". Against a pure-Rust sweep measured separately (noisy: see the sweep section), in memory / "
                    "with the store / through `dupack sweep`: "
                    if have_pair else "Against a pure-Rust sweep of the same grid, in memory / with the Parquet "
                    "store / through `dupack sweep`: "
                )
                + "; ".join(
                    f"{r['duration']}: {pct([cross['sweep'][k], cross['sweep+store'][k], cross['cli-sweep'][k]])}"
                    for k, r in enumerate(rows)
                )
                + (f". Met from {met_from[0]} runs on" if met_from and not ok else "")
                + ". Where the time goes (profiles and timings of a sweep of 1 s runs): each worker turns its finished "
                "run into columns while the result is still in its cache, the first row of each table through serde "
                "(which makes the columns) and every later one by position (`Row::visit`: 2.5 µs a run for this "
                "scenario's 32 flow and link rows, against 3.7 µs through serde, "
                "crates/dupack-batch/benches/columns.rs; about 1 % of the sweep; by position since commit 2b597f7, "
                "after the figures above were measured: sweeps of 8000 one-second runs in memory against a bare "
                "sweep, four rounds of five pairs alternated with the code before, not by this benchmark, gave "
                "5.3 % against 5.9 %), "
                "the coordinating thread merges the workers' rows in job order (2–3 %: for 8000 one-second runs "
                "about 45 ms of its time, timed inside the core, of which about 25 ms are the kernel handing over "
                "the 66 MB of fresh memory the tables fill and 20 ms the copy; faulting that memory in with one "
                "call, MADV_POPULATE_WRITE, made it no cheaper), and Python builds the job, grid and seed columns "
                "and the DataFrames at the end (under 1 %). With the store, the sweep keeps no rows: each chunk's are handed "
                "to the store without a copy (and its tables read back from DIR when first asked for, so that a "
                "stored sweep holds a chunk's rows in memory, at most 2^18 of them, not all its runs': 166 against "
                "606 MiB peak RSS of `dupack sweep -q -o DIR` for 60,000 of these runs, measured with /usr/bin/time "
                "before and after the change, not by this benchmark) and "
                "encoded as Parquet, dictionary-encoded and compressed with Snappy (by the extension's writer when the grid has no columns, as here, which spares `dupack sweep` importing numpy and pyarrow; by pyarrow when it has, about a fifth faster per part: 340 against 417 ms for the parts of a 15,400-run grid in one profile). Measured with pyarrow: about 9 µs a run for this scenario's 33 rows of about 900 values, "
                "whatever the compression and dictionary settings (none, snappy, lz4, zstd: 8–11 µs), against "
                f"the {run_us(rows[0])} a one-second run of it simulates in; on two cores busy with two workers "
                "every µs of it is taken from the simulation; the faster the engine, the more these fixed "
                "per-run costs weigh. "
                "The last chunk's parts are written after the last run, while the other cores wait for them: toward its end a stored sweep's chunks halve, down to 20 ms of runs (commit 328d897), which, with a core the workers leave free (one worker on this machine, 4,000 one-second runs, alternated with the code before), took the overhead from 5.3–6.1 % to 2.6–4.2 %; with every core a worker's it changes nothing, the parts costing the same CPU wherever they are written. The extension's writer (arrow-rs) spends 9.8 µs a run on these parts (78 ms for the six parts of 8,000 one-second runs, timed on their own), a quarter of it the dictionary encoder hashing every value: without dictionaries 6.1 µs, but 2.3 times the bytes (6.8 against 2.9 MB), so they stay. "
                "Ten-second runs carry the same rows for ten times the "
                "simulation and are inside the target. What would close the rest at 1 s: fewer values to encode "
                "(the `links` table is more than half of them: 22 rows of 22 columns a run), or a Parquet writer that encodes a "
                "chunk's columns on an otherwise idle core, which this two-core machine does not have. "
                "One run at a time (`dupack.run`, per call: " + "; ".join(parts) + ") stays far from it: "
                "the JSON result, its tables and `RunResult.save()`'s five files cost milliseconds per run, and "
                "the CLI starts an interpreter per run."
            )
        else:
            out.append(
                f"- Python/PyO3/store overhead ≤ 5 % of a sweep for runs of ≥ 1 s simulated: "
                f"**{'met' if ok_store else 'missed'}** (one `dupack.run` per run); per call: {'; '.join(parts)}."
            )
    return out
