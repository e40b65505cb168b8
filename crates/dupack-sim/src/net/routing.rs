//! Static shortest-path routing.
//!
//! Each destination gets a breadth-first tree over reversed channels, giving
//! every node the channel of its next hop; ties (equal hop counts) go to
//! the channel with the lowest index, so routes are a deterministic function
//! of the scenario.
//!
//! A *leaf* destination — a host whose every link goes to one neighbour,
//! like each sender of a dumbbell — needs no tree of its own: every path to
//! it ends with the hop from that neighbour, so it shares the neighbour's
//! tree plus one channel. Without this a dumbbell of N senders (each an ACK
//! destination) would store N trees of N nodes; with it, one.

use super::packet::{ChannelId, NodeId};
use std::collections::VecDeque;

pub const NO_ROUTE: ChannelId = ChannelId::MAX;
const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Routes {
    /// Destination node → its tree's row in `next`, or `NONE`.
    row: Vec<u32>,
    /// Leaf destination → (its neighbour, the channel neighbour → leaf).
    leaf: Vec<Option<(NodeId, ChannelId)>>,
    /// `next[row][node]`: the channel `node` uses toward the row's root.
    next: Vec<Vec<ChannelId>>,
}

impl Routes {
    /// `channels[i] = (from, to)`; `dests` are the nodes that receive packets.
    pub fn compute(n_nodes: usize, channels: &[(NodeId, NodeId)], dests: &[NodeId]) -> Self {
        let mut incoming: Vec<Vec<ChannelId>> = vec![Vec::new(); n_nodes];
        for (i, &(_, to)) in channels.iter().enumerate() {
            incoming[to as usize].push(i as ChannelId);
        }
        let mut r = Routes { row: vec![NONE; n_nodes], leaf: vec![None; n_nodes], next: Vec::new() };
        for &d in dests {
            let root = match Self::single_neighbour(d, channels, &incoming) {
                Some((n, c)) => {
                    r.leaf[d as usize] = Some((n, c));
                    n
                }
                None => d,
            };
            if r.row[root as usize] == NONE {
                r.row[root as usize] = r.next.len() as u32;
                r.next.push(Self::tree(root, n_nodes, channels, &incoming));
            }
        }
        r
    }

    /// If every channel into `d` comes from one node `n`, that node and the
    /// lowest-indexed channel `n → d`.
    fn single_neighbour(
        d: NodeId,
        channels: &[(NodeId, NodeId)],
        incoming: &[Vec<ChannelId>],
    ) -> Option<(NodeId, ChannelId)> {
        let first = *incoming[d as usize].first()?;
        let n = channels[first as usize].0;
        incoming[d as usize].iter().all(|&c| channels[c as usize].0 == n).then_some((n, first))
    }

    fn tree(
        root: NodeId,
        n_nodes: usize,
        channels: &[(NodeId, NodeId)],
        incoming: &[Vec<ChannelId>],
    ) -> Vec<ChannelId> {
        let mut row = vec![NO_ROUTE; n_nodes];
        let mut seen = vec![false; n_nodes];
        seen[root as usize] = true;
        let mut bfs = VecDeque::from([root]);
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
        row
    }

    /// The channel `node` forwards on toward `dst`, or `NO_ROUTE`.
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> ChannelId {
        let (root, last) = match self.leaf.get(dst as usize) {
            Some(Some((n, c))) => (*n, Some(*c)),
            Some(None) => (dst, None),
            None => return NO_ROUTE,
        };
        match last {
            Some(c) if node == root => c,
            // Everyone else, the leaf itself included, heads for the neighbour.
            _ => self.tree_hop(root, node),
        }
    }

    fn tree_hop(&self, root: NodeId, node: NodeId) -> ChannelId {
        match self.row[root as usize] {
            NONE => NO_ROUTE,
            r => self.next[r as usize][node as usize],
        }
    }

    /// Rows of next hops stored (one per non-leaf destination or leaf neighbour).
    pub fn trees(&self) -> usize {
        self.next.len()
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
        // Node 1 anchors the leaves 0 and 2, so it is reachable too; a node
        // that is neither a destination nor an anchor is not.
        let only_2 = Routes::compute(3, &ch, &[2]);
        assert_eq!(only_2.next_hop(1, 0), NO_ROUTE, "0 is not a destination");
    }

    #[test]
    fn shortest_path_wins_over_a_detour() {
        // 0→1→2 and 0→2 directly.
        let ch = [(0, 1), (1, 2), (0, 2)];
        let r = Routes::compute(3, &ch, &[2]);
        assert_eq!(r.next_hop(0, 2), 2);
    }

    /// A dumbbell: senders 0..n, router n, sink n+1, duplex links.
    fn dumbbell(n: u32) -> (usize, Vec<(NodeId, NodeId)>, Vec<NodeId>) {
        let mut ch = Vec::new();
        for i in 0..n {
            ch.push((i, n));
            ch.push((n, i));
        }
        ch.push((n, n + 1));
        ch.push((n + 1, n));
        let mut dests: Vec<NodeId> = (0..n).collect();
        dests.push(n + 1);
        ((n + 2) as usize, ch, dests)
    }

    #[test]
    fn leaf_destinations_share_their_neighbours_tree() {
        let (nodes, ch, dests) = dumbbell(1000);
        let r = Routes::compute(nodes, &ch, &dests);
        assert_eq!(r.trees(), 1, "every sender and the sink hang off the router");
        for i in [0u32, 17, 999] {
            assert_eq!(r.next_hop(i, 1001), 2 * i, "sender i goes up its access link");
            assert_eq!(r.next_hop(1000, 1001), 2000, "router → sink");
            assert_eq!(r.next_hop(1001, i), 2001, "sink → router");
            assert_eq!(r.next_hop(1000, i), 2 * i + 1, "router → sender i");
        }
    }

    #[test]
    fn leaf_collapsing_gives_the_same_routes_as_a_tree_per_destination() {
        // A small mesh with leaves, multi-homed hosts and parallel links.
        let ch: Vec<(NodeId, NodeId)> = vec![
            (0, 2),
            (2, 0),
            (1, 2),
            (2, 1),
            (2, 3),
            (3, 2),
            (3, 4),
            (4, 3),
            (2, 4),
            (4, 2),
            (4, 5),
            (5, 4),
            (4, 5),
            (5, 4),
        ];
        let dests: Vec<NodeId> = (0..6).collect();
        let r = Routes::compute(6, &ch, &dests);
        let mut incoming: Vec<Vec<ChannelId>> = vec![Vec::new(); 6];
        for (i, &(_, to)) in ch.iter().enumerate() {
            incoming[to as usize].push(i as ChannelId);
        }
        for d in 0..6u32 {
            let full = Routes::tree(d, 6, &ch, &incoming);
            for u in 0..6u32 {
                if u != d {
                    let got = r.next_hop(u, d);
                    // Same hop count: following either reaches d in as many steps.
                    let hops = |first: ChannelId| {
                        let (mut at, mut c, mut k) = (u, first, 0);
                        while at != d {
                            at = ch[c as usize].1;
                            k += 1;
                            if at != d {
                                c = full[at as usize];
                            }
                        }
                        k
                    };
                    assert_eq!(hops(got), hops(full[u as usize]), "{u} → {d}");
                }
            }
        }
    }
}
