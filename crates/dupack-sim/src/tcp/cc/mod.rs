//! Congestion control: window growth on new ACKs and the multiplicative
//! decrease applied when a loss is detected (RFC 5681 §3.1).
//!
//! Growth is per ACK, not per byte: slow start adds `min(acked, SMSS)` and
//! congestion avoidance `SMSS·SMSS/cwnd` (RFC 5681 eq. 2 and 3), which with
//! one ACK per segment is the per-packet `cwnd += 1` / `cwnd += 1/cwnd` of
//! the BSD stacks and of ns-2 that the papers used.

/// RFC 5681 §3.1: slow start while `cwnd < ssthresh`, congestion avoidance
/// otherwise; `cwnd` never exceeds `max_cwnd`.
pub fn grow(cwnd: u64, ssthresh: u64, acked: u64, mss: u64, max_cwnd: u64) -> u64 {
    let inc = if cwnd < ssthresh {
        acked.min(mss)
    } else {
        // At least one byte, so that a huge cwnd still grows (RFC 5681 eq. 3 note).
        (mss * mss / cwnd.max(1)).max(1)
    };
    cwnd.saturating_add(inc).min(max_cwnd)
}

/// RFC 5681 eq. 4: `ssthresh = max(FlightSize / 2, 2·SMSS)`.
pub fn halve(flight_size: u64, mss: u64) -> u64 {
    (flight_size / 2).max(2 * mss)
}

/// BSD's and ns-2's rule (RFC 2001 §3): half the window
/// `min(cwnd, rwnd)`, in whole segments, at least two.
pub fn halve_window(window: u64, mss: u64) -> u64 {
    (window / mss / 2).max(2) * mss
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn rfc5681_slow_start_adds_at_most_one_mss() {
        assert_eq!(grow(1000, u64::MAX, 1000, 1000, u64::MAX), 2000);
        assert_eq!(grow(1000, u64::MAX, 3000, 1000, u64::MAX), 2000);
        assert_eq!(grow(1000, u64::MAX, 500, 1000, u64::MAX), 1500);
    }
    #[test]
    fn rfc5681_congestion_avoidance_adds_mss_squared_over_cwnd() {
        assert_eq!(grow(10_000, 5_000, 1000, 1000, u64::MAX), 10_100);
        assert_eq!(grow(10_000, 5_000, 1000, 1000, 10_050), 10_050);
    }
    #[test]
    fn rfc5681_eq4_halves_flight_with_a_floor_of_two_segments() {
        assert_eq!(halve(20_000, 1000), 10_000);
        assert_eq!(halve(3_000, 1000), 2_000);
    }
    #[test]
    fn bsd_halves_the_window_in_whole_segments() {
        assert_eq!(halve_window(10_500, 1000), 5_000);
        assert_eq!(halve_window(11_999, 1000), 5_000);
        assert_eq!(halve_window(3_000, 1000), 2_000);
    }
}
