//! `mean_queue_packets`: the time-averaged number of packets waiting on a
//! link direction (what ns-2's queue-monitor integrator gives, used by the
//! RED comparison of docs/validation.md).

mod common;

use dupack_sim::run;
use dupack_sim::scenario::model::*;
use dupack_sim::time::{ms, secs};

#[test]
fn mean_queue_is_between_zero_and_the_largest_queue_and_zero_without_queueing() {
    for v in ["reno", "sack"] {
        let s = common::fall_floyd(v, &[41, 43]);
        let r = run(&s, 1).unwrap();
        for l in &r.links {
            assert!(l.mean_queue_packets >= 0.0, "{l:?}");
            assert!(l.mean_queue_packets <= l.max_queue_packets as f64, "{l:?}");
            if l.max_queue_packets == 0 {
                assert_eq!(l.mean_queue_packets, 0.0, "{l:?}");
            }
        }
        // The 8 Mbit/s access link feeds a 0.8 Mbit/s bottleneck: slow
        // start's bursts wait at the router. The window (20 segments) is
        // about the path's capacity, so little waits in steady state.
        let bneck = r.links.iter().find(|l| l.link == "bottleneck" && l.direction == "fwd").unwrap();
        assert!(bneck.mean_queue_packets > 0.0 && bneck.mean_queue_packets < 2.0, "{bneck:?}");
    }
}

#[test]
fn a_greedy_flow_into_a_small_buffer_keeps_it_nearly_full() {
    // A window far above the path's capacity: once slow start is over the
    // 20-packet DropTail buffer stays close to full (Reno halves its window
    // on each loss, so the queue drains only partly).
    let mut s = common::lossy_path("reno", 0.0, 1_000_000, ms(5), secs(100));
    s.links[1].fwd_error = ErrorSpec::none();
    s.links[1].queue = QueueSpec::DropTail { limit: QueueLimit::Packets(20) };
    let r = run(&s, 1).unwrap();
    let path = r.links.iter().find(|l| l.link == "path" && l.direction == "fwd").unwrap();
    assert_eq!(path.max_queue_packets, 20);
    assert!(path.mean_queue_packets > 10.0 && path.mean_queue_packets < 20.0, "{path:?}");
}
