"""Why dupack and ns-2 part in scenario 1: the diagnosis of each case.

Each entry was found by reading both traces at the first divergence, with
ns-2's cwnd_ and ssthresh_ traced by validation/ns2/fall_floyd.tcl.
`verified` cases were traced variable by variable; the others show the
same signature at their first divergence (which packet, which tool is
ahead, by how much) and are listed under the same cause.
"""

from __future__ import annotations

CAUSES: dict[str, str] = {
    "ack_size": (
        "**Model difference: ACK size with SACK blocks.** ns-2's `TCPSink/Sack1` sizes an ACK as 40 bytes plus "
        "8 per SACK block (48 bytes with one block); dupack adds the whole option of RFC 2018 §3 — kind and "
        "length bytes, 8 bytes per block, padded to a multiple of 4 (52 bytes with one block). The 4 extra bytes "
        "cross the 0.8 Mbit/s and 8 Mbit/s links in 44 µs, so every ACK carrying SACK blocks arrives 44 µs later "
        "in dupack, and so do the transmissions it clocks. Sends, retransmissions and events are otherwise the "
        "same packets until the window arithmetic parts them (the causes listed after `ack_size`)."
    ),
    "fack_restart": (
        "**ns-2 departs from the FACK paper: the window restarts at one segment in recovery.** On entering "
        "recovery ns-2's `Agent/TCP/Fack` calls `slowdown()` with the flags that set ssthresh to half the window "
        "and restart cwnd_ at 1, and then opens the window (`opencwnd()`) on every ACK of the recovery "
        "(traced with 4 drops: cwnd_ = 1 at the fast retransmit, 2, 3, … 10 by 1.516 s, then 10.1, 10.2, … still "
        "in recovery). Mathis & Mahdavi 1996 (and the unfairness paper's §IV, which dupack follows) halve cwnd "
        "on entry and hold it during recovery, sending while snd.nxt − snd.fack + retran_data < cwnd. So ns-2 "
        "resends the second hole two ACKs later than dupack (1.50562 s against 1.48487 s with 4 drops) and "
        "leaves recovery with a larger window."
    ),
    "exit_increase": (
        "**ns-2 departs from the RFC: window growth on the ACK that ends fast recovery.** RFC 5681 §3.2 (step 6) "
        "sets cwnd to ssthresh on the first ACK of new data after fast recovery (\"deflating\" the window), and "
        "RFC 6582 §3.2 (step 3, full acknowledgment) sets cwnd to min(ssthresh, FlightSize + SMSS) (or ssthresh); "
        "neither grows the window on that ACK. ns-2 does both and then also calls `opencwnd()` for the same ACK "
        "(traced: Reno's `cwnd_` is 10.1, not 10, at the full ACK; NewReno's goes 3 → 4 at once), so from there "
        "on ns-2 sends one segment earlier per window. dupack follows the RFCs."
    ),
    "ca_rounding": (
        "**Model difference: window arithmetic in bytes.** dupack keeps cwnd in bytes and grows it in congestion "
        "avoidance by ⌊SMSS·SMSS/cwnd⌋ per ACK (RFC 5681 §3.1, eq. 3, in integer bytes); ns-2 keeps `cwnd_` in "
        "packets as a double and adds 1/cwnd_. From 10 segments, ns-2 reaches 14 after 48 ACKs and dupack after "
        "49, so ns-2 sends its extra segment one ACK (one 10.4 ms packet time) earlier."
    ),
    "timeout_ssthresh": (
        "**Model difference: ssthresh after a timeout.** At the timeout 18 segments are outstanding; dupack sets "
        "ssthresh = FlightSize/2 = 9 segments (RFC 5681 §3.1 eq. 4, which §3.1 applies on RTO); ns-2's "
        "`slowdown()` halves min(cwnd_, window_), and cwnd_ had already been cut to 10 by the fast retransmit, "
        "giving 5. RFC 5681 asks for ssthresh *no more than* eq. 4, so both comply; ns-2 leaves slow start "
        "at 5 segments and dupack at 9, and dupack sends two segments per ACK where ns-2 sends one."
    ),
}

# (variant, drops) -> (cause of the first divergence, verified); `LATER`
# lists the causes that part the series further on, where the first one
# only shifts times.
DIAGNOSIS: dict[tuple[str, int], tuple[str, bool]] = {
    **{("sack", n): ("ack_size", n == 1) for n in range(1, 5)},
    **{("fack", n): ("ack_size", n == 1) for n in range(1, 5)},
    ("reno", 1): ("exit_increase", True),
    ("newreno", 2): ("exit_increase", True),
    ("newreno", 3): ("exit_increase", False),
    ("newreno", 4): ("exit_increase", False),
    ("tahoe", 1): ("ca_rounding", True),
    ("tahoe", 2): ("ca_rounding", False),
    ("tahoe", 3): ("ca_rounding", False),
    ("tahoe", 4): ("ca_rounding", False),
    ("newreno", 1): ("ca_rounding", False),
    ("reno", 2): ("timeout_ssthresh", True),
    ("reno", 3): ("timeout_ssthresh", True),
    ("reno", 4): ("timeout_ssthresh", True),
}

LATER: dict[tuple[str, int], list[str]] = {
    # Traced for 1 and 4 drops: ns-2's cwnd_ reaches 14.012 one ACK before
    # dupack's 14 segments, after its recovery-exit increase.
    **{("sack", n): ["exit_increase", "ca_rounding"] for n in range(1, 5)},
    **{("fack", n): ["fack_restart"] for n in range(1, 5)},
}
