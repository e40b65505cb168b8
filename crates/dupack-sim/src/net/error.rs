//! Error models: which packets a channel corrupts.
//!
//! A lost packet still occupies the channel for its transmission time (it
//! was sent and corrupted on the way) and never arrives. Random draws come
//! from one stream per (channel, flow), named
//! `"link/{link}/{dir}/flow/{flow}"`, so the loss pattern a flow sees on a
//! link does not depend on other flows' traffic; a packet that the selector
//! excludes (an ACK under `applies_to = "data"`) consumes no draw.
//!
//! The Gilbert–Elliott model keeps its Good/Bad state next to each flow's
//! stream, so flows sharing a link direction run independent chains, each
//! advanced only by that flow's selected packets.

use super::packet::{Packet, PacketKind};
use crate::engine::rng::{NameHash, StreamRng};
use crate::scenario::model::{ErrorModelSpec, ErrorSpec, GilbertElliottSpec, PacketSelector};

#[derive(Clone, Debug)]
enum Model {
    None,
    Bernoulli {
        p: f64,
    },
    /// Loss probability of a packet of `s` bytes: 1 − (1 − ber)^(8·s).
    Ber {
        ber: f64,
        /// The last size asked about and its probability. The `powf` is a
        /// tenth of a run on a slow BER link (docs/performance.md, (b)), and
        /// the packets a link's error model selects nearly all have one size
        /// (full data segments), so the value is kept, not recomputed: the
        /// same function of the same size, so the same bits.
        last: (u32, f64),
    },
    DropList {
        flow: u32,
        packets: Vec<u64>,
        next: usize,
        seen: u64,
    },
    /// The chain's state (Bad or not) lives with each flow's stream.
    GilbertElliott(GilbertElliottSpec),
}

/// One flow's random stream on this channel, and its Gilbert–Elliott state.
#[derive(Clone, Debug)]
struct FlowStream {
    flow: u32,
    rng: StreamRng,
    bad: bool,
}

#[derive(Clone, Debug)]
pub struct ErrorModel {
    model: Model,
    select: PacketSelector,
    /// The hash of the stream names' prefix (`link/{link}/{dir}`); a
    /// flow's stream appends `/flow/{flow}` ([`NameHash`]).
    name: NameHash,
    seed: u64,
    /// One stream per flow seen here, sorted by flow index. Sparse: an
    /// access link sees one flow, so a table indexed by flow would cost
    /// O(flows) per link and O(flows²) per dumbbell.
    streams: Vec<FlowStream>,
}

impl ErrorModel {
    pub fn new(spec: &ErrorSpec, name: NameHash, seed: u64) -> Self {
        let model = match &spec.model {
            ErrorModelSpec::None => Model::None,
            ErrorModelSpec::Bernoulli { p } => Model::Bernoulli { p: *p },
            ErrorModelSpec::Ber { ber } => Model::Ber { ber: *ber, last: (0, 0.0) },
            ErrorModelSpec::GilbertElliott(ge) => Model::GilbertElliott(*ge),
            ErrorModelSpec::DropList { flow, packets } => {
                let mut packets = packets.clone();
                packets.sort_unstable();
                packets.dedup();
                Model::DropList { flow: *flow as u32, packets, next: 0, seen: 0 }
            }
        };
        ErrorModel { model, select: spec.applies_to, name, seed, streams: Vec::new() }
    }

    pub fn is_none(&self) -> bool {
        matches!(self.model, Model::None)
    }

    fn selected(&self, p: &Packet) -> bool {
        matches!(
            (self.select, p.kind()),
            (PacketSelector::All, _)
                | (PacketSelector::Data, PacketKind::Data)
                | (PacketSelector::Acks, PacketKind::Ack)
        )
    }

    fn stream(&mut self, flow: u32, flow_names: &[String]) -> &mut FlowStream {
        let i = match self.streams.binary_search_by_key(&flow, |e| e.flow) {
            Ok(i) => i,
            Err(i) => {
                let name = self.name.then("/flow/").then(&flow_names[flow as usize]);
                self.streams.insert(i, FlowStream { flow, rng: StreamRng::named(self.seed, name), bad: false });
                i
            }
        };
        &mut self.streams[i]
    }

    /// Decide whether `p` is lost on this channel.
    pub fn is_lost(&mut self, p: &Packet, flow_names: &[String]) -> bool {
        if matches!(self.model, Model::None) || !self.selected(p) {
            return false;
        }
        match &mut self.model {
            Model::None => false,
            Model::DropList { flow, packets, next, seen } => {
                if p.flow != *flow {
                    return false;
                }
                *seen += 1;
                if *next < packets.len() && packets[*next] == *seen {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
            Model::Bernoulli { p: prob } => {
                let prob = *prob;
                self.stream(p.flow, flow_names).rng.chance(prob)
            }
            Model::GilbertElliott(ge) => {
                let ge = *ge;
                let s = self.stream(p.flow, flow_names);
                // The loss draw in the current state, then the transition
                // draw; `chance` draws nothing for a probability of 0 or 1.
                let lost = s.rng.chance(if s.bad { ge.p_bad } else { ge.p_good });
                let flip = s.rng.chance(if s.bad { ge.p_bg } else { ge.p_gb });
                s.bad ^= flip;
                lost
            }
            Model::Ber { ber, last } => {
                if last.0 != p.size {
                    *last = (p.size, ber_loss(*ber, p.size));
                }
                let prob = last.1;
                self.stream(p.flow, flow_names).rng.chance(prob)
            }
        }
    }
}

/// 1 − (1 − ber)^(8·size): the probability that a packet of `size` bytes
/// has at least one of its bits corrupted, bit errors being independent.
fn ber_loss(ber: f64, size: u32) -> f64 {
    1.0 - (1.0 - ber).powf(8.0 * size as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::segment::TcpSegment;

    fn data(flow: u32, size: u32) -> Packet {
        Packet::test_segment(0, flow, 0, size - 40)
    }
    fn ack(flow: u32) -> Packet {
        Packet { size: 40, seg: TcpSegment::default(), ..data(flow, 100) }
    }
    fn names() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    #[test]
    fn droplist_drops_exactly_the_listed_packets_of_its_flow() {
        let spec = ErrorSpec {
            model: ErrorModelSpec::DropList { flow: 1, packets: vec![5, 2, 2] },
            applies_to: PacketSelector::Data,
        };
        let mut m = ErrorModel::new(&spec, NameHash::of("x"), 1);
        let lost: Vec<bool> = (0..6)
            .map(|_| {
                assert!(!m.is_lost(&data(0, 1040), &names()), "other flows untouched");
                assert!(!m.is_lost(&ack(1), &names()), "ACKs not counted");
                m.is_lost(&data(1, 1040), &names())
            })
            .collect();
        assert_eq!(lost, vec![false, true, false, false, true, false]);
    }

    #[test]
    fn bernoulli_rate_and_per_flow_independence() {
        let spec = ErrorSpec { model: ErrorModelSpec::Bernoulli { p: 0.05 }, applies_to: PacketSelector::All };
        let mut alone = ErrorModel::new(&spec, NameHash::of("l"), 9);
        let a: Vec<bool> = (0..2000).map(|_| alone.is_lost(&data(0, 1040), &names())).collect();
        // The same flow's draws are unchanged when another flow shares the link.
        let mut shared = ErrorModel::new(&spec, NameHash::of("l"), 9);
        let b: Vec<bool> = (0..2000)
            .map(|_| {
                shared.is_lost(&data(1, 1040), &names());
                shared.is_lost(&data(0, 1040), &names())
            })
            .collect();
        assert_eq!(a, b);
        let n = a.iter().filter(|&&x| x).count();
        assert!((60..140).contains(&n), "{n} losses in 2000 at p = 0.05");
    }

    #[test]
    fn ber_loss_grows_with_packet_size() {
        let spec = ErrorSpec { model: ErrorModelSpec::Ber { ber: 1e-4 }, applies_to: PacketSelector::All };
        let mut m = ErrorModel::new(&spec, NameHash::of("l"), 3);
        let big = (0..20_000).filter(|_| m.is_lost(&data(0, 1040), &names())).count() as f64 / 20_000.0;
        let small = (0..20_000).filter(|_| m.is_lost(&ack(0), &names())).count() as f64 / 20_000.0;
        let p_big = 1.0 - (1.0f64 - 1e-4).powf(8.0 * 1040.0);
        let p_small = 1.0 - (1.0f64 - 1e-4).powf(8.0 * 40.0);
        assert!((big - p_big).abs() < 0.02, "{big} vs {p_big}");
        assert!((small - p_small).abs() < 0.01, "{small} vs {p_small}");
    }

    #[test]
    fn ber_kept_probability_follows_every_change_of_size() {
        // Sizes that change, repeat and come back: each packet is lost with
        // its own size's probability, drawn from the flow's stream, exactly
        // as if the probability were computed afresh every time.
        let ber = 2e-4;
        let spec = ErrorSpec { model: ErrorModelSpec::Ber { ber }, applies_to: PacketSelector::All };
        let mut m = ErrorModel::new(&spec, NameHash::of("l"), 5);
        let mut reference = StreamRng::named(5, NameHash::of("l").then("/flow/").then("a"));
        let sizes = [1040, 1040, 40, 1040, 576, 576, 40, 40, 1040];
        for (i, &size) in sizes.iter().cycle().take(5000).enumerate() {
            let p = if size == 40 { ack(0) } else { data(0, size) };
            let want = reference.chance(1.0 - (1.0f64 - ber).powf(8.0 * f64::from(size)));
            assert_eq!(m.is_lost(&p, &names()), want, "packet {i} of {size} bytes");
        }
    }

    fn ge(p_good: f64, p_bad: f64, p_gb: f64, p_bg: f64) -> ErrorModel {
        let spec = ErrorSpec {
            model: ErrorModelSpec::GilbertElliott(GilbertElliottSpec { p_good, p_bad, p_gb, p_bg }),
            applies_to: PacketSelector::Data,
        };
        ErrorModel::new(&spec, NameHash::of("link/w/fwd"), 11)
    }

    /// Lengths of the runs of consecutive losses in `lost`.
    fn bursts(lost: &[bool]) -> Vec<usize> {
        lost.split(|&l| !l).map(<[bool]>::len).filter(|&n| n > 0).collect()
    }

    #[test]
    fn gilbert_elliott_long_run_rate_matches_the_stationary_formula() {
        // Standard error of a Markov-chain mean over n = 400 000 packets is
        // below 0.002 for these chains; the tolerance is about 3 of them.
        const N: usize = 400_000;
        for (p_good, p_bad, p_gb, p_bg) in [(0.0, 1.0, 0.01, 0.25), (0.001, 0.5, 0.05, 0.2), (0.02, 0.8, 0.1, 0.5)] {
            let mut m = ge(p_good, p_bad, p_gb, p_bg);
            let lost = (0..N).filter(|_| m.is_lost(&data(0, 1040), &names())).count() as f64 / N as f64;
            let want = GilbertElliottSpec { p_good, p_bad, p_gb, p_bg }.stationary_loss().unwrap();
            assert!((lost - want).abs() < 0.005, "{lost} vs {want} for {:?}", (p_good, p_bad, p_gb, p_bg));
        }
    }

    #[test]
    fn gilbert_elliott_bursts_last_one_over_p_bg_packets() {
        // p_bad = 1, p_good = 0: a loss burst is exactly a stay in Bad, a
        // geometric number of packets with mean 1/p_bg.
        for p_bg in [0.5, 0.25, 0.1] {
            let mut m = ge(0.0, 1.0, 0.02, p_bg);
            let lost: Vec<bool> = (0..500_000).map(|_| m.is_lost(&data(0, 1040), &names())).collect();
            let b = bursts(&lost);
            let mean = b.iter().sum::<usize>() as f64 / b.len() as f64;
            assert!(b.len() > 1000, "{} bursts", b.len());
            assert!((mean - 1.0 / p_bg).abs() < 0.05 / p_bg, "mean burst {mean} vs {}", 1.0 / p_bg);
        }
    }

    #[test]
    fn gilbert_elliott_degenerate_parameters() {
        let pkt = data(0, 1040);
        // Never leaves Good: no loss at all, even with p_bad = 1.
        let mut m = ge(0.0, 1.0, 0.0, 0.5);
        assert!(!(0..10_000).any(|_| m.is_lost(&pkt, &names())));
        // Always goes Bad after the first packet and stays: all but the first lost.
        let mut m = ge(0.0, 1.0, 1.0, 0.0);
        let lost: Vec<bool> = (0..1000).map(|_| m.is_lost(&pkt, &names())).collect();
        assert!(!lost[0] && lost[1..].iter().all(|&l| l));
        // Alternates strictly: Good, Bad, Good, …
        let mut m = ge(0.0, 1.0, 1.0, 1.0);
        let lost: Vec<bool> = (0..10).map(|_| m.is_lost(&pkt, &names())).collect();
        assert_eq!(lost, (0..10).map(|i| i % 2 == 1).collect::<Vec<_>>());
        // p_good = p_bad: independent of the state, a Bernoulli rate.
        let mut m = ge(0.1, 0.1, 0.3, 0.3);
        let n = (0..100_000).filter(|_| m.is_lost(&pkt, &names())).count();
        assert!((9_000..11_000).contains(&n), "{n}");
        assert_eq!(GilbertElliottSpec { p_good: 0.0, p_bad: 1.0, p_gb: 0.0, p_bg: 0.0 }.stationary_loss(), None);
    }

    #[test]
    fn gilbert_elliott_chains_are_per_flow_and_skip_unselected_packets() {
        let mut alone = ge(0.0, 1.0, 0.05, 0.3);
        let a: Vec<bool> = (0..5000).map(|_| alone.is_lost(&data(0, 1040), &names())).collect();
        let mut shared = ge(0.0, 1.0, 0.05, 0.3);
        let b: Vec<bool> = (0..5000)
            .map(|_| {
                shared.is_lost(&data(1, 1040), &names());
                assert!(!shared.is_lost(&ack(0), &names()), "ACKs are not selected");
                shared.is_lost(&data(0, 1040), &names())
            })
            .collect();
        assert_eq!(a, b, "another flow's packets and unselected ACKs do not move flow 0's chain");
    }
}
