"""What the benchmark and the validation suite share: dupack's unit strings, scenario documents with
overrides (read and applied by dupack itself), and the ns-2 and ns-3 mirrors of a scenario.

The mirrors derive the parameters of bench/ns2/tcp_bench.tcl (ns-2.35) and bench/ns3/tcp_bench.cc (ns-3.44)
from the very TOML document dupack reads (after the same overrides), so a change to a scenario file changes
all sides. `Case` is one benchmark case: a scenario of bench/scenarios/, its overrides, and the three command
lines that run it. Scenario files are read through the dupack package (its core reads TOML and applies
overrides); the rest is standard library only.
"""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCEN = ROOT / "bench" / "scenarios"
NS2_SCRIPT = ROOT / "bench" / "ns2" / "tcp_bench.tcl"
NS3_SOURCE = ROOT / "bench" / "ns3" / "tcp_bench.cc"
HEADER_BYTES = 40  # IPv4 20 + TCP 20, both tools

# --------------------------------------------------------------------------
# Units, read by dupack's own parser (scenario::units), so a mirror reads a value as dupack does


def _unit(kind: str, text: str) -> float:
    from dupack import _core

    return _core.parse_unit(kind, text)


def rate(t: str) -> float:
    """bit/s."""
    return _unit("rate", t)


def seconds(t: str) -> float:
    return _unit("duration", t)


def size(t: str) -> int:
    """bytes."""
    return int(_unit("size", t))


# --------------------------------------------------------------------------
# Scenarios: TOML + overrides -> dupack arguments and ns-2 arguments


def toml_literal(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(v)  # a TOML basic string


def apply(doc: dict, overrides: dict) -> dict:
    """``doc`` with ``{dotted path: value}`` set, by dupack's own override rules (the core's
    ``scenario::document``, the same ``-s`` applies)."""
    from dupack.scenario import Scenario

    return Scenario.from_dict(doc).with_values(overrides).to_dict()


def document(path: Path, overrides: dict | None = None) -> dict:
    """The scenario file at ``path`` as dupack reads it, with ``overrides`` set."""
    from dupack.scenario import Scenario

    return apply(Scenario.from_toml(path.read_text(encoding="utf-8"), path).to_dict(), overrides or {})


def ns2_args(doc: dict) -> list[str]:
    """The ns-2 mirror of a bench scenario, key=value for tcp_bench.tcl."""
    tcp, rcv, topo = doc["tcp"], doc["receiver"], doc["topology"]
    rto = tcp["rto"]
    mss = size(tcp["mss"])
    window = size(rcv["window"])
    a = {
        "variant": tcp["variant"],
        "duration": seconds(doc["run"]["duration"]),
        "seed": doc["run"].get("seed", 1),
        "mss": mss,
        # ns-2's window_ is in packets; the bench windows are whole segments.
        "window": window // mss,
        "iw": tcp["initial_window"],
        "dupthresh": tcp["dupthresh"],
        "tick": seconds(rto["granularity"]),
        "minrto": seconds(rto["min"]),
        "initrto": seconds(rto["initial"]),
        "maxrto": seconds(rto["max"]),
        "sackblocks": rcv["max_sack_blocks"],
    }
    if seconds(tcp.get("overhead", "0s")) > 0:
        a["overhead"] = seconds(tcp["overhead"])
    # Every data packet of a greedy flow is a full segment, so the
    # per-packet loss probability of bit errors is one number.
    per_packet = lambda ber: {"loss": 1.0 - (1.0 - ber) ** (8 * (mss + HEADER_BYTES))}  # noqa: E731
    a.update(mirror_topology(topo, "tcp_bench.tcl", per_packet))
    return [f"{k}={v}" for k, v in a.items()]


# Variants with an ns-3 counterpart: dupack's name -> (the ns-3 programs' `variant`, ns-3's recovery), for
# the benchmark and validation/ns3peer.py alike. ns-3's TcpSocketBase always treats a partial ACK
# NewReno-style (it retransmits the next hole and stays in recovery), so there is no Reno; Tahoe, FACK and
# Vegas-as-dupack-runs-it are not mirrored either. With SACK on, ns-3 runs RFC 6675 (its scoreboard, IsLost,
# NextSeg and pipe in TcpTxBuffer) and, in every state, sends while cwnd exceeds pipe
# (TcpSocketBase::AvailableWindow), which before a recovery is RFC 6675 §5 step (3), Limited Transmit
# governed by pipe, whatever its LimitedTransmit attribute (that one only acts without SACK). So dupack's
# `rfc6675+lt` is its closest mirror: the benchmark pairs ns-3's SACK with it, and dupack's `sack` (Fall &
# Floyd's, ns-2's Sack1) with ns-2 only; the validation suite keeps `sack` against ns-3 as a labelled
# historical row. `rfc6675+prr+lt` is ns-3's default recovery, PRR (RFC 6937), with SACK.
NS3_MIRROR = {
    "newreno": ("newreno", "classic"),
    "sack": ("sack", "classic"),
    "rfc6675+lt": ("sack", "classic"),
    "rfc6675+prr+lt": ("sack", "prr"),
}


# ns-3's retransmission timer (TcpSocketBase), where it departs from 4.4BSD, Linux, ns-2 and dupack's
# defaults (docs/validation.md names each):
# - `ns3_rto_keep`: SendDataPacket schedules ReTxTimeout only when it is not running, and entering recovery
#   does not cancel it, so a fast retransmit leaves the deadline of the last ACK of new data (RFC 6298 §5.1
#   read literally); the others restart the timer with the retransmission.
# - `ns3_rto_collapse`: NewAck recomputes m_rto from the estimator whenever it restarts the timer, so the
#   ACK of a retransmission ends the backoff; RFC 6298 §5 keeps the backed-off RTO until a new RTT sample.
# - RttHistory: every segment sent once gives a sample when acknowledged (EstimateRtt), where BSD and ns-2
#   time one segment at a time.
# - `ns3_partial_ack_timer`: in recovery only the first partial ACK restarts the timer
#   (`NewAck(ackNumber, m_isFirstPartialAck)` in ProcessAck), RFC 6582's Impatient rule, for SACK recovery
#   too; RFC 6298 §5.3 restarts it at every ACK of new data.
# - `ns3_loss_exit_growth` (not a timer rule, but of the timeout's aftermath): the ACK that ends CA_LOSS
#   grows cwnd by the whole segments above m_recover only ((ackNumber - m_recover) / segmentSize in
#   ProcessAck), where RFC 5681 §3.1 grows it on every ACK of new data.
# - `ns3_exit_growth` (of the end of a recovery): `ProcessAck` calls `IncreaseWindow` on the ACK that ends an
#   RFC 6675 recovery once the state is CA_OPEN again, with the segments it newly delivered (`segsAcked` from
#   `currentDelivered`); RFC 6675 §5 leaves the window as the recovery left it.
# Cases run against ns-3 alone take all six (NS3_RTO in [tcp.rto], NS3_TCP in [tcp]); NewReno, which both
# peers run from one dupack case, keeps ns-2's rules (its partial ACKs reset the timer the first time in
# both, `newreno_rto_reset = "first"`).
NS3_RTO = {"on_fast_retransmit": "keep", "backoff_reset": "new_ack", "sampling": "per_segment"}
NS3_TCP = {"rfc6675_rto_reset": "first", "timeout_exit_growth": "above_recover", "rfc6675_exit_growth": "grow"}
# And ns-3's wire (`ns3_wire`, docs/validation.md "Traced on the dumbbell"): `DataRate::CalculateBytesTxTime`
# gives each frame its own duration rounded to the nearest nanosecond (`Time` from the exact quotient; printed
# by a program built against the wheel: 1042 B at 3 Mbit/s 2 778 667 ns), and `PointToPointNetDevice` puts a
# 2-byte PPP header on every frame. Together they make three bottleneck frames 1 ns longer than one access
# frame on the dumbbell, which decides who takes the queue's last place; [wire] in the cases run against ns-3
# alone.
NS3_WIRE = {"tx_time": "per_frame", "header": "2B"}


def ns3_overrides(variant: str) -> dict[str, str]:
    """Dotted-path overrides that give a case run against ns-3 alone ns-3's timer rules and its wire (NS3_RTO,
    NS3_TCP, NS3_WIRE)."""
    if not ns3_only(variant):
        return {}
    return {**{f"tcp.rto.{k}": v for k, v in NS3_RTO.items()}, **{f"tcp.{k}": v for k, v in NS3_TCP.items()},
            **{f"wire.{k}": v for k, v in NS3_WIRE.items()}}


# ns-2's Sack1 clears `recover_` when fast recovery ends (tcp-sack1.cc, `Sack1TcpAgent::recv`: `recover_ = 0`
# on the ACK that ends it), so the next three duplicate ACKs may start a new recovery at once, where dupack's
# `sack` keeps RFC 6582's guard by default. The papers leave it open (unfairness §IV) and RFC 6675 §5's guard
# allows it, so the cases of `sack`, which are run against ns-2, take ns-2's choice (`ns2_sack_recover_reset`
# in docs/validation.md): at N = 40, p = 5 % on the dumbbell it brings dupack's fast retransmits from 2354 to
# 2393, ns-2's 2392, and its timeouts from 833 to 809, ns-2's 755 (ten seeds).
NS2_SACK = {"sack_recover_after_exit": "cleared"}
# And ns-2's `TCPSink/Sack1` sizes an ACK as 40 bytes plus 8 per SACK block, without the option's kind and
# length bytes and the padding to a 32-bit word (RFC 2018 §3), 4 bytes less than dupack's by default (the
# `ack_size` divergence of docs/validation.md, scenario 1): the `[receiver]` key of the same cases.
NS2_SACK_RECEIVER = {"sack_option_size": "ns2"}


def mirror_overrides(variant: str) -> dict[str, str]:
    """Dotted-path overrides that give a case its peer's rules where the papers and RFCs leave a choice or
    the peer departs from them: ns-3's timer rules for the cases run against ns-3 alone
    (ns3_overrides), ns-2's `Sack1` guard and ACK size for Fall & Floyd's SACK (NS2_SACK, NS2_SACK_RECEIVER)."""
    ns2: dict[str, str] = {}
    if variant.split("+")[0] == "sack":
        ns2 = {**{f"tcp.{k}": v for k, v in NS2_SACK.items()},
               **{f"receiver.{k}": v for k, v in NS2_SACK_RECEIVER.items()}}
    return {**ns3_overrides(variant), **ns2}


def ns3_only(variant: str) -> bool:
    """Variants the suites run against ns-3 alone: RFC 6675 (`rfc6675…`, ns-3's SACK) and CUBIC; NewReno
    and Fall & Floyd's SACK are run against ns-2 as well."""
    return variant.startswith("rfc6675") or "cc=cubic" in variant


def ns3_args(doc: dict) -> list[str]:
    """The ns-3 mirror of a bench scenario, key=value for tcp_bench.cc."""
    tcp, rcv, topo = doc["tcp"], doc["receiver"], doc["topology"]
    rto = tcp["rto"]
    a = {
        # Another variant passes as it is: validation/ns3peer.py sets the program's variant, recovery and
        # congestion control itself (CUBIC, PRR), and tcp_bench.cc refuses a variant it does not know.
        "variant": NS3_MIRROR.get(tcp["variant"], (tcp["variant"],))[0],
        "duration": seconds(doc["run"]["duration"]),
        "seed": doc["run"].get("seed", 1),
        "mss": size(tcp["mss"]),
        "window": size(rcv["window"]),  # bytes: the receive buffer
        "iw": tcp["initial_window"],
        "dupthresh": tcp["dupthresh"],
        "tick": seconds(rto["granularity"]),
        "minrto": seconds(rto["min"]),
        "initrto": seconds(rto["initial"]),
    }
    assert rcv.get("max_sack_blocks", 3) >= 3 and seconds(rto["max"]) == 60.0, "ns-3 fixes 60 s max RTO"
    # ns-3 applies the BER to each packet's own IP size (tcp_bench.cc).
    a.update(mirror_topology(topo, "tcp_bench.cc", lambda ber: {"ber": ber}))
    return [f"{k}={v}" for k, v in a.items()]


def mirror_topology(topo: dict, program: str, ber_loss) -> dict:
    """The topology keys both mirror programs take: a dumbbell with Bernoulli loss on the access links, or one
    link with bit errors (`ber_loss(ber)` says how the program wants those)."""
    if topo["kind"] == "dumbbell":
        acc, bn = topo["access"], topo["bottleneck"]
        err = acc.get("fwd_error", {"model": "none"})
        assert err["model"] in ("none", "bernoulli") and err.get("applies_to", "data") == "data"
        return dict(
            topo="dumbbell",
            n=topo["senders"],
            access_rate=rate(acc["rate"]),
            access_delay=seconds(acc["delay"]),
            access_q=acc["queue"]["limit_packets"],
            bneck_rate=rate(bn["rate"]),
            bneck_delay=seconds(bn["delay"]),
            bneck_q=bn["queue"]["limit_packets"],
            loss=err.get("p", 0.0),
        )
    if topo["kind"] == "chain" and len(topo["hops"]) == 1:
        hop = topo["hops"][0]
        err = hop["fwd_error"]
        assert err["model"] == "ber" and err.get("applies_to", "data") == "data"
        return dict(
            topo="link",
            n=1,
            bneck_rate=rate(hop["rate"]),
            bneck_delay=seconds(hop["delay"]),
            bneck_q=hop["queue"]["limit_packets"],
            **ber_loss(err["ber"]),
        )
    raise ValueError(f"{program} mirrors dumbbells and one-hop chains only")


# --------------------------------------------------------------------------
# Results and cases


def jain(xs: list[float]) -> float:
    s, s2 = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * s2) if s2 > 0 else float("nan")


class Case:
    """One benchmark case: a scenario of bench/scenarios/ with overrides, and the command lines that run it
    through dupack's `bench_scenario`, the ns-2 mirror and the ns-3 mirror."""

    def __init__(self, group: str, label: str, scenario: str, overrides: dict, ns2: bool = True,
                 ns3: bool = True, ns2_timeout: float | None = None, ns3_note: str | None = None,
                 ns2_routing: str = "static"):
        self.group, self.label, self.scenario, self.overrides, self.ns2 = group, label, scenario, overrides, ns2
        # tcp_bench.tcl's `routing`: "static" (ns-2's default, all pairs computed before the run) or "manual"
        # (the same routes given explicitly, for the case too large for the former).
        self.ns2_routing = ns2_routing
        # ns3=False: not run through ns-3, for the reason `ns3_note` gives the report (None: the case has a
        # twin that ns-3 is compared with instead, and the report says nothing); ns2_timeout: this case's own
        # limit for one ns-2 run, above the command line's.
        self.ns3, self.ns2_timeout, self.ns3_note = ns3, ns2_timeout, ns3_note
        self.doc = document(SCEN / scenario, overrides)
        self.duration = seconds(self.doc["run"]["duration"])
        self.mss = size(self.doc["tcp"]["mss"])
        topo = self.doc["topology"]
        self.flows = topo["senders"] if topo["kind"] == "dumbbell" else 1

    def dupack_cmd(self, exe: Path, duration: str | None = None) -> list[str]:
        ov = dict(self.overrides, **({"run.duration": duration} if duration else {}))
        return [str(exe), str(SCEN / self.scenario)] + [f"{k}={toml_literal(v)}" for k, v in ov.items()]

    def ns2_cmd(self, duration: float | None = None) -> list[str]:
        args = ns2_args(self.doc)
        if duration is not None:
            args = [a for a in args if not a.startswith("duration=")] + [f"duration={duration}"]
        if self.ns2_routing != "static":
            args.append(f"routing={self.ns2_routing}")
        return ["ns", str(NS2_SCRIPT)] + args

    def ns3_cmd(self, exe: Path, duration: float | None = None) -> list[str]:
        args = ns3_args(self.doc)
        if duration is not None:
            args = [a for a in args if not a.startswith("duration=")] + [f"duration={duration}"]
        return [str(exe)] + args
