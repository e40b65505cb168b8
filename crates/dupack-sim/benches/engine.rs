//! Micro-benchmarks of the per-packet building blocks: the event queue, the
//! SACK scoreboard, the DropTail and RED queues and the link-level ARQ.
//!
//! `cargo bench -p dupack-sim --bench engine -- --quick`
use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use dupack_sim::engine::queue::{Class, EventQueue, TieBreak};
use dupack_sim::engine::rng::StreamRng;
use dupack_sim::net::arq::{Arq, RxOutput};
use dupack_sim::net::packet::{Ecn, Packet};
use dupack_sim::net::queue::{DropTail, Qdisc};
use dupack_sim::scenario::model::{ArqSpec, QueueLimit, QueueSpec, RedSpec};
use dupack_sim::tcp::scoreboard::Scoreboard;
use dupack_sim::tcp::segment::{SackBlock, TcpSegment};
use dupack_sim::time::{SimDuration, SimTime};

/// A small deterministic generator so the inputs do not depend on a crate.
struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Pop the earliest event and schedule a new one 0–10 ms later, with the
/// heap held at 10 000 entries (about what 1000 flows keep pending).
fn event_queue(c: &mut Criterion) {
    let classes = [Class::TxDone, Class::Arrival, Class::Timer, Class::AppStart];
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut q: EventQueue<u32> = EventQueue::new(TieBreak::Shuffled { salt: 1 });
    for i in 0..10_000u32 {
        let at = SimTime::ZERO + SimDuration::from_nanos(rng.next() % 10_000_000);
        q.schedule(at, classes[i as usize % 4], i);
    }
    c.bench_function("event_queue/pop+schedule @10k", |b| {
        b.iter(|| {
            let (now, ev) = q.pop().expect("the heap stays full");
            let at = now + SimDuration::from_nanos(rng.next() % 10_000_000);
            q.schedule(at, classes[ev as usize % 4], black_box(ev));
        })
    });
    assert_eq!(q.len(), 10_000);
}

const MSS: u64 = 1000;
const HOLES: u64 = 1000;

/// A scoreboard over 2000 segments where every odd segment is SACKed: 1000
/// holes, 1000 SACKed intervals.
fn holey_scoreboard() -> Scoreboard {
    let mut sb = Scoreboard::new(MSS as u32);
    sb.extend_to(2 * HOLES * MSS);
    for i in 0..HOLES {
        let l = (2 * i + 1) * MSS;
        sb.mark_sacked(&SackBlock { left: l, right: l + MSS }, u64::MAX);
    }
    assert_eq!(sb.sacked_intervals(), HOLES as usize);
    sb
}

fn scoreboard(c: &mut Criterion) {
    let mut g = c.benchmark_group("scoreboard/1000 holes");
    // A receiver repeats the same three blocks on every ACK: each costs two
    // binary searches and finds nothing new.
    let mut sb = holey_scoreboard();
    let mut rng = XorShift(12345);
    g.bench_function("mark repeated SACK block", |b| {
        b.iter(|| {
            let i = rng.next() % HOLES;
            let l = (2 * i + 1) * MSS;
            black_box(sb.mark_sacked(&SackBlock { left: l, right: l + MSS }, u64::MAX))
        })
    });
    // One ACK's worth: three blocks, the newest first (RFC 2018 §4).
    g.bench_function("mark 3 blocks (one ACK)", |b| {
        b.iter(|| {
            let i = rng.next() % (HOLES - 2);
            let mut new = false;
            for k in 0..3 {
                let l = (2 * (i + k) + 1) * MSS;
                new |= sb.mark_sacked(&SackBlock { left: l, right: l + MSS }, u64::MAX);
            }
            black_box(new)
        })
    });
    // A whole recovery: find and retransmit every one of the 1000 holes.
    g.bench_function("next_hole over all holes", |b| {
        b.iter_batched(
            holey_scoreboard,
            |mut sb| {
                let mut n = 0;
                while let Some(h) = sb.next_hole() {
                    sb.mark_retransmitted(h);
                    n += 1;
                }
                assert_eq!(n, HOLES);
                sb
            },
            BatchSize::SmallInput,
        )
    });
    // Filling holes from the left, as the cumulative ACK advances through them.
    g.bench_function("advance through all holes", |b| {
        b.iter_batched(
            holey_scoreboard,
            |mut sb| {
                for i in 1..=HOLES {
                    sb.advance(2 * i * MSS);
                }
                sb
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn pkt(id: u64) -> Packet {
    Packet {
        id,
        flow: (id % 16) as u32,
        src: 0,
        dst: 1,
        size: 1040,
        ecn: Ecn::NotEct,
        created: SimTime::ZERO,
        seg: TcpSegment { seq: id * 1000, len: 1000, ..TcpSegment::default() },
    }
}

fn droptail(c: &mut Criterion) {
    let mut g = c.benchmark_group("droptail");
    // The bottleneck of the unfairness dumbbell: 150 packets, kept 100 deep.
    let mut q = DropTail::new(QueueLimit::Packets(150));
    for i in 0..100 {
        q.enqueue(pkt(i)).unwrap();
    }
    let mut id = 100;
    g.bench_function("enqueue+dequeue @100/150", |b| {
        b.iter(|| {
            id += 1;
            let _ = black_box(q.enqueue(pkt(id)));
            black_box(q.dequeue())
        })
    });
    // A full queue refuses the arrival and hands it back.
    let mut full = DropTail::new(QueueLimit::Packets(150));
    for i in 0..150 {
        full.enqueue(pkt(i)).unwrap();
    }
    g.bench_function("enqueue refused (full)", |b| b.iter(|| black_box(full.enqueue(pkt(black_box(7)))).is_err()));
    g.finish();
}

/// RED at the unfairness bottleneck (3 Mbit/s, ns-2's defaults): every
/// arrival updates `avg` and draws the drop decision.
fn red(c: &mut Criterion) {
    let mut g = c.benchmark_group("red");
    for (name, ecn) in [("enqueue+dequeue, avg between the thresholds", false), ("ECN-RED, ECT arrivals", true)] {
        let spec = QueueSpec::Red(RedSpec { ecn, ..RedSpec::default() });
        let mut q = Qdisc::from_spec(&spec, 3_000_000, StreamRng::new(1, "bench/red"));
        let mut now = SimTime::ZERO;
        let mut id = 0;
        // Build the average up to about 10 packets (between min_th 5 and max_th 15).
        for _ in 0..20_000 {
            id += 1;
            let mut p = pkt(id);
            if ecn {
                p.ecn = Ecn::Ect0;
            }
            let _ = q.enqueue(p, now);
            if q.len_packets() > 10 {
                q.dequeue();
            }
            now += SimDuration::from_micros(2667);
        }
        g.bench_function(name, |b| {
            b.iter(|| {
                id += 1;
                now += SimDuration::from_micros(2667);
                let mut p = pkt(id);
                if ecn {
                    p.ecn = Ecn::Ect0;
                }
                let _ = black_box(q.enqueue(p, now));
                if q.len_packets() > 10 {
                    black_box(q.dequeue());
                }
            })
        });
    }
    g.finish();
}

/// One frame through both halves of the ARQ, no loss: number, keep, deliver, forget.
fn arq(c: &mut Criterion) {
    let spec = ArqSpec {
        retry_limit: 3,
        nak_bytes: 16,
        in_order: true,
        nak_timeout: SimDuration::from_millis(25),
        window: None,
        discard: None,
        poll: true,
        fwd: true,
        rev: true,
    };
    let mut a = Arq::new(&spec);
    let mut out = RxOutput::default();
    let mut id = 0;
    c.bench_function("arq/frame sent, delivered in order, resolved", |b| {
        b.iter(|| {
            id += 1;
            let p = pkt(id);
            let l = a.register(&p, SimTime::ZERO);
            a.on_frame(l, p, SimTime::ZERO, &mut out);
            for (m, _) in out.deliver.drain(..) {
                black_box(a.resolve(m));
            }
        })
    });
}

criterion_group!(benches, event_queue, scoreboard, droptail, red, arq);
criterion_main!(benches);
