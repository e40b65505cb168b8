//! TCP Vegas at scenario level: its congestion avoidance holds only α..β
//! segments in the bottleneck queue, where Reno fills the buffer until it
//! overflows (Brakmo & Peterson 1995, §3.2). The avoidance is a congestion
//! controller: beside SACK's or NewReno's recovery (`+cc=vegas`) it keeps
//! the queue as short.

mod common;

use dupack_sim::run;
use dupack_sim::time::{ms, secs};

#[test]
fn vegas_keeps_the_bottleneck_queue_short_without_losses() {
    let mut results = Vec::new();
    let variants = ["vegas", "sack+cc=vegas", "newreno+cc=vegas", "reno"];
    for v in variants {
        // 2 Mbit/s, 20 ms, a 60-packet buffer; no random loss.
        let mut s = common::lossy_path(v, 0.0, 2_000_000, ms(20), secs(60));
        s.links[1].queue = dupack_sim::scenario::model::QueueSpec::DropTail {
            limit: dupack_sim::scenario::model::QueueLimit::Packets(60),
        };
        s.flows[0].receiver.window = 1 << 20;
        let r = run(&s, 1).unwrap();
        let q = r.links.iter().find(|l| l.link == "path" && l.direction == "fwd").unwrap().max_queue_packets;
        let f = r.flows[0].clone();
        eprintln!("{v}: max queue {q} packets, goodput {:.0} kbit/s, drops {}", f.goodput_kbps, f.drops_queue);
        results.push((q, f));
    }
    for (v, (q, f)) in variants.iter().zip(&results).take(3) {
        assert!(*q <= 8, "{v} holds a few segments queued: {q}");
        assert_eq!(f.drops_queue, 0, "{v}");
        assert!(f.goodput_kbps > 0.9 * 1900.0, "{v} still uses the link: {}", f.goodput_kbps);
    }
    let (reno_q, reno) = &results[3];
    assert!(*reno_q >= 55 && reno.drops_queue > 0, "Reno fills the buffer: {reno_q}");
}
