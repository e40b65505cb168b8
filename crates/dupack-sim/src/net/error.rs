//! Error models: which packets a channel corrupts.
//!
//! A lost packet still occupies the channel for its transmission time (it
//! was sent and corrupted on the way) and never arrives. Random draws come
//! from one stream per (channel, flow), named
//! `"link/{link}/{dir}/flow/{flow}"`, so the loss pattern a flow sees on a
//! link does not depend on other flows' traffic; a packet that the selector
//! excludes (an ACK under `applies_to = "data"`) consumes no draw.

use super::packet::{Packet, PacketKind};
use crate::engine::rng::StreamRng;
use crate::scenario::model::{ErrorModelSpec, ErrorSpec, PacketSelector};

#[derive(Clone, Debug)]
enum Model {
    None,
    Bernoulli {
        p: f64,
    },
    /// Loss probability of a packet of `s` bytes: 1 − (1 − ber)^(8·s).
    Ber {
        ber: f64,
    },
    DropList {
        flow: u32,
        packets: Vec<u64>,
        next: usize,
        seen: u64,
    },
}

#[derive(Clone, Debug)]
pub struct ErrorModel {
    model: Model,
    select: PacketSelector,
    /// Stream name prefix; the flow name is appended.
    name: String,
    seed: u64,
    /// One stream per flow seen here, sorted by flow index. Sparse: an
    /// access link sees one flow, so a table indexed by flow would cost
    /// O(flows) per link and O(flows²) per dumbbell.
    streams: Vec<(u32, StreamRng)>,
}

impl ErrorModel {
    pub fn new(spec: &ErrorSpec, name: String, seed: u64) -> Self {
        let model = match &spec.model {
            ErrorModelSpec::None => Model::None,
            ErrorModelSpec::Bernoulli { p } => Model::Bernoulli { p: *p },
            ErrorModelSpec::Ber { ber } => Model::Ber { ber: *ber },
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

    fn stream(&mut self, flow: u32, flow_names: &[String]) -> &mut StreamRng {
        let i = match self.streams.binary_search_by_key(&flow, |e| e.0) {
            Ok(i) => i,
            Err(i) => {
                let name = format!("{}/flow/{}", self.name, flow_names[flow as usize]);
                self.streams.insert(i, (flow, StreamRng::new(self.seed, &name)));
                i
            }
        };
        &mut self.streams[i].1
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
                self.stream(p.flow, flow_names).chance(prob)
            }
            Model::Ber { ber } => {
                let ber = *ber;
                let prob = 1.0 - (1.0 - ber).powf(8.0 * p.size as f64);
                self.stream(p.flow, flow_names).chance(prob)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Ecn;
    use crate::tcp::segment::TcpSegment;
    use crate::time::SimTime;

    fn data(flow: u32, size: u32) -> Packet {
        Packet {
            id: 0,
            flow,
            src: 0,
            dst: 1,
            size,
            ecn: Ecn::NotEct,
            created: SimTime::ZERO,
            seg: TcpSegment { len: size - 40, ..TcpSegment::default() },
        }
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
        let mut m = ErrorModel::new(&spec, "x".into(), 1);
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
        let mut alone = ErrorModel::new(&spec, "l".into(), 9);
        let a: Vec<bool> = (0..2000).map(|_| alone.is_lost(&data(0, 1040), &names())).collect();
        // The same flow's draws are unchanged when another flow shares the link.
        let mut shared = ErrorModel::new(&spec, "l".into(), 9);
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
        let mut m = ErrorModel::new(&spec, "l".into(), 3);
        let big = (0..20_000).filter(|_| m.is_lost(&data(0, 1040), &names())).count() as f64 / 20_000.0;
        let small = (0..20_000).filter(|_| m.is_lost(&ack(0), &names())).count() as f64 / 20_000.0;
        let p_big = 1.0 - (1.0f64 - 1e-4).powf(8.0 * 1040.0);
        let p_small = 1.0 - (1.0f64 - 1e-4).powf(8.0 * 40.0);
        assert!((big - p_big).abs() < 0.02, "{big} vs {p_big}");
        assert!((small - p_small).abs() < 0.01, "{small} vs {p_small}");
    }
}
