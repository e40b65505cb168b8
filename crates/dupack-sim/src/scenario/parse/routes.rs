//! Which nodes can reach each other, and the last hop of a flow's route.

use super::topology::Topo;
use crate::net::packet::NodeId;
use crate::net::routing::{Routes, NO_ROUTE};
use crate::time::SimDuration;
use std::collections::HashMap;

/// Connected component of every node (links are full duplex).
pub(super) fn components(topo: &Topo) -> Vec<usize> {
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut parent: Vec<usize> = (0..topo.nodes.len()).collect();
    let pairs = topo.links.iter().map(|l| (l.a, l.b));
    // Every station of a medium reaches its first one (directly or via the access point).
    let media = topo.media.iter().flat_map(|m| m.stations.iter().map(|&s| (m.stations[0], s)));
    for (a, b) in pairs.chain(media) {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    (0..parent.len()).map(|x| find(&mut parent, x)).collect()
}

/// A link or a medium, as the last hop of a flow: its name and one-way delay.
pub(super) struct Hop<'a> {
    pub(super) name: &'a str,
    pub(super) delay: SimDuration,
}

/// The link (or medium) that carries a flow's data into its receiver: the
/// last hop of the route from `src` to `dst`, found with the engine's own
/// routing (so ties go the way the packets will). `routes` caches one table
/// per `dst`.
pub(super) fn last_hop_link<'a>(
    topo: &'a Topo,
    routes: &mut HashMap<usize, Routes>,
    src: usize,
    dst: usize,
) -> Option<Hop<'a>> {
    // Edges as the engine numbers them: link i is 2i (a→b) and 2i+1 (b→a),
    // then each medium's hops.
    let mut ends: Vec<(NodeId, NodeId)> =
        topo.links.iter().flat_map(|l| [(l.a as NodeId, l.b as NodeId), (l.b as NodeId, l.a as NodeId)]).collect();
    let mut medium_of = Vec::new();
    for (m, spec) in topo.media.iter().enumerate() {
        let stations: Vec<NodeId> = spec.stations.iter().map(|&s| s as NodeId).collect();
        let hops = crate::net::medium::hops(&stations, spec.access_point.map(|a| a as NodeId));
        medium_of.extend(std::iter::repeat_n(m, hops.len()));
        ends.extend(hops);
    }
    let r = routes.entry(dst).or_insert_with(|| Routes::compute(topo.nodes.len(), &ends, &[dst as NodeId]));
    let mut node = src as NodeId;
    for _ in 0..topo.nodes.len() {
        let c = r.next_hop(node, dst as NodeId);
        if c == NO_ROUTE {
            return None;
        }
        node = ends[c as usize].1;
        if node as usize == dst {
            let c = c as usize;
            return Some(match c.checked_sub(2 * topo.links.len()) {
                None => Hop { name: &topo.links[c / 2].name, delay: topo.links[c / 2].delay },
                Some(h) => {
                    let m = &topo.media[medium_of[h]];
                    Hop { name: &m.name, delay: m.delay }
                }
            });
        }
    }
    None
}
