//! Scenario builders shared by the integration tests (the model directly,
//! so these tests do not depend on the TOML parser).
#![allow(dead_code)]

use dupack_sim::scenario::model::*;
use dupack_sim::tcp::variant::Variant;
use dupack_sim::time::{ms, us, SimDuration};

/// Does `variant` need SACK blocks from the receiver?
pub fn uses_sack(variant: &str) -> bool {
    dupack_sim::tcp::variant::parse_variant(variant).expect("a valid variant").uses_sack()
}

pub fn link(name: &str, a: usize, b: usize, rate_bps: u64, delay: SimDuration, queue: u32) -> LinkSpec {
    LinkSpec {
        name: name.into(),
        a,
        b,
        rate_bps,
        delay,
        queue: QueueSpec::DropTail { limit: QueueLimit::Packets(queue) },
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

pub fn node(name: &str, kind: NodeKind) -> NodeSpec {
    NodeSpec { name: name.into(), kind }
}

pub fn flow(name: &str, src: usize, dst: usize, variant: &str, tcp: TcpConfig, receiver: ReceiverConfig) -> FlowSpec {
    FlowSpec {
        name: name.into(),
        src,
        dst,
        variant: Variant::parse(variant).expect("a valid variant"),
        bytes: None,
        start: SimDuration::ZERO,
        tcp,
        receiver,
    }
}

/// Fall & Floyd 1996 §3: S1 —8 Mbps, 0.1 ms— R1 —0.8 Mbps, 100 ms— K1, a
/// receiver window of 20 segments of 1000 bytes, ACK every segment, and the
/// `drops`-th data packets (1-based, counting retransmissions) dropped on the
/// bottleneck.
pub fn fall_floyd(variant: &str, drops: &[u64]) -> Scenario {
    let tcp = TcpConfig { mss: 1000, ..TcpConfig::default() };
    let receiver = ReceiverConfig {
        window: 20 * 1000,
        ack: AckMode::Every,
        sack: uses_sack(variant),
        max_sack_blocks: 3,
        dsack: false,
        dda: None,
        sack_option_size: SackOptionSize::Rfc2018,
    };
    let mut bottleneck = link("bottleneck", 1, 2, 800_000, ms(100), 100);
    if !drops.is_empty() {
        bottleneck.fwd_error = ErrorSpec {
            model: ErrorModelSpec::DropList { flow: 0, packets: drops.to_vec() },
            applies_to: PacketSelector::Data,
        };
    }
    Scenario {
        name: format!("fall-floyd-{variant}-{}", drops.len()),
        duration: dupack_sim::time::secs(10),
        seed: 1,
        stop_when_done: true,
        tie_break: Default::default(),
        wire: Default::default(),
        nodes: vec![node("s1", NodeKind::Host), node("r1", NodeKind::Router), node("k1", NodeKind::Host)],
        links: vec![link("access", 0, 1, 8_000_000, us(100), 100), bottleneck],
        media: vec![],
        flows: vec![FlowSpec { bytes: Some(150 * 1000), ..flow("f0", 0, 2, variant, tcp, receiver) }],
    }
}

/// One greedy flow over sender —(100 Mbps, 1 ms)— router —(`rate`, `delay`)— sink,
/// with Bernoulli loss `p` on data packets of the second link. Large queues
/// and a large window: losses come from the error model only.
pub fn lossy_path(variant: &str, p: f64, rate_bps: u64, delay: SimDuration, duration: SimDuration) -> Scenario {
    let tcp = TcpConfig { mss: 1000, ..TcpConfig::default() };
    let receiver = ReceiverConfig {
        window: 1 << 24,
        ack: AckMode::Every,
        sack: uses_sack(variant),
        max_sack_blocks: 3,
        dsack: false,
        dda: None,
        sack_option_size: SackOptionSize::Rfc2018,
    };
    let mut l2 = link("path", 1, 2, rate_bps, delay, 10_000);
    l2.fwd_error = ErrorSpec { model: ErrorModelSpec::Bernoulli { p }, applies_to: PacketSelector::Data };
    Scenario {
        name: format!("lossy-{variant}-{p}"),
        duration,
        seed: 1,
        stop_when_done: true,
        tie_break: Default::default(),
        wire: Default::default(),
        nodes: vec![node("snd", NodeKind::Host), node("r", NodeKind::Router), node("rcv", NodeKind::Host)],
        links: vec![link("access", 0, 1, 100_000_000, ms(1), 10_000), l2],
        media: vec![],
        flows: vec![flow("f0", 0, 2, variant, tcp, receiver)],
    }
}

/// irw Fig. 2's path, from TOML (so the link-layer keys are parsed as a
/// user writes them): fixed host n0 → 10 Mbit/s wired hop → base station n1
/// → 2 Mbit/s wireless hop `hop1` with a 50-packet queue → mobile n2, one
/// flow "f" of 1000-byte segments. The fields are TOML fragments.
pub struct WirelessPath<'a> {
    pub duration: &'a str,
    pub wired_delay: &'a str,
    pub wireless_delay: &'a str,
    /// Keys added to the wireless hop (error model, `arq`, `snoop`, ...).
    pub wireless: &'a str,
    pub variant: &'a str,
    pub tcp: &'a str,
    pub window: &'a str,
    pub receiver: &'a str,
    /// Keys added to the flow (`bytes`).
    pub flow: &'a str,
}

impl Default for WirelessPath<'_> {
    fn default() -> Self {
        WirelessPath {
            duration: "60s",
            wired_delay: "20ms",
            wireless_delay: "10ms",
            wireless: "",
            variant: "reno",
            tcp: "",
            window: "32000B",
            receiver: "",
            flow: "",
        }
    }
}

impl WirelessPath<'_> {
    pub fn build(&self) -> Scenario {
        let p = self;
        let text = format!(
            r#"
            [run]
            duration = "{}"
            stop_when_done = true
            [topology]
            kind = "chain"
            [[topology.hops]]
            rate = "10Mbps"
            delay = "{}"
            [[topology.hops]]
            rate = "2Mbps"
            delay = "{}"
            queue = {{ limit_packets = 50 }}
            {}
            [tcp]
            variant = "{}"
            mss = "1000B"
            {}
            [receiver]
            window = "{}"
            {}
            [[flows]]
            name = "f"
            {}
            "#,
            p.duration, p.wired_delay, p.wireless_delay, p.wireless, p.variant, p.tcp, p.window, p.receiver, p.flow
        );
        dupack_sim::scenario::parse::parse_scenario_toml(&text).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// Check a table of scenario texts that must be refused: each row is
/// (what, TOML text, the error's path, fragments its message must contain).
/// Every failing row is reported, not only the first.
pub fn assert_refused(cases: &[(&str, String, &str, &[&str])]) {
    let mut failures = Vec::new();
    for (what, text, path, fragments) in cases {
        let e = match dupack_sim::scenario::parse_scenario_toml(text) {
            Ok(_) => {
                failures.push(format!("{what}: accepted"));
                continue;
            }
            Err(e) => e,
        };
        if e.path != *path {
            failures.push(format!("{what}: path {:?}, want {path:?} ({e})", e.path));
        }
        for f in *fragments {
            if !e.message.contains(f) {
                failures.push(format!("{what}: message lacks {f:?}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
