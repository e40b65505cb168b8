//! Trace-driven link directions: mahimahi delivery-opportunity traces.
//!
//! A trace file (the format of mahimahi's `mm-link`, Netravali et al.,
//! USENIX ATC 2015) lists one integer millisecond timestamp per line; each
//! line is one *delivery opportunity* of `mtu` bytes. The schedule repeats
//! with the last timestamp as its period, so opportunity `k` of a trace of
//! `n` lines and period `P` happens at `⌊k/n⌋·P + t[k mod n]`, counted from
//! the start of the run. Several lines with the same timestamp are several
//! opportunities at that instant.
//!
//! Bytes, as in mahimahi: an opportunity carries up to `mtu` bytes of the
//! packets waiting at its instant, in queue order. A packet smaller than the
//! opportunity leaves the rest to the packets behind it; a packet larger
//! than what is left takes bytes from as many opportunities as it needs and
//! leaves (is "transmitted") at the instant of the last. Bytes of an
//! opportunity that nothing waits for are lost. Propagation delay applies
//! after that, as on a rate-driven link.

use crate::scenario::model::TraceSpec;
use crate::time::SimTime;
use std::sync::Arc;

/// Largest timestamp accepted in a trace file, in ms (about 31 years), so
/// that every instant fits in `u64` nanoseconds with room for many periods.
pub const MAX_TRACE_MS: u64 = 1_000_000_000_000;

/// Parse the text of a trace file: its opportunity timestamps in ms.
/// On error: the 1-based line number and what is wrong with it.
pub fn parse_trace(text: &str) -> Result<Vec<u64>, (usize, String)> {
    let mut out: Vec<u64> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let n = i + 1;
        if line.is_empty() {
            return Err((n, "empty line; every line must hold one timestamp in milliseconds".into()));
        }
        let ms = match line.parse::<u64>() {
            Ok(ms) if line.bytes().all(|b| b.is_ascii_digit()) && ms <= MAX_TRACE_MS => ms,
            Ok(ms) => return Err((n, format!("timestamp {ms} is too large (at most {MAX_TRACE_MS} ms)"))),
            Err(_) if line.bytes().all(|b| b.is_ascii_digit()) => {
                return Err((n, format!("timestamp {line} is too large (at most {MAX_TRACE_MS} ms)")))
            }
            Err(_) => return Err((n, format!("expected a whole number of milliseconds (digits only), got {line:?}"))),
        };
        if let Some(&prev) = out.last() {
            if ms < prev {
                return Err((
                    n,
                    format!("timestamp {ms} is smaller than the one before it ({prev}); timestamps must not decrease"),
                ));
            }
        }
        out.push(ms);
    }
    match out.last() {
        None => Err((0, "the trace is empty; it needs at least one timestamp".into())),
        Some(0) => Err((out.len(), "the last timestamp is the trace's period and must be greater than 0".into())),
        Some(_) => Ok(out),
    }
}

/// Largest trace file read by default, in bytes (256 MiB: some 30 million
/// lines, hours of a fast cellular link). `DUPACK_MAX_TRACE_BYTES` raises
/// or lowers it.
pub const DEFAULT_MAX_TRACE_BYTES: u64 = 256 << 20;

/// The size limit for trace files: `DUPACK_MAX_TRACE_BYTES` if it is set to
/// a whole number of bytes, else [`DEFAULT_MAX_TRACE_BYTES`].
pub fn max_trace_bytes() -> u64 {
    std::env::var("DUPACK_MAX_TRACE_BYTES")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_MAX_TRACE_BYTES)
}

/// What a file that is not a regular file is, for messages.
fn file_kind(ft: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Read and check a trace file. The message names the file and, for a bad
/// line, its number.
///
/// Only a regular file of at most [`max_trace_bytes`] is read: the type and
/// size are checked before opening (a FIFO is never opened, `/dev/zero` is
/// never read), and again on the open file, which is read no further than
/// the limit (a file that grows meanwhile is refused too). The file name is
/// quoted shortened and with control characters escaped.
pub fn read_trace(path: &str) -> Result<Vec<u64>, String> {
    read_trace_limited(path, max_trace_bytes())
}

/// [`read_trace`] with an explicit size limit in bytes.
pub fn read_trace_limited(path: &str, limit: u64) -> Result<Vec<u64>, String> {
    use std::io::Read;
    let shown = crate::scenario::parse::quote_path(path);
    let cannot = |e: std::io::Error| format!("cannot read trace file {shown}: {e}");
    let too_big = |size: String| {
        format!(
            "trace file {shown} is too large ({size}); trace files may be at most {limit} bytes \
             (set DUPACK_MAX_TRACE_BYTES to raise the limit)"
        )
    };
    let check = |meta: &std::fs::Metadata| -> Result<(), String> {
        if !meta.is_file() {
            return Err(format!(
                "trace file {shown} is {}; trace files must be regular files",
                file_kind(meta.file_type())
            ));
        }
        if meta.len() > limit {
            return Err(too_big(format!("{} bytes", meta.len())));
        }
        Ok(())
    };
    check(&std::fs::metadata(path).map_err(cannot)?)?;
    let file = std::fs::File::open(path).map_err(cannot)?;
    check(&file.metadata().map_err(cannot)?)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() as u64 > limit {
        return Err(too_big("it grew while being read".into()));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("trace file {shown} is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))?;
    parse_trace(&text).map_err(|(line, m)| match line {
        0 => format!("trace file {shown}: {m}"),
        l => format!("trace file {shown}, line {l}: {m}"),
    })
}

/// The delivery schedule of one link direction and how far it has been used.
#[derive(Clone, Debug)]
pub struct TraceLink {
    /// Opportunity instants within one period, in ns.
    at_ns: Arc<[u64]>,
    period_ns: u64,
    mtu: u32,
    /// The first opportunity no packet has taken bytes from.
    next: u64,
    /// Bytes left in the opportunity before `next`, usable only at its
    /// instant `carry_at` by packets waiting then.
    carry: u32,
    carry_at: SimTime,
}

impl TraceLink {
    pub fn new(spec: &TraceSpec) -> Self {
        let at_ns: Arc<[u64]> = spec.opportunities_ms.iter().map(|&ms| ms * 1_000_000).collect();
        let period_ns = *at_ns.last().expect("traces are checked to be non-empty");
        debug_assert!(period_ns > 0);
        TraceLink { at_ns, period_ns, mtu: spec.mtu, next: 0, carry: 0, carry_at: SimTime::ZERO }
    }

    fn len(&self) -> u64 {
        self.at_ns.len() as u64
    }

    /// Instant of opportunity `k`.
    pub fn instant(&self, k: u64) -> SimTime {
        let n = self.len();
        SimTime((k / n) * self.period_ns + self.at_ns[(k % n) as usize])
    }

    /// The first opportunity at or after `t`.
    fn first_at_or_after(&self, t: SimTime) -> u64 {
        let t = t.as_nanos();
        let cycle = t / self.period_ns;
        let r = t - cycle * self.period_ns;
        if r == 0 && cycle > 0 {
            // The previous period's last opportunities fall on this instant.
            let i = self.at_ns.partition_point(|&x| x < self.period_ns) as u64;
            return (cycle - 1) * self.len() + i;
        }
        // The last instant of a period is the period itself, > r: i < n.
        let i = self.at_ns.partition_point(|&x| x < r) as u64;
        cycle * self.len() + i
    }

    /// A packet of `size` bytes is at the head of the queue at `now`:
    /// take its bytes from the opportunities from `now` on and return the
    /// instant its last byte leaves.
    pub fn serve(&mut self, size: u32, now: SimTime) -> SimTime {
        let mut left = size;
        if self.carry > 0 && self.carry_at == now {
            let used = left.min(self.carry);
            self.carry -= used;
            left -= used;
            if left == 0 {
                return now;
            }
        }
        let mut k = self.next.max(self.first_at_or_after(now));
        loop {
            let used = left.min(self.mtu);
            left -= used;
            if left == 0 {
                let at = self.instant(k);
                self.next = k + 1;
                self.carry = self.mtu - used;
                self.carry_at = at;
                return at;
            }
            k += 1;
        }
    }

    /// Mean capacity over a period, in bits/s (rounded down, at least 1).
    pub fn mean_rate_bps(&self) -> u64 {
        let bits = self.len() as u128 * self.mtu as u128 * 8 * 1_000_000_000;
        u64::try_from(bits / self.period_ns as u128).unwrap_or(u64::MAX).max(1)
    }

    /// Bytes offered by the opportunities at or before `t`.
    pub fn capacity_until(&self, t: SimTime) -> u64 {
        let after = self.first_at_or_after(SimTime(t.0 + 1));
        after * self.mtu as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::ms;

    fn link(ts: &[u64], mtu: u32) -> TraceLink {
        TraceLink::new(&TraceSpec { file: "t".into(), mtu, opportunities_ms: ts.to_vec().into() })
    }
    fn at(millis: u64) -> SimTime {
        SimTime::ZERO + ms(millis)
    }

    #[test]
    fn parse_accepts_mahimahi_lines_and_rejects_bad_ones() {
        assert_eq!(parse_trace("1\n1\n3\n4\n"), Ok(vec![1, 1, 3, 4]));
        assert_eq!(parse_trace("0\r\n5\r\n"), Ok(vec![0, 5]), "CRLF and a leading 0 are fine");
        assert_eq!(parse_trace("").unwrap_err().0, 0);
        let bad = |t: &str| parse_trace(t).unwrap_err();
        assert_eq!(bad("1\n2.5\n").0, 2);
        assert!(bad("1\n2.5\n").1.contains("whole number of milliseconds"));
        assert!(bad("1\n-3\n").1.contains("\"-3\""));
        assert!(bad("1\n\n3\n").1.contains("empty line"));
        let (line, m) = bad("5\n7\n6\n");
        assert_eq!(line, 3);
        assert!(m.contains("6 is smaller than the one before it (7)"), "{m}");
        assert!(bad("0\n0\n").1.contains("period and must be greater than 0"));
        assert!(bad("99999999999999999999999\n").1.contains("too large"));
    }

    #[test]
    fn schedule_repeats_with_the_last_timestamp_as_period() {
        let t = link(&[1, 1, 3, 4], 1500);
        let got: Vec<SimTime> = (0..9).map(|k| t.instant(k)).collect();
        let want: Vec<SimTime> = [1, 1, 3, 4, 5, 5, 7, 8, 9].iter().map(|&m| at(m)).collect();
        assert_eq!(got, want);
        assert_eq!(t.mean_rate_bps(), 4 * 1500 * 8 * 1000 / 4);
        assert_eq!(t.capacity_until(at(0)), 0);
        assert_eq!(t.capacity_until(at(1)), 2 * 1500);
        assert_eq!(t.capacity_until(at(8)), 8 * 1500);
    }

    #[test]
    fn bytes_are_shared_within_an_opportunity_and_unused_ones_are_lost() {
        let mut t = link(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 1500);
        // A full packet takes the next opportunity at or after its arrival.
        assert_eq!(t.serve(1500, at(0)), at(1));
        // Two 700-byte packets waiting at 2 ms share the 2 ms opportunity.
        assert_eq!(t.serve(700, at(1)), at(2));
        assert_eq!(t.serve(700, at(2)), at(2));
        // The third does not fit in the 100 bytes left: it ends at 3 ms.
        assert_eq!(t.serve(700, at(2)), at(3));
        // Left-over bytes of the 3 ms opportunity are gone at 3.5 ms.
        assert_eq!(t.serve(700, at(3) + crate::time::us(500)), at(4));
        // A packet of 4000 bytes needs three opportunities.
        assert_eq!(t.serve(4000, at(4)), at(7));
        // Idle for a long time: no opportunity is saved up.
        assert_eq!(t.serve(1500, at(95) + crate::time::us(1)), at(96));
        // An opportunity exactly at the arrival instant is used, also the
        // one at a period boundary.
        assert_eq!(t.serve(1500, at(100)), at(100));
        assert_eq!(t.serve(1500, at(100)), at(101));
        let mut t = link(&[0, 2, 2], 1500);
        assert_eq!(t.serve(1500, at(2)), at(2));
        assert_eq!(t.serve(1500, at(2)), at(2));
        assert_eq!(t.serve(1500, at(2)), at(2), "period end and next period's 0 coincide");
        assert_eq!(t.serve(1500, at(2)), at(4));
    }

    #[test]
    fn opportunities_are_found_from_any_instant() {
        let t = link(&[0, 3, 3, 7, 10], 1500);
        // Brute force over three periods, every 0.5 ms.
        for half in 0..60u64 {
            let now = SimTime(half * 500_000);
            let want = (0..100).find(|&k| t.instant(k) >= now).unwrap();
            assert_eq!(t.first_at_or_after(now), want, "at {now:?}");
        }
    }
}
