//! A quick throughput check of the engine: N greedy flows on 1 Mbps access
//! links with 1 % data loss into a 3 Mbps bottleneck with a 150-packet
//! DropTail buffer (the unfairness paper's topology), 200 s simulated.
//! `cargo run --release --example dumbbell -- [N] [variant]`
use dupack_sim::scenario::model::*;
use dupack_sim::time::{ms, secs, SimDuration};

fn link(name: String, a: usize, b: usize, rate_bps: u64, delay: SimDuration, q: u32) -> LinkSpec {
    LinkSpec {
        name,
        a,
        b,
        rate_bps,
        delay,
        queue: QueueSpec::DropTail { limit: QueueLimit::Packets(q) },
        fwd_error: ErrorSpec::none(),
        rev_error: ErrorSpec::none(),
        fwd_jitter: SimDuration::ZERO,
        rev_jitter: SimDuration::ZERO,
        fwd_trace: None,
        rev_trace: None,
        arq: None,
        snoop: None,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let variant = args.get(2).cloned().unwrap_or_else(|| "newreno".into());
    let mut nodes: Vec<NodeSpec> = (0..n).map(|i| NodeSpec { name: format!("s{i}"), kind: NodeKind::Host }).collect();
    nodes.push(NodeSpec { name: "router".into(), kind: NodeKind::Router });
    nodes.push(NodeSpec { name: "sink".into(), kind: NodeKind::Host });
    let mut links: Vec<LinkSpec> = (0..n)
        .map(|i| {
            let mut l = link(format!("access{i}"), i, n, 1_000_000, ms(10), 1000);
            l.fwd_error = ErrorSpec { model: ErrorModelSpec::Bernoulli { p: 0.01 }, applies_to: PacketSelector::Data };
            l
        })
        .collect();
    links.push(link("bottleneck".into(), n, n + 1, 3_000_000, ms(20), 150));
    let tcp = TcpConfig { mss: 1000, ..TcpConfig::default() };
    let receiver = ReceiverConfig {
        window: 64_000,
        sack: dupack_sim::tcp::variant::parse_variant(&variant).expect("variant").uses_sack(),
        ..ReceiverConfig::default()
    };
    let flows = (0..n)
        .map(|i| FlowSpec {
            name: format!("f{i}"),
            src: i,
            dst: n + 1,
            variant: dupack_sim::tcp::variant::Variant::parse(&variant).expect("variant"),
            bytes: None,
            start: SimDuration::ZERO,
            tcp: tcp.clone(),
            receiver: receiver.clone(),
        })
        .collect();
    let s = Scenario {
        name: "dumbbell".into(),
        duration: secs(200),
        seed: 1,
        stop_when_done: true,
        tie_break: Default::default(),
        wire: Default::default(),
        nodes,
        links,
        media: vec![],
        flows,
    };
    let r = dupack_sim::run(&s, 1).expect("run");
    let goodput: f64 = r.flows.iter().map(|f| f.goodput_kbps).sum();
    println!(
        "{n} flows {variant}: {} events in {:.3} s wall = {:.1} M events/s; aggregate goodput {goodput:.0} kbit/s",
        r.run.events,
        r.run.wall_time_s,
        r.run.events as f64 / r.run.wall_time_s / 1e6
    );
}
