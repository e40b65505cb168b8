//! Shared multiple-access media: several stations on one half-duplex channel.
//!
//! A point-to-point [`Channel`](super::channel::Channel) has a transmitter of
//! its own; on a medium the stations contend for a single channel, so one
//! station's traffic delays (and collides with) another's. This is the
//! wireless LAN of the efr testbed (efr §4.1, Fig. 1): mobile hosts and an
//! access point sharing a 2 Mbps WaveLAN, data and ACKs on the same channel.
//!
//! [`csma_ca`] is the access method (IEEE 802.11 DCF-like carrier sense with
//! slotted random backoff). For routing, a medium is a set of one-hop edges
//! ([`hops`]) numbered after the channels of the point-to-point links.
pub mod csma_ca;

pub use csma_ca::{Fate, FrameRecord, Medium, StationStats};

use super::packet::NodeId;

/// The one-hop edges `(from, to)` a medium adds to the routing graph, in a
/// fixed order (station order, then receiver order). Without an access
/// point every ordered pair of stations is an edge (ad-hoc mode); with one,
/// only the pairs that include it (infrastructure mode: stations talk to
/// each other through the access point, as the efr mobiles reach CH through
/// the WavePOINT).
pub fn hops(stations: &[NodeId], access_point: Option<NodeId>) -> Vec<(NodeId, NodeId)> {
    let mut out = Vec::new();
    for &a in stations {
        for &b in stations {
            if a != b && access_point.is_none_or(|ap| a == ap || b == ap) {
                out.push((a, b));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ad_hoc_joins_every_pair_and_infrastructure_only_the_access_point() {
        assert_eq!(hops(&[5, 7, 9], None), vec![(5, 7), (5, 9), (7, 5), (7, 9), (9, 5), (9, 7)]);
        assert_eq!(hops(&[5, 7, 9], Some(7)), vec![(5, 7), (7, 5), (7, 9), (9, 7)]);
    }
}
