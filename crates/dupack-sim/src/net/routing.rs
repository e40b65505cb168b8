//! Static shortest-path routing.
//!
//! For every destination host, a breadth-first search from the host over
//! reversed channels gives each node the channel of its next hop. Ties
//! (equal hop counts) go to the channel with the lowest index, so routes
//! are a deterministic function of the scenario.

use super::packet::{ChannelId, NodeId};
use std::collections::VecDeque;

pub const NO_ROUTE: ChannelId = ChannelId::MAX;

/// `next[dst_slot][node]`: the channel `node` uses toward destination `dst`.
#[derive(Clone, Debug)]
pub struct Routes {
    /// Destination node → row in `next` (only flow destinations and sources get rows).
    slot: Vec<u32>,
    next: Vec<Vec<ChannelId>>,
}

impl Routes {
    /// `channels[i] = (from, to)`; `dests` are the nodes that receive packets.
    pub fn compute(n_nodes: usize, channels: &[(NodeId, NodeId)], dests: &[NodeId]) -> Self {
        // Incoming channels per node, in channel order.
        let mut incoming: Vec<Vec<ChannelId>> = vec![Vec::new(); n_nodes];
        for (i, &(_, to)) in channels.iter().enumerate() {
            incoming[to as usize].push(i as ChannelId);
        }
        let mut slot = vec![u32::MAX; n_nodes];
        let mut next = Vec::new();
        for &d in dests {
            if slot[d as usize] != u32::MAX {
                continue;
            }
            slot[d as usize] = next.len() as u32;
            let mut row = vec![NO_ROUTE; n_nodes];
            let mut seen = vec![false; n_nodes];
            seen[d as usize] = true;
            let mut bfs = VecDeque::from([d]);
            while let Some(v) = bfs.pop_front() {
                for &c in &incoming[v as usize] {
                    let u = channels[c as usize].0;
                    if !seen[u as usize] {
                        seen[u as usize] = true;
                        row[u as usize] = c;
                        bfs.push_back(u);
                    }
                }
            }
            next.push(row);
        }
        Routes { slot, next }
    }

    /// The channel `node` forwards on toward `dst`, or `NO_ROUTE`.
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> ChannelId {
        match self.slot.get(dst as usize) {
            Some(&s) if s != u32::MAX => self.next[s as usize][node as usize],
            _ => NO_ROUTE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_routes_forward_and_back() {
        // 0 -c0-> 1 -c2-> 2 and back: 1 -c1-> 0, 2 -c3-> 1.
        let ch = [(0, 1), (1, 0), (1, 2), (2, 1)];
        let r = Routes::compute(3, &ch, &[2, 0]);
        assert_eq!(r.next_hop(0, 2), 0);
        assert_eq!(r.next_hop(1, 2), 2);
        assert_eq!(r.next_hop(2, 0), 3);
        assert_eq!(r.next_hop(1, 0), 1);
        assert_eq!(r.next_hop(0, 1), NO_ROUTE, "1 is not a destination");
    }

    #[test]
    fn shortest_path_wins_over_a_detour() {
        // 0→1→2 and 0→2 directly.
        let ch = [(0, 1), (1, 2), (0, 2)];
        let r = Routes::compute(3, &ch, &[2]);
        assert_eq!(r.next_hop(0, 2), 2);
    }
}
