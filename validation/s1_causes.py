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
        "**Configured away: ACK size with SACK blocks (ns-2 departs from the RFC).** ns-2's `TCPSink/Sack1` sizes an "
        "ACK as 40 bytes plus 8 per SACK block (48 bytes with one block), leaving out the option's kind and length "
        "bytes (RFC 2018 §3: kind 5, length 2 + 8·n) and the padding to a whole 32-bit word that the TCP header "
        "needs (RFC 793 §3.1, data offset); dupack sends the option as specified (52 bytes with one block) by "
        "default. The 4 extra bytes cross the 0.8 Mbit/s and 8 Mbit/s links in 44 µs, so every ACK carrying SACK "
        "blocks arrived 44 µs later in dupack, and so did the transmissions it clocks. The mirror sets "
        "`receiver.sack_option_size = \"ns2\"` (8 bytes per block) for `sack` and `fack`; with it SACK is "
        "packet-exact with 0–4 drops."
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
        "**Configured away: window arithmetic in bytes.** By default dupack grows cwnd in congestion avoidance by "
        "⌊SMSS·SMSS/cwnd⌋ whole bytes per ACK (RFC 5681 §3.1, eq. 3, as BSD does); ns-2 keeps `cwnd_` in packets "
        "as a double and adds 1/cwnd_, so from 10 segments it reaches 14 one ACK (one 10.4 ms packet time) "
        "earlier. RFC 5681 allows both. The mirror sets `tcp.ca_increase = \"fractional\"`, which carries the "
        "fraction to the next ACK as ns-2 does; with it Tahoe (1–4 drops) and NewReno (1 drop) are packet-exact."
    ),
    "timeout_ssthresh": (
        "**Configured away: ssthresh after a loss.** By default dupack sets ssthresh = max(FlightSize/2, 2·SMSS) "
        "(RFC 5681 eq. 4): 9 segments at the timeout of Reno with 2–4 drops, 18 being outstanding; ns-2's "
        "`slowdown()` halves min(cwnd_, window_) in whole packets (RFC 2001 §3, as 4.4BSD), and cwnd_ had already "
        "been cut to 10 by the fast retransmit, giving 5. RFC 5681 asks for ssthresh *no more than* eq. 4, so "
        "both comply. The mirror sets `tcp.loss_ssthresh = \"window\"`; with it Reno with 2–4 drops is "
        "packet-exact. The same setting also leaves Reno's fast recovery at ns-2's window: `slowdown()` sets "
        "`cwnd_` to half the window *unrounded* (and ssthresh to it rounded down), and the deflation zeroes only "
        "the inflation (`dupwnd_`), so after a window of 25 segments ns-2 goes on from 12.5 where RFC 5681 step 6 "
        "gives ssthresh = 12. In the odd-window case this takes the largest time difference from 98 ms to one "
        "packet time (10.4 ms, the `exit_increase` that remains)."
    ),
    "lt_old_data": (
        "**ns-2 departs from the RFC: limited transmit sends old data.** RFC 3042 §2 lets a sender answer each "
        "of the first two duplicate ACKs with a segment of *previously unsent* data. ns-2's `singledup_` sends "
        "`t_seqno_`, the next segment in its send sequence, which after the go-back-N of Tahoe's fast retransmit "
        "or of a timeout is a segment already sent: in slow start after the loss, every duplicate ACK clocks out "
        "one more retransmission in ns-2 (traced with Tahoe: ns-2 resends segment 55 on the duplicate ACK at "
        "1.96296 s, dupack with the next window at 2.16464 s). dupack follows the RFC and sends nothing on those "
        "duplicate ACKs, as snd_nxt is below snd_max."
    ),
}

# (variant, drops) -> (cause of the first divergence, verified); `LATER`
# lists the causes that part the series further on, where the first one
# only shifts times.
DIAGNOSIS: dict[tuple[str, int], tuple[str, bool]] = {
    # Traced with 4 drops (the text of fack_restart); the others show the
    # same pattern (ns-2 resends a hole a few packet times later, or sends
    # new data one packet time earlier after its larger exit window).
    **{("fack", n): ("fack_restart", n == 4) for n in range(1, 5)},
    ("reno", 1): ("exit_increase", True),
    ("newreno", 2): ("exit_increase", True),
    ("newreno", 3): ("exit_increase", False),
    ("newreno", 4): ("exit_increase", False),
}

# The cases of our own design (validation/s1_fall_floyd.py OWN_CASES):
# (variant, case name) -> (cause, verified), as DIAGNOSIS.
OWN_DIAGNOSIS: dict[tuple[str, str], tuple[str, bool]] = {
    # With ns-2's ACK size mirrored, SACK's first divergence in these is
    # ns-2 sending one packet time earlier after a recovery (as
    # exit_increase), FACK's that of fack_restart; not traced one by one.
    **{("sack", c): ("exit_increase", False) for c in ("odd-window", "queue-drops", "limited-transmit", "ns2-timer")},
    **{("fack", c): ("fack_restart", False)
       for c in ("odd-window", "back-to-back", "queue-drops", "iw2", "limited-transmit", "ns2-timer")},
    ("reno", "odd-window"): ("exit_increase", False),
    ("reno", "iw2"): ("exit_increase", False),
    ("newreno", "back-to-back"): ("exit_increase", False),
    ("tahoe", "limited-transmit"): ("lt_old_data", True),
    ("reno", "limited-transmit"): ("lt_old_data", False),
    ("newreno", "limited-transmit"): ("lt_old_data", False),
}

LATER: dict[tuple[str, int], list[str]] = {}
