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
        "leaves recovery with a larger window. Traced case by case: with 2 and 3 drops and back-to-back, `cwnd_` "
        "has grown back only to 9, 8 and 9 on the ACK on which dupack, holding 10, resends the second hole "
        "(1.48474 s, 1.48482 s, 1.36617 s), and ns-2 resends it one ACK (10.4 ms) later; in queue-drops (and its "
        "limited-transmit and ns2-timer variants, the same to the microsecond) `cwnd_` is 13 against 20 at "
        "1.58474 s and the second hole goes three ACKs later (1.61594 s). With one drop no hole is left to resend "
        "and the larger exit window shows instead: ns-2 leaves recovery at 10.774 (12.887 in odd-window, after "
        "a window of 25) where dupack holds 10 (12), reaches 11.05 (13.04) on the ACK of segment 62 (66), where "
        "dupack has 10.297 (12.166), and sends the next segment one packet time earlier (1 drop: segment 73 at "
        "1.84233 s against 1.85273 s; IW 2: 73 at 1.64065 s against 1.65105 s; odd-window: 79 at 1.84856 s "
        "against 1.85896 s)."
    ),
    "exit_increase": (
        "**Configured away: window growth on the ACK that ends fast recovery (ns-2 departs from the RFC).** RFC "
        "5681 §3.2 (step 6) "
        "sets cwnd to ssthresh on the first ACK of new data after fast recovery (\"deflating\" the window), and "
        "RFC 6582 §3.2 (step 3, full acknowledgment) sets cwnd to min(ssthresh, FlightSize + SMSS) (or ssthresh); "
        "neither grows the window on that ACK. ns-2 does both and then also calls `opencwnd()` for the same ACK "
        "(traced: Reno's `cwnd_` is 10.1, not 10, at the full ACK; NewReno's goes 3 → 4 at once), so from there "
        "on ns-2 sends one segment earlier per window. dupack follows the RFCs. Traced case by case: NewReno "
        "with 2, 3 and 4 drops sets `cwnd_` to min(ssthresh_, FlightSize + 1) = 3 at the full ACK (1.83184 s, "
        "2.05432 s, 2.26640 s) and then to 4, back-to-back to 2 and then 3 (1.71744 s), where dupack keeps 3 "
        "(2), so ns-2 sends two segments on that ACK and dupack one; Reno with IW 2 goes 10 → 10.1 at the full "
        "ACK (1.40768 s) and reaches 11.05 on the ACK of segment 69 (1.71336 s), where dupack has 10.958 and "
        "waits a round trip for the next ACK (118 ms); Reno's odd-window goes 12.5 → 12.58 (1.62608 s; dupack "
        "keeps ns-2's 12.5 there, `timeout_ssthresh`) and reaches 13.05 on the ACK of segment 70 (1.89016 s), "
        "one ACK before dupack. The mirror sets `tcp.recovery_exit_growth = \"grow\"` (dupack's default follows "
        "the RFCs), which grows the window on that ACK as ns-2 does and, for NewReno's full ACK, leaves out RFC "
        "6582's floor of one segment under FlightSize as ns-2's `exit_recovery_fix_` does (`maxseq_ − seqno + "
        "1` packets: 1 when nothing is left outstanding, then 2 by the growth, RFC 6582's value); with it Reno "
        "and NewReno are packet-exact with 0–4 drops and in every case of our own but limited transmit "
        "(`lt_old_data`)."
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
        "duplicate ACKs, as snd_nxt is below snd_max. Reno and NewReno part the same way after the timeout of "
        "the limited-transmit case (2.74048 s): ns-2 resends segment 57 on the duplicate ACK at 3.17504 s (Reno, "
        "dupack at 3.37672 s) and segments 62 and 63 on the two at 2.81128 s and 2.82168 s (NewReno, dupack at "
        "3.01296 s); in both FlightSize (34 and 38 segments) is far above cwnd + 2 "
        "(5 and 4), so RFC 3042 allows no new segment."
    ),
    "unrounded_half_window": (
        "**Configured away: SACK goes on from the unrounded half window (ns-2 departs from RFC 6675).** On the fast "
        "retransmit ns-2's "
        "`Agent/TCP/Sack1` (`Sack1TcpAgent::dupack_action`, tcp-sack1.cc) calls `slowdown()` with the flags that "
        "halve both ssthresh and cwnd; with `precisionReduce_` (on in ns-2.35) `slowdown()` (tcp.cc) sets "
        "`cwnd_` to half of min(`cwnd_`, `window_`) *unrounded* and `ssthresh_` to it rounded down. The ACK that "
        "ends the recovery only calls `newack()`, which leaves `cwnd_` alone, so ns-2 goes on in congestion "
        "avoidance from up to half a segment above `ssthresh_`. RFC 6675 §5 (step 4.2) sets cwnd = ssthresh on "
        "entering recovery, and dupack's `sack` does so (with the mirror's `loss_ssthresh = \"window\"`, the half "
        "window in whole segments). "
        "Traced: odd-window (window 25) has `cwnd_` = 12.5, `ssthresh_` = 12 from the fast retransmit (1.39737 s) "
        "to the end of recovery (1.62608 s), where both tools send the same 12 segments; on the ACK of segment 71 "
        "(1.90056 s) `cwnd_` is 13.050, dupack's cwnd 12.571, and ns-2 sends segment 84 one packet time earlier "
        "(1.90056 s against 1.91096 s). queue-drops, limited-transmit and ns2-timer: the first fast retransmit "
        "halves a window capped at 40 to 20 exactly, and the runs stay exact through that recovery; the second "
        "(2.29422 s) halves `cwnd_` = 20.737 to 10.369 (`ssthresh_` 10, dupack 10), which reaches 11.026 on the "
        "ACK of segment 129 (2.66230 s; with limited transmit segment 131, 2.68328 s) where dupack has 10.68, so "
        "ns-2 sends segment 140 (142) on that ACK and dupack on the next, 56 ms (35 ms) later, the ACK clock "
        "having a gap there. The mirror's `loss_ssthresh = \"window\"` now leaves `sack`'s recovery at the "
        "unrounded half as it does Reno's (docs/scenario.md; the recovery still sends while pipe is below the "
        "whole segments, as ns-2's `pipe_ < window()`); with it SACK is packet-exact in all six cases of our "
        "own and with 0–4 drops."
    ),
}

# (variant, drops) -> (cause of the first divergence, verified); `LATER`
# lists the causes that part the series further on, where the first one
# only shifts times.
DIAGNOSIS: dict[tuple[str, int], tuple[str, bool]] = {
    # Every case traced variable by variable (the numbers are in CAUSES).
    # Reno's and NewReno's exit_increase is configured away.
    **{("fack", n): ("fack_restart", True) for n in range(1, 5)},
}

# The cases of our own design (validation/s1_fall_floyd.py OWN_CASES):
# (variant, case name) -> (cause, verified), as DIAGNOSIS.
OWN_DIAGNOSIS: dict[tuple[str, str], tuple[str, bool]] = {
    # Every case traced variable by variable (the numbers are in CAUSES).
    # SACK's, which looked like exit_increase, were unrounded_half_window,
    # now configured away: SACK is packet-exact in all of them.
    **{("fack", c): ("fack_restart", True)
       for c in ("odd-window", "back-to-back", "queue-drops", "iw2", "limited-transmit", "ns2-timer")},
    ("tahoe", "limited-transmit"): ("lt_old_data", True),
    ("reno", "limited-transmit"): ("lt_old_data", True),
    ("newreno", "limited-transmit"): ("lt_old_data", True),
}

LATER: dict[tuple[str, int], list[str]] = {}
