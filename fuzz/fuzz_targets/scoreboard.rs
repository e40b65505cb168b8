//! The SACK scoreboard fed arbitrary operations: never panics, and its
//! intervals stay sorted, disjoint, non-adjacent, segment-aligned, within
//! [snd_una, snd_max), with `sacked_bytes` their total.
#![no_main]
use dupack_sim::tcp::scoreboard::Scoreboard;
use dupack_sim::tcp::segment::SackBlock;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&m, ops)) = data.split_first() else { return };
    let mss = u64::from(m % 8) + 1;
    let mut sb = Scoreboard::new(mss as u32);
    let (mut una, mut max) = (0u64, 0u64);
    let app_end = 4096 * mss;
    for op in ops.chunks(3) {
        let [kind, a, b] = [op[0], *op.get(1).unwrap_or(&0), *op.get(2).unwrap_or(&0)];
        match kind % 6 {
            0 => {
                // Send more: snd_max grows, at most to the end of the data.
                max = (max + u64::from(a) * mss).min(app_end);
                sb.extend_to(max);
            }
            1 => {
                // A cumulative ACK: segment-aligned, between snd_una and snd_max.
                let segs = (max - una) / mss;
                if segs > 0 {
                    una += (u64::from(a) % (segs + 1)) * mss;
                    sb.advance(una);
                }
            }
            2 => {
                // A SACK block, possibly unaligned, inside [snd_una, snd_max).
                if max > una {
                    let left = una + u64::from(a) * mss / 3 % (max - una);
                    let right = (left + 1 + u64::from(b) * mss / 2).min(max);
                    sb.begin_ack();
                    sb.mark_sacked(&SackBlock { left, right }, app_end);
                }
            }
            3 => {
                if let Some(seq) = sb.next_hole() {
                    assert!(seq >= una && seq < max.max(una + 1), "hole {seq} outside [{una}, {max})");
                    assert!(!sb.is_sacked(seq), "hole {seq} is SACKed");
                    sb.mark_retransmitted(seq);
                }
            }
            4 => sb.rewind(),
            _ => {
                if b % 16 == 0 {
                    sb.clear();
                }
            }
        }
        let runs = sb.sacked_runs();
        let mut total = 0;
        for w in runs.windows(2) {
            assert!(w[0].1 < w[1].0, "runs overlap or touch: {runs:?}");
        }
        for &(l, r) in runs {
            assert!(l < r && l >= una && r <= max, "run [{l}, {r}) outside [{una}, {max})");
            total += r - l;
        }
        assert_eq!(total, sb.sacked_bytes());
    }
});
