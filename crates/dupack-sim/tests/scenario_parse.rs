//! Scenario parsing: documented examples, defaults, builder expansion and a
//! table of malformed inputs with the path and message each must produce.

mod common;
use dupack_sim::scenario::model::*;
use dupack_sim::scenario::{parse_scenario, parse_scenario_toml, ScenarioError};
use dupack_sim::time::{ms, secs, us, SimDuration};
use serde_json::json;

const DOCS: &str = include_str!("../../../docs/scenario.md");
const QUICKSTART: &str = include_str!("../../../scenarios/quickstart.toml");

fn ok(text: &str) -> Scenario {
    match parse_scenario_toml(text) {
        Ok(s) => s,
        Err(e) => panic!("scenario rejected: {e}\n---\n{text}"),
    }
}

fn bad(text: &str) -> ScenarioError {
    match parse_scenario_toml(text) {
        Ok(s) => panic!("scenario accepted: {s:?}\n---\n{text}"),
        Err(e) => e,
    }
}

/// The complete scenarios among the ```toml blocks of the documentation.
fn doc_examples() -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for line in DOCS.lines() {
        match &mut cur {
            None if line.trim_end() == "```toml" => cur = Some(String::new()),
            None => {}
            Some(block) if line.trim_end() == "```" => {
                if !block.starts_with("# fragment") {
                    out.push(std::mem::take(block));
                }
                cur = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    out
}

fn names(s: &Scenario) -> Vec<&str> {
    s.nodes.iter().map(|n| n.name.as_str()).collect()
}

fn link<'a>(s: &'a Scenario, name: &str) -> &'a LinkSpec {
    s.links.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}"))
}

fn flow<'a>(s: &'a Scenario, name: &str) -> &'a FlowSpec {
    s.flows.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no flow {name}"))
}

const DUMBBELL: &str = r#"
[topology]
kind = "dumbbell"
senders = 2
access = { rate = "10Mbps", delay = "1ms" }
bottleneck = { rate = "1Mbps", delay = "10ms" }
"#;

// ---------------------------------------------------------------------------
// Valid input
// ---------------------------------------------------------------------------

#[test]
fn documented_star_example_means_what_it_says() {
    let ex = doc_examples().into_iter().find(|e| e.contains("kind = \"star\"")).expect("a star example");
    let s = ok(&ex);
    assert_eq!(names(&s), ["server", "hub", "m0", "m1", "m2", "m3"]);
    assert_eq!(s.nodes[1].kind, NodeKind::Router);
    let up = link(&s, "uplink");
    assert_eq!((up.a, up.b, up.rate_bps), (0, 1, 100_000_000));
    for i in 0..4 {
        let l = link(&s, &format!("leaf{i}"));
        assert_eq!((l.a, l.b, l.rate_bps), (1, 2 + i, 384_000));
        let arq = l.arq.as_ref().expect("rlc-am on every leaf");
        assert_eq!((arq.window, arq.retry_limit, arq.in_order), (Some(32), 3, false));
        assert_eq!(arq.discard, Some(ms(1500)));
        let lossy = matches!(l.fwd_error.model, ErrorModelSpec::Bernoulli { p } if p == 0.05);
        assert_eq!(lossy, i >= 2, "leaf{i}: only the overridden leaves lose packets");
        assert!(l.arq.is_some(), "an override replaces only the keys it gives");
    }
    assert_eq!(s.flows.len(), 4, "one download per leaf");
    for (i, f) in s.flows.iter().enumerate() {
        assert_eq!((f.name.as_str(), f.src, f.dst), (format!("f{i}").as_str(), 0, 2 + i));
        assert_eq!(f.variant, "reno+eplr");
    }
}

#[test]
fn a_star_whose_leaves_share_a_medium_with_the_hub() {
    // efr Fig. 1: a fixed host behind an access point, mobiles on one WLAN.
    let s = ok(r#"
        [topology]
        kind = "star"
        leaves = 3
        uplink = { rate = "10Mbps", delay = "2ms" }
        medium = { name = "wavelan", rate = "2Mbps" }
        [[flows]]
        from = "m0"
        to = "server"
        "#);
    assert_eq!(names(&s), ["server", "hub", "m0", "m1", "m2"]);
    assert_eq!(s.links.len(), 1, "only the uplink is a point-to-point link");
    let m = &s.media[0];
    assert_eq!((m.name.as_str(), m.stations.clone(), m.access_point), ("wavelan", vec![1, 2, 3, 4], Some(1)));
    assert_eq!(m.rate_bps, 2_000_000);
    let r = dupack_sim::run(&s, 1).unwrap();
    assert!(r.flows[0].bytes_delivered > 0, "m0 reaches the server through the access point");
}

#[test]
fn a_star_without_uplink_sends_from_the_hub() {
    let s = ok("[topology]\nkind = \"star\"\nleaves = 2\nleaf = { rate = \"2Mbps\", delay = \"1ms\" }\n");
    assert_eq!(names(&s), ["hub", "m0", "m1"]);
    assert_eq!(s.nodes[0].kind, NodeKind::Host);
    assert_eq!(s.flows.iter().map(|f| (f.src, f.dst)).collect::<Vec<_>>(), [(0, 1), (0, 2)]);
}

#[test]
fn a_dumbbell_with_one_receiver_per_sender() {
    let s = ok(&dumbbell_with("receivers = 2\nexit = { rate = \"10Mbps\", delay = \"3ms\" }"));
    assert_eq!(names(&s), ["s0", "s1", "router", "router2", "k0", "k1"]);
    let b = link(&s, "bottleneck");
    assert_eq!((b.a, b.b), (2, 3));
    assert_eq!(s.nodes[3].kind, NodeKind::Router);
    let e1 = link(&s, "exit1");
    assert_eq!((e1.a, e1.b, e1.delay), (3, 5, ms(3)));
    assert_eq!(s.flows.iter().map(|f| (f.src, f.dst)).collect::<Vec<_>>(), [(0, 4), (1, 5)]);
}

#[test]
fn every_documented_example_parses() {
    let examples = doc_examples();
    assert_eq!(examples.len(), 4, "one complete example per topology kind");
    for text in &examples {
        ok(text);
    }
}

#[test]
fn documented_dumbbell_example_means_what_it_says() {
    let ex = doc_examples();
    let s = ok(&ex[0]);
    assert_eq!(s.name, "dumbbell-example");
    assert_eq!((s.duration, s.seed), (secs(30), 7));
    assert_eq!(link(&s, "bottleneck").queue, QueueSpec::DropTail { limit: QueueLimit::Bytes(30_000) });
    for (i, (delay, lossy)) in [(ms(10), true), (ms(2), false), (ms(10), true)].into_iter().enumerate() {
        let l = link(&s, &format!("access{i}"));
        assert_eq!(l.delay, delay);
        assert_eq!(l.rate_bps, 100_000_000, "rate comes from the template");
        let want = if lossy {
            ErrorSpec { model: ErrorModelSpec::Bernoulli { p: 0.02 }, applies_to: PacketSelector::Data }
        } else {
            ErrorSpec::none()
        };
        assert_eq!(l.fwd_error, want);
    }
    let f0 = flow(&s, "f0");
    assert_eq!((f0.variant.as_str(), f0.bytes, f0.receiver.sack), ("reno", Some(1_000_000), false));
    let late = flow(&s, "late");
    assert_eq!((late.variant.as_str(), late.start, late.receiver.sack), ("sack", secs(5), true));
    let f2 = flow(&s, "f2");
    assert_eq!(f2.tcp.mss, 536);
    assert_eq!(f2.tcp.rto.min, ms(200));
    assert_eq!(f2.tcp.rto.max, secs(60), "partial rto override keeps the other keys");
    assert_eq!(f2.receiver.window, 65536);
}

#[test]
fn documented_chain_and_custom_examples_mean_what_they_say() {
    let ex = doc_examples();
    let c = ok(&ex[1]);
    let hop1 = link(&c, "hop1");
    assert_eq!(hop1.fwd_error.model, ErrorModelSpec::Ber { ber: 1e-6 });
    assert_eq!(
        hop1.rev_error,
        ErrorSpec { model: ErrorModelSpec::Bernoulli { p: 0.01 }, applies_to: PacketSelector::Acks }
    );
    let f0 = &c.flows[0];
    assert_eq!(f0.tcp.rto.mode, RtoMode::Coarse { tick: ms(500) });
    assert_eq!(f0.tcp.rto.max, secs(64), "coarse timer has its own default max");
    assert_eq!(f0.receiver.ack, AckMode::Delayed { timeout: ms(100), every: 2 });
    assert!(f0.tcp.timestamps);

    let s = ok(&ex[3]);
    assert_eq!(names(&s), ["alice", "bob", "r1", "r2", "server"]);
    let link_names: Vec<&str> = s.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(link_names, ["alice-r1", "bob-r1", "wireless", "r2-server"]);
    let w = link(&s, "wireless");
    assert_eq!((w.a, w.b), (2, 3));
    assert_eq!(w.fwd_error.model, ErrorModelSpec::DropList { flow: 0, packets: vec![10, 30] });
    assert_eq!(w.fwd_error.applies_to, PacketSelector::Data);
    let bulk = flow(&s, "bulk");
    assert_eq!((bulk.src, bulk.dst, bulk.receiver.sack, bulk.receiver.window), (0, 4, true, 32 * 1024));
    let short = flow(&s, "short");
    assert_eq!((short.src, short.bytes, short.start), (1, Some(102_400), ms(2500)));
    assert_eq!(short.receiver.ack, AckMode::Delayed { timeout: ms(200), every: 2 });
    assert_eq!(short.receiver.window, 32 * 1024, "global receiver keys are kept");
    assert!(!s.stop_when_done);
}

#[test]
fn quickstart_parses_and_matches_its_comments() {
    let s = ok(QUICKSTART);
    assert_eq!(s.name, "quickstart");
    assert_eq!(s.duration, secs(30));
    assert_eq!(names(&s), ["s0", "s1", "s2", "s3", "router", "sink"]);
    assert_eq!(s.links.len(), 5);
    for i in 0..4 {
        let l = link(&s, &format!("access{i}"));
        assert_eq!((l.a, l.b, l.rate_bps, l.delay), (i, 4, 10_000_000, ms(1)));
        let want = if i == 3 {
            ErrorSpec { model: ErrorModelSpec::Bernoulli { p: 0.01 }, applies_to: PacketSelector::Data }
        } else {
            ErrorSpec::none()
        };
        assert_eq!(l.fwd_error, want, "access{i}");
        assert_eq!(l.rev_error, ErrorSpec::none());
    }
    let b = link(&s, "bottleneck");
    assert_eq!((b.a, b.b, b.rate_bps, b.delay), (4, 5, 1_500_000, ms(20)));
    assert_eq!(b.queue, QueueSpec::DropTail { limit: QueueLimit::Packets(30) });
    assert_eq!(s.flows.len(), 4);
    for (i, f) in s.flows.iter().enumerate() {
        assert_eq!(
            (f.name.clone(), f.src, f.dst, f.variant.as_str(), f.bytes),
            (format!("f{i}"), i, 5, "newreno", None)
        );
    }
}

#[test]
fn defaults_are_applied() {
    let s = ok(DUMBBELL);
    assert_eq!(s.name, "scenario");
    assert_eq!((s.duration, s.seed, s.stop_when_done), (secs(60), 1, true));
    for l in &s.links {
        assert_eq!(l.queue, QueueSpec::DropTail { limit: QueueLimit::Packets(100) });
        assert_eq!((&l.fwd_error, &l.rev_error), (&ErrorSpec::none(), &ErrorSpec::none()));
    }
    assert_eq!(s.flows.len(), 2);
    for f in &s.flows {
        assert_eq!(f.variant, "newreno");
        assert_eq!((f.bytes, f.start), (None, SimDuration::ZERO));
        assert_eq!(f.tcp, TcpConfig::default());
        assert_eq!(f.receiver, ReceiverConfig::default());
    }
    // Spelled-out defaults give the same model.
    let explicit = ok(&format!(
        r#"name = "scenario"
[run]
duration = "60s"
seed = 1
stop_when_done = true
[tcp]
variant = "newreno"
mss = "1460B"
initial_window = 1
dupthresh = 3
timestamps = false
reno_avoid_multiple_fr = true
newreno_full_ack = "flightsize"
newreno_rto_reset = "first"
rto = {{ timer = "fine", granularity = "1ms", initial = "1s", min = "1s", max = "60s", max_backoff_shift = 6, on_fast_retransmit = "restart" }}
[receiver]
window = "64KiB"
ack = "every"
sack = "auto"
max_sack_blocks = 3
{DUMBBELL}"#
    ));
    assert_eq!(explicit, s);
    // Delayed-ACK defaults and the sack = "auto" rule.
    let s = ok(&format!("{DUMBBELL}\n[tcp]\nvariant = \"sack\"\n[receiver]\nack = \"delayed\"\n"));
    assert_eq!(s.flows[0].receiver.ack, AckMode::Delayed { timeout: ms(200), every: 2 });
    assert!(s.flows[0].receiver.sack);
}

#[test]
fn dumbbell_builder_expands_exactly() {
    let s = ok(&format!(
        "{DUMBBELL}\n[[topology.access_override]]\nsenders = [1]\nrate = \"5Mbps\"\nqueue = {{ limit_packets = 7 }}\n"
    ));
    assert_eq!(names(&s), ["s0", "s1", "router", "sink"]);
    let kinds: Vec<NodeKind> = s.nodes.iter().map(|n| n.kind).collect();
    assert_eq!(kinds, [NodeKind::Host, NodeKind::Host, NodeKind::Router, NodeKind::Host]);
    let shape: Vec<(&str, usize, usize, u64)> =
        s.links.iter().map(|l| (l.name.as_str(), l.a, l.b, l.rate_bps)).collect();
    assert_eq!(shape, [("access0", 0, 2, 10_000_000), ("access1", 1, 2, 5_000_000), ("bottleneck", 2, 3, 1_000_000)]);
    assert_eq!(s.links[1].delay, ms(1), "override keeps template keys it does not name");
    assert_eq!(s.links[1].queue, QueueSpec::DropTail { limit: QueueLimit::Packets(7) });
    assert_eq!(s.links[0].queue, QueueSpec::DropTail { limit: QueueLimit::Packets(100) });
    let ends: Vec<(usize, usize)> = s.flows.iter().map(|f| (f.src, f.dst)).collect();
    assert_eq!(ends, [(0, 3), (1, 3)]);
}

#[test]
fn chain_builder_expands_exactly() {
    let s = ok(r#"
[topology]
kind = "chain"
hops = [
  { rate = "1Mbps", delay = "1ms" },
  { rate = "2Mbps", delay = "2ms" },
  { rate = "3Mbps", delay = "0.5ms" },
]
"#);
    assert_eq!(names(&s), ["n0", "n1", "n2", "n3"]);
    let kinds: Vec<NodeKind> = s.nodes.iter().map(|n| n.kind).collect();
    assert_eq!(kinds, [NodeKind::Host, NodeKind::Router, NodeKind::Router, NodeKind::Host]);
    let shape: Vec<(&str, usize, usize, u64, SimDuration)> =
        s.links.iter().map(|l| (l.name.as_str(), l.a, l.b, l.rate_bps, l.delay)).collect();
    assert_eq!(
        shape,
        [("hop0", 0, 1, 1_000_000, ms(1)), ("hop1", 1, 2, 2_000_000, ms(2)), ("hop2", 2, 3, 3_000_000, us(500))]
    );
    assert_eq!(s.flows.len(), 1);
    assert_eq!((s.flows[0].name.as_str(), s.flows[0].src, s.flows[0].dst), ("f0", 0, 3));
    // One hop: both ends are hosts.
    let s = ok("[topology]\nkind = \"chain\"\nhops = [{ rate = \"1Mbps\", delay = \"0s\" }]\n");
    assert_eq!(
        s.nodes,
        [NodeSpec { name: "n0".into(), kind: NodeKind::Host }, NodeSpec { name: "n1".into(), kind: NodeKind::Host }]
    );
}

#[test]
fn flow_overrides_merge_key_by_key() {
    let s = ok(&format!(
        r#"{DUMBBELL}
[tcp]
mss = "1000B"
dupthresh = 5
rto = {{ granularity = "10ms", min = "200ms" }}
[receiver]
ack = "delayed"
delack_every = 3

[[flows]]
tcp = {{ rto = {{ timer = "coarse" }} }}
receiver = {{ ack = "every" }}

[[flows]]
tcp = {{ variant = "tahoe", dupthresh = 2, rto = {{ max = "10s" }} }}
receiver = {{ delack_timeout = "50ms" }}
"#
    ));
    let (a, b) = (&s.flows[0], &s.flows[1]);
    // A flow that switches to the coarse timer does not inherit granularity.
    assert_eq!(a.tcp.rto.mode, RtoMode::Coarse { tick: ms(500) });
    assert_eq!((a.tcp.rto.min, a.tcp.rto.max, a.tcp.mss, a.tcp.dupthresh), (ms(200), secs(64), 1000, 5));
    assert_eq!(a.receiver.ack, AckMode::Every);
    assert_eq!(b.variant, "tahoe");
    assert_eq!(b.tcp.rto.mode, RtoMode::Fine { granularity: ms(10) });
    assert_eq!((b.tcp.rto.min, b.tcp.rto.max, b.tcp.dupthresh), (ms(200), secs(10), 2));
    assert_eq!(b.receiver.ack, AckMode::Delayed { timeout: ms(50), every: 3 });
}

const CHAIN3: &str = r#"
[topology]
kind = "chain"
hops = [
  { rate = "10Mbps", delay = "5ms" },
  { rate = "2Mbps", delay = "100ms" },
  { rate = "1Mbps", delay = "20ms" },
]
"#;

#[test]
fn dda_auto_is_one_round_trip_of_the_link_into_the_receiver() {
    // Off unless asked for.
    assert_eq!(ok(CHAIN3).flows[0].receiver.dda, None);
    // n0 → n3: the data arrives over hop2 (20 ms one way): 2 × 20 ms.
    let s = ok(&format!("{CHAIN3}\n[receiver]\ndda = \"auto\"\n"));
    assert_eq!(s.flows[0].receiver.dda, Some(ms(40)));
    // Resolved per flow from its own route: the reverse flow ends over hop0;
    // an explicit duration is taken as written.
    let s = ok(&format!(
        r#"{CHAIN3}
[receiver]
dda = "auto"
[[flows]]
[[flows]]
from = "n3"
to = "n0"
[[flows]]
receiver = {{ dda = "250ms" }}
"#
    ));
    let dda: Vec<Option<SimDuration>> = s.flows.iter().map(|f| f.receiver.dda).collect();
    assert_eq!(dda, [Some(ms(40)), Some(ms(10)), Some(ms(250))]);
    // Dumbbell: the bottleneck (10 ms) is the sink's only link.
    let s = ok(&format!("{DUMBBELL}\n[receiver]\ndda = \"auto\"\n"));
    assert!(s.flows.iter().all(|f| f.receiver.dda == Some(ms(20))));
    // Custom: the route's last link, not just any link of the receiver.
    let s = ok(r#"
[topology]
kind = "custom"
nodes = [{ name = "a" }, { name = "r" }, { name = "b" }, { name = "c" }]
links = [
  { a = "a", b = "r", rate = "1Mbps", delay = "1ms" },
  { a = "c", b = "b", rate = "1Mbps", delay = "7ms" },
  { a = "r", b = "b", rate = "1Mbps", delay = "3ms" },
]
[receiver]
dda = "auto"
[[flows]]
from = "a"
to = "b"
[[flows]]
from = "c"
to = "b"
"#);
    let dda: Vec<Option<SimDuration>> = s.flows.iter().map(|f| f.receiver.dda).collect();
    assert_eq!(dda, [Some(ms(6)), Some(ms(14))]);
}

#[test]
fn json_input_with_nulls_and_display() {
    let v = json!({
        "name": null,
        "topology": {"kind": "chain", "hops": [{"rate": "1Mbps", "delay": "1ms", "queue": null}]},
        "tcp": {"max_cwnd": null},
    });
    let s = parse_scenario(&v).expect("null means absent");
    assert_eq!(s.name, "scenario");
    assert_eq!(s.flows[0].tcp.max_cwnd, u64::MAX);
    let e = parse_scenario(&json!(3)).unwrap_err();
    assert_eq!(e.to_string(), "expected a table at the top level, got the number 3");
    let e = parse_scenario(&json!({"topology": {"kind": "chain", "hops": [{"rate": 2, "delay": "1ms"}]}})).unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"topology.hops[0].rate: expected a rate such as "2Mbps" or "64kbps" (units bps, kbps, Mbps, Gbps), got the number 2; write it with a unit, e.g. "2Mbps""#
    );
}

#[test]
fn first_error_is_deterministic() {
    // Several problems: unknown keys come first, alphabetically.
    let e = bad(&format!("{DUMBBELL}\n[tcp]\nzzz = 1\naaa = 2\nmss = 0\n"));
    assert_eq!(e.path, "tcp.aaa");
    for _ in 0..5 {
        assert_eq!(bad(&format!("{DUMBBELL}\n[tcp]\nzzz = 1\naaa = 2\n")), e);
    }
}

// ---------------------------------------------------------------------------
// Malformed input
// ---------------------------------------------------------------------------

/// A small custom topology: a (host) — r (router) — b (host), plus c (host)
/// with no links.
const CUSTOM: &str = r#"
[topology]
kind = "custom"
nodes = [{ name = "a" }, { name = "r", kind = "router" }, { name = "b" }, { name = "c" }]
links = [
  { a = "a", b = "r", rate = "1Mbps", delay = "1ms" },
  { a = "r", b = "b", rate = "1Mbps", delay = "1ms" },
]
"#;

fn dumbbell_with(extra: &str) -> String {
    format!("{DUMBBELL}\n{extra}\n")
}

fn custom_with(extra: &str) -> String {
    format!("{CUSTOM}\n{extra}\n")
}

/// Write a trace file for a test; returns its path.
fn trace_file(name: &str, text: &str) -> String {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("scenario_parse_traces");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn malformed_inputs_name_the_path_and_the_problem() {
    let bottleneck = |kv: &str| {
        format!(
            "[topology]\nkind = \"dumbbell\"\nsenders = 2\naccess = {{ rate = \"10Mbps\", delay = \"1ms\" }}\nbottleneck = {{ {kv} }}\n"
        )
    };
    let good = trace_file("good.trace", "1\n2\n3\n");
    let t = |name: &str, text: &str| trace_file(name, text);
    let traced =
        |trace_kv: &str| bottleneck(&format!(r#"rate = "2Mbps", delay = "1ms", fwd_trace = {{ {trace_kv} }}"#));
    let file_kv = |f: &str| format!("file = {f:?}");
    let cases: Vec<(&str, String, &str, &[&str])> = vec![
        (
            "trace: missing file",
            traced(&file_kv("/nonexistent/dupack/cell.trace")),
            "topology.bottleneck.fwd_trace.file",
            &["cannot read trace file \"/nonexistent/dupack/cell.trace\""],
        ),
        (
            "trace: malformed line",
            traced(&file_kv(&t("bad-line.trace", "1\n2\n3.5\n4\n"))),
            "topology.bottleneck.fwd_trace.file",
            &["bad-line.trace\", line 3", "expected a whole number of milliseconds (digits only), got \"3.5\""],
        ),
        (
            "trace: negative timestamp",
            traced(&file_kv(&t("negative.trace", "-1\n2\n"))),
            "topology.bottleneck.fwd_trace.file",
            &["line 1", "got \"-1\""],
        ),
        (
            "trace: decreasing timestamps",
            traced(&file_kv(&t("decreasing.trace", "1\n5\n4\n"))),
            "topology.bottleneck.fwd_trace.file",
            &["line 3", "timestamp 4 is smaller than the one before it (5); timestamps must not decrease"],
        ),
        (
            "trace: blank line",
            traced(&file_kv(&t("blank.trace", "1\n\n3\n"))),
            "topology.bottleneck.fwd_trace.file",
            &["line 2", "empty line"],
        ),
        (
            "trace: empty file",
            traced(&file_kv(&t("empty.trace", ""))),
            "topology.bottleneck.fwd_trace.file",
            &["empty.trace\": the trace is empty"],
        ),
        (
            "trace: zero period",
            traced(&file_kv(&t("zero.trace", "0\n0\n"))),
            "topology.bottleneck.fwd_trace.file",
            &["line 2", "the last timestamp is the trace's period and must be greater than 0"],
        ),
        (
            "trace: no file key",
            traced(r#"mtu = "1500B""#),
            "topology.bottleneck.fwd_trace.file",
            &["missing required key 'file' (the path of a mahimahi trace file)"],
        ),
        (
            "trace: unknown key",
            traced(&format!("path = {good:?}")),
            "topology.bottleneck.fwd_trace.path",
            &["unknown key 'path'", "allowed keys here: file, mtu"],
        ),
        (
            "trace: mtu of zero",
            traced(&format!(r#"file = {good:?}, mtu = "0B""#)),
            "topology.bottleneck.fwd_trace.mtu",
            &["must be between 1 and 65535 bytes"],
        ),
        (
            "trace: mtu without unit",
            traced(&format!("file = {good:?}, mtu = 1500")),
            "topology.bottleneck.fwd_trace.mtu",
            &["write it with a unit"],
        ),
        (
            "trace: a string, not a table",
            bottleneck(&format!(r#"rate = "2Mbps", delay = "1ms", rev_trace = {good:?}"#)),
            "topology.bottleneck.rev_trace",
            &["expected a table, got the string"],
        ),
        (
            "trace: rate with both directions traced",
            bottleneck(&format!(
                r#"rate = "2Mbps", delay = "1ms", fwd_trace = {{ file = {good:?} }}, rev_trace = {{ file = {good:?} }}"#
            )),
            "topology.bottleneck.rate",
            &["not used: both directions follow a trace", "leave rate out"],
        ),
        (
            "trace: one direction traced, no rate",
            bottleneck(&format!(r#"delay = "1ms", fwd_trace = {{ file = {good:?} }}"#)),
            "topology.bottleneck.rate",
            &["missing required key 'rate'", "only a link with both fwd_trace and rev_trace needs none"],
        ),
        (
            "unknown key with suggestion",
            bottleneck(r#"rat = "2Mbps", delay = "1ms""#),
            "topology.bottleneck.rat",
            &[
                "unknown key 'rat'",
                "did you mean 'rate'?",
                "allowed keys here: rate, delay, queue, fwd_error, rev_error",
            ],
        ),
        ("unknown top-level key, case slip", format!("Flows = []\n{DUMBBELL}"), "Flows", &["did you mean 'flows'?"]),
        (
            "wrong type",
            "[topology]\nkind = \"dumbbell\"\nsenders = \"3\"\n".into(),
            "topology.senders",
            &[r#"expected an integer, got the string "3""#],
        ),
        (
            "integer written as float",
            dumbbell_with("[tcp]\ndupthresh = 3.0"),
            "tcp.dupthresh",
            &["expected an integer, got the number 3.0"],
        ),
        (
            "negative rate",
            bottleneck(r#"rate = "-2Mbps", delay = "1ms""#),
            "topology.bottleneck.rate",
            &["cannot be negative", "\"-2Mbps\""],
        ),
        (
            "zero rate",
            bottleneck(r#"rate = "0Mbps", delay = "1ms""#),
            "topology.bottleneck.rate",
            &["must be greater than 0, got \"0Mbps\""],
        ),
        (
            "bare number for a unit field",
            bottleneck(r#"rate = "2Mbps", delay = 20"#),
            "topology.bottleneck.delay",
            &["got the number 20; write it with a unit, e.g. \"20ms\""],
        ),
        (
            "bad unit",
            bottleneck(r#"rate = "2Mbps", delay = "20min""#),
            "topology.bottleneck.delay",
            &["unknown unit \"min\"", "units ns, us, ms, s"],
        ),
        (
            "unit of the wrong kind",
            bottleneck(r#"rate = "2MB", delay = "20ms""#),
            "topology.bottleneck.rate",
            &["\"MB\" is a unit of size"],
        ),
        (
            "missing required key",
            bottleneck(r#"rate = "2Mbps""#),
            "topology.bottleneck.delay",
            &["missing required key 'delay'"],
        ),
        (
            "loss p = 1.5",
            dumbbell_with(
                "[[topology.access_override]]\nsenders = [0]\nfwd_error = { model = \"bernoulli\", p = 1.5 }",
            ),
            "topology.access_override[0].fwd_error.p",
            &["must be between 0 and 1, got 1.5"],
        ),
        (
            "key of another error model",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "ber", p = 0.1 }"#),
            "topology.bottleneck.fwd_error.p",
            &["belongs to model \"bernoulli\", not \"ber\"", "allowed keys here: model, ber, applies_to"],
        ),
        (
            "key of another topology kind",
            dumbbell_with("").replace("senders = 2", "senders = 2\nhops = []"),
            "topology.hops",
            &["belongs to topology kind \"chain\""],
        ),
        (
            "override sender out of range",
            dumbbell_with("[[topology.access_override]]\nsenders = [2]\ndelay = \"5ms\""),
            "topology.access_override[0].senders[0]",
            &["must be between 0 and 1, got 2", "2 senders"],
        ),
        (
            "sender in two overrides",
            dumbbell_with(
                "[[topology.access_override]]\nsenders = [1]\n[[topology.access_override]]\nsenders = [0, 1]",
            ),
            "topology.access_override[1].senders[1]",
            &["sender 1 is already overridden (topology.access_override[0])"],
        ),
        (
            "both queue limits",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { limit_packets = 5, limit_bytes = "10KB" }"#),
            "topology.bottleneck.queue.limit_bytes",
            &["either limit_packets or limit_bytes"],
        ),
        (
            "red: unknown key",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", minth = 5 }"#),
            "topology.bottleneck.queue.minth",
            &[
                "unknown key 'minth'",
                "did you mean 'min_th'?",
                "allowed keys here: kind, min_th, max_th, limit_packets",
            ],
        ),
        (
            "red: limit_bytes belongs to droptail",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", limit_bytes = "10KB" }"#),
            "topology.bottleneck.queue.limit_bytes",
            &["belongs to queue kind \"droptail\", not \"red\""],
        ),
        (
            "red: droptail key with red kind misspelt",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "RED" }"#),
            "topology.bottleneck.queue.kind",
            &["unknown value \"RED\"; did you mean \"red\"?"],
        ),
        (
            "arq: unknown preset",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", arq = { preset = "rlc" }"#),
            "topology.bottleneck.arq.preset",
            &["unknown value \"rlc\"", "\"rlc-am\""],
        ),
        (
            "arq: negative nak_timeout",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", arq = { nak_timeout = "-5ms" }"#),
            "topology.bottleneck.arq.nak_timeout",
            &["\"-5ms\"", "negative", "or \"auto\""],
        ),
        (
            "arq: zero window",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", arq = { window = 0 }"#),
            "topology.bottleneck.arq.window",
            &["got 0", "or \"unlimited\""],
        ),
        (
            "arq: misspelt key",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", arq = { retries = 3 }"#),
            "topology.bottleneck.arq.retries",
            &["unknown key 'retries'", "retry_limit"],
        ),
        (
            "arq: bad direction",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", arq = { directions = "down" }"#),
            "topology.bottleneck.arq.directions",
            &["unknown value \"down\"", "\"fwd\""],
        ),
        (
            "snoop: zero min_timeout",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", snoop = { min_timeout = "0ms" }"#),
            "topology.bottleneck.snoop.min_timeout",
            &["must be greater than 0", "or \"auto\""],
        ),
        (
            "snoop: unknown local_rexmit",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", snoop = { local_rexmit = "later" }"#),
            "topology.bottleneck.snoop.local_rexmit",
            &["unknown value \"later\"", "\"priority\"", "\"queue\""],
        ),
        (
            "snoop: not a table",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", snoop = true"#),
            "topology.bottleneck.snoop",
            &["table"],
        ),
        (
            "red: min_th = max_th",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", min_th = 15, max_th = 15 }"#),
            "topology.bottleneck.queue.max_th",
            &["must be greater than min_th (15), got 15"],
        ),
        (
            "red: min_th above the default max_th",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", min_th = 20 }"#),
            "topology.bottleneck.queue.min_th",
            &["must be less than max_th (15, the default), got 20"],
        ),
        (
            "red: max_th above limit",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", max_th = 60, limit_packets = 50 }"#),
            "topology.bottleneck.queue.limit_packets",
            &["must be at least max_th (60), got 50"],
        ),
        (
            "red: max_th above the default limit",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", max_th = 60 }"#),
            "topology.bottleneck.queue.max_th",
            &["must be at most limit_packets (50, the default), got 60"],
        ),
        (
            "red: wq = 0",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", wq = 0 }"#),
            "topology.bottleneck.queue.wq",
            &["must be greater than 0 and at most 1, got 0"],
        ),
        (
            "red: wq > 1",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", wq = 1.5 }"#),
            "topology.bottleneck.queue.wq",
            &["must be greater than 0 and at most 1, got 1.5"],
        ),
        (
            "red: maxp = 0",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", maxp = 0.0 }"#),
            "topology.bottleneck.queue.maxp",
            &["must be greater than 0 and at most 1, got 0.0"],
        ),
        (
            "red: maxp > 1",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", maxp = 2 }"#),
            "topology.bottleneck.queue.maxp",
            &["must be greater than 0 and at most 1, got 2"],
        ),
        (
            "red: maxp as a string",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", maxp = "0.1" }"#),
            "topology.bottleneck.queue.maxp",
            &["expected a number greater than 0 and at most 1, got the string \"0.1\""],
        ),
        (
            "red: negative min_th",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", min_th = -1 }"#),
            "topology.bottleneck.queue.min_th",
            &["must be between 0 and 999999, got -1"],
        ),
        (
            "red: zero limit",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", limit_packets = 0 }"#),
            "topology.bottleneck.queue.limit_packets",
            &["must be between 1 and 1000000, got 0"],
        ),
        (
            "red: gentle not a bool",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", gentle = "yes" }"#),
            "topology.bottleneck.queue.gentle",
            &["expected a boolean"],
        ),
        (
            "red: ecn not a bool",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", ecn = 1 }"#),
            "topology.bottleneck.queue.ecn",
            &["expected a boolean"],
        ),
        (
            "red: mark_above_max_th without ecn",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", mark_above_max_th = true }"#),
            "topology.bottleneck.queue.mark_above_max_th",
            &["needs ecn = true"],
        ),
        (
            "red: mean_packet_size without unit",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", mean_packet_size = 1000 }"#),
            "topology.bottleneck.queue.mean_packet_size",
            &["write it with a unit"],
        ),
        (
            "red: mean_packet_size zero",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", queue = { kind = "red", mean_packet_size = "0B" }"#),
            "topology.bottleneck.queue.mean_packet_size",
            &["must be between 1 and 65535 bytes"],
        ),
        (
            "ge: p_gb above 1",
            bottleneck(
                r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "gilbert_elliott", p_gb = 1.5, p_bg = 0.5 }"#,
            ),
            "topology.bottleneck.fwd_error.p_gb",
            &["must be between 0 and 1, got 1.5"],
        ),
        (
            "ge: negative p_bad",
            bottleneck(
                r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "gilbert_elliott", p_bad = -0.1, p_gb = 0.1, p_bg = 0.5 }"#,
            ),
            "topology.bottleneck.fwd_error.p_bad",
            &["must be between 0 and 1, got -0.1"],
        ),
        (
            "ge: both parameterisations",
            bottleneck(
                r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "gilbert_elliott", p_gb = 0.1, p_bg = 0.5, mean_bad_packets = 2 }"#,
            ),
            "topology.bottleneck.fwd_error.mean_bad_packets",
            &[
                "give either p_gb and p_bg",
                "or mean_good_packets and mean_bad_packets",
                "not both",
                "p_gb is given too",
            ],
        ),
        (
            "ge: p_gb without p_bg",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "gilbert_elliott", p_gb = 0.1 }"#),
            "topology.bottleneck.fwd_error.p_bg",
            &["missing required key 'p_bg'", "p_gb is given"],
        ),
        (
            "ge: mean_bad_packets without mean_good_packets",
            bottleneck(
                r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "gilbert_elliott", mean_bad_packets = 3 }"#,
            ),
            "topology.bottleneck.fwd_error.mean_good_packets",
            &["missing required key 'mean_good_packets'", "mean_bad_packets is given"],
        ),
        (
            "ge: no transitions",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "gilbert_elliott", p_bad = 0.5 }"#),
            "topology.bottleneck.fwd_error.p_gb",
            &["missing the transitions", "p_gb and p_bg", "mean_good_packets and mean_bad_packets"],
        ),
        (
            "ge: mean below one packet",
            bottleneck(
                r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "gilbert_elliott", mean_good_packets = 0.5, mean_bad_packets = 2 }"#,
            ),
            "topology.bottleneck.fwd_error.mean_good_packets",
            &["must be at least 1 (a mean number of packets), got 0.5"],
        ),
        (
            "ge: mean as a string",
            bottleneck(
                r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "gilbert_elliott", mean_good_packets = "50", mean_bad_packets = 2 }"#,
            ),
            "topology.bottleneck.fwd_error.mean_good_packets",
            &["expected a number of packets (at least 1), got the string \"50\""],
        ),
        (
            "ge: key of another model",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "gilbert_elliott", p = 0.1 }"#),
            "topology.bottleneck.fwd_error.p",
            &["belongs to model \"bernoulli\", not \"gilbert_elliott\"", "p_good, p_bad, p_gb, p_bg"],
        ),
        (
            "ge: model name misspelt",
            bottleneck(r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "gilbert-elliott" }"#),
            "topology.bottleneck.fwd_error.model",
            &["did you mean \"gilbert_elliott\"?"],
        ),
        (
            "window smaller than one MSS",
            dumbbell_with("[receiver]\nwindow = \"1000B\""),
            "receiver.window",
            &["receiver window (1000 bytes) is smaller than mss (1460 bytes)", "flow 'f0'"],
        ),
        (
            "flow mss override larger than the global window",
            dumbbell_with(
                "[receiver]\nwindow = \"8KiB\"\n[[flows]]\n[[flows]]\ntcp = { mss = \"9000B\" }\nfrom = \"s1\"",
            ),
            "flows[1].tcp.mss",
            &["receiver window (8192 bytes) is smaller than mss (9000 bytes)"],
        ),
        (
            "mss out of range",
            dumbbell_with("[tcp]\nmss = \"64KiB\""),
            "tcp.mss",
            &["between 1 and 65495 bytes", "65536 bytes"],
        ),
        (
            "max_cwnd below mss",
            dumbbell_with("[tcp]\nmax_cwnd = \"1KB\""),
            "tcp.max_cwnd",
            &["max_cwnd (1000 bytes) is smaller than mss (1460 bytes)"],
        ),
        (
            "unknown variant",
            dumbbell_with("[tcp]\nvariant = \"westwood\""),
            "tcp.variant",
            &["unknown TCP variant 'westwood'", "'newreno'"],
        ),
        (
            "unknown variant in a flow",
            dumbbell_with("[[flows]]\nvariant = \"reno+bogus\""),
            "flows[0].variant",
            &["unknown extension '+bogus'"],
        ),
        (
            "variant given twice",
            dumbbell_with("[[flows]]\nvariant = \"reno\"\ntcp = { variant = \"sack\" }"),
            "flows[0].tcp.variant",
            &["given twice"],
        ),
        (
            "duplicate flow name",
            dumbbell_with("[[flows]]\nname = \"x\"\n[[flows]]\nname = \"x\"\nfrom = \"s0\""),
            "flows[1].name",
            &["duplicate flow name 'x'", "flows[0]"],
        ),
        (
            "duplicate default flow name",
            dumbbell_with("[[flows]]\nname = \"f1\"\n[[flows]]"),
            "flows[1].name",
            &["duplicate flow name 'f1' (the default name of this flow)"],
        ),
        (
            "flow endpoint not a node",
            dumbbell_with("[[flows]]\nfrom = \"s9\""),
            "flows[0].from",
            &["no node named 's9'", "nodes: s0, s1, router, sink"],
        ),
        ("endpoint typo", dumbbell_with("[[flows]]\nto = \"snik\""), "flows[0].to", &["did you mean 'sink'?"]),
        ("from == to", dumbbell_with("[[flows]]\nto = \"s0\""), "flows[0].to", &["two different hosts", "'s0'"]),
        ("flow to a router", dumbbell_with("[[flows]]\nto = \"router\""), "flows[0].to", &["'router' is a router"]),
        (
            "no default sender",
            dumbbell_with("[[flows]]\n[[flows]]\n[[flows]]"),
            "flows[2].from",
            &["missing required key 'from'", "no sender s2"],
        ),
        (
            "endpoints not connected",
            custom_with("[[flows]]\nfrom = \"a\"\nto = \"c\""),
            "flows[0]",
            &["no path of links joins 'a' and 'c'"],
        ),
        (
            "droplist naming an unknown flow",
            bottleneck(
                r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "droplist", flow = "f9", packets = [3] }"#,
            ),
            "topology.bottleneck.fwd_error.flow",
            &["no flow named 'f9'", "flows: f0, f1"],
        ),
        (
            "droplist without packets",
            bottleneck(
                r#"rate = "2Mbps", delay = "1ms", fwd_error = { model = "droplist", flow = "f0", packets = [] }"#,
            ),
            "topology.bottleneck.fwd_error.packets",
            &["at least one packet"],
        ),
        (
            "TOML syntax error",
            "name = \"x\"\n[run]\nduration = = \"1s\"\n".into(),
            "",
            &["TOML syntax error at line 3, column 12"],
        ),
        (
            "TOML datetime",
            dumbbell_with("[run]\nduration = 1979-05-27T07:32:00Z"),
            "run.duration",
            &["dates and times", "1979-05-27T07:32:00Z"],
        ),
        ("empty flows in custom topology", format!("flows = []\n{CUSTOM}"), "flows", &["at least one flow"]),
        ("custom topology without flows", CUSTOM.into(), "flows", &["missing required key 'flows'"]),
        (
            "min RTO > max RTO",
            dumbbell_with("[tcp.rto]\nmin = \"90s\""),
            "tcp.rto.min",
            &["rto min (90s) is larger than rto max (60s, the default for the fine timer)"],
        ),
        (
            "min RTO > explicit max RTO in a flow",
            dumbbell_with("[tcp.rto]\nmin = \"2s\"\n[[flows]]\ntcp = { rto = { max = \"1500ms\" } }"),
            "flows[0].tcp.rto.max",
            &["rto min (2s) is larger than rto max (1500ms)"],
        ),
        (
            "granularity with the coarse timer",
            dumbbell_with("[tcp.rto]\ntimer = \"coarse\"\ngranularity = \"1ms\""),
            "tcp.rto.granularity",
            &["only to timer = \"fine\""],
        ),
        (
            "sack=false with variant 'sack'",
            dumbbell_with("[tcp]\nvariant = \"sack\"\n[receiver]\nsack = false"),
            "receiver.sack",
            &["sack = false, but variant 'sack' (from tcp.variant)"],
        ),
        (
            "sack setting typo",
            dumbbell_with("[receiver]\nsack = \"yes\""),
            "receiver.sack",
            &["expected true, false or \"auto\""],
        ),
        (
            "too many SACK blocks with timestamps",
            dumbbell_with("[tcp]\ntimestamps = true\n[receiver]\nmax_sack_blocks = 4"),
            "receiver.max_sack_blocks",
            &["at most 3 SACK blocks"],
        ),
        (
            "delack key without delayed ACKs",
            dumbbell_with("[receiver]\ndelack_every = 4"),
            "receiver.delack_every",
            &["only to ack = \"delayed\""],
        ),
        (
            "enum typo",
            dumbbell_with("[receiver]\nack = \"delay\""),
            "receiver.ack",
            &["did you mean \"delayed\"?", "\"every\", \"delayed\""],
        ),
        ("zero duration", dumbbell_with("[run]\nduration = \"0s\""), "run.duration", &["must be greater than 0"]),
        (
            "negative DDA delay",
            dumbbell_with("[receiver]\ndda = \"-40ms\""),
            "receiver.dda",
            &["cannot be negative, got \"-40ms\"", "allowed: a duration greater than 0 such as \"40ms\", or \"auto\""],
        ),
        (
            "ill-formed DDA delay",
            dumbbell_with("[[flows]]\nreceiver = { dda = \"soon\" }"),
            "flows[0].receiver.dda",
            &["got \"soon\"", "allowed: a duration greater than 0 such as \"40ms\", or \"auto\""],
        ),
        (
            "DDA delay without a unit",
            dumbbell_with("[receiver]\ndda = 40"),
            "receiver.dda",
            &["got the number 40", "\"40ms\"", "or \"auto\""],
        ),
        (
            "zero DDA delay",
            dumbbell_with("[receiver]\ndda = \"0s\""),
            "receiver.dda",
            &["must be greater than 0, got \"0s\"", "or \"auto\""],
        ),
        (
            "DDA auto over a link without delay",
            "[topology]\nkind = \"chain\"\nhops = [{ rate = \"1Mbps\", delay = \"0s\" }]\n[receiver]\ndda = \"auto\"\n"
                .into(),
            "receiver.dda",
            &["dda = \"auto\" resolves to 0s", "'hop0'", "for flow 'f0'", "or \"auto\""],
        ),
        (
            "fractional nanoseconds",
            dumbbell_with("[run]\nduration = \"0.5ns\""),
            "run.duration",
            &["whole number of nanoseconds"],
        ),
        ("negative seed", dumbbell_with("[run]\nseed = -1"), "run.seed", &["must be at least 0, got -1"]),
        (
            "duplicate node name",
            CUSTOM.replace("{ name = \"c\" }", "{ name = \"a\" }"),
            "topology.nodes[3].name",
            &["duplicate node name 'a' (also used by topology.nodes[0])"],
        ),
        (
            "link joining a node to itself",
            CUSTOM.replace("{ a = \"r\", b = \"b\"", "{ a = \"r\", b = \"r\""),
            "topology.links[1].b",
            &["two different nodes"],
        ),
        (
            "duplicate default link name",
            CUSTOM.replace("{ a = \"r\", b = \"b\"", "{ a = \"a\", b = \"r\""),
            "topology.links[1]",
            &["duplicate link name 'a-r'"],
        ),
        (
            "missing topology kind",
            "[topology]\nsenders = 2\n".into(),
            "topology.kind",
            &["missing required key 'kind'"],
        ),
        (
            "unknown topology kind",
            "[topology]\nkind = \"ring\"\n".into(),
            "topology.kind",
            &["unknown value \"ring\"", "\"dumbbell\", \"chain\", \"star\", \"custom\""],
        ),
        (
            "star without leaves",
            "[topology]\nkind = \"star\"\nleaf = { rate = \"2Mbps\", delay = \"1ms\" }\n".into(),
            "topology.leaves",
            &["missing required key 'leaves'"],
        ),
        (
            "star leaf override out of range",
            "[topology]\nkind = \"star\"\nleaves = 4\nleaf = { rate = \"2Mbps\", delay = \"1ms\" }\n\
             [[topology.leaf_override]]\nleaves = [4]\ndelay = \"5ms\"\n"
                .into(),
            "topology.leaf_override[0].leaves[0]",
            &["must be between 0 and 3, got 4", "4 leaves"],
        ),
        (
            "star medium names its own stations",
            "[topology]\nkind = \"star\"\nleaves = 2\nmedium = { nodes = [\"hub\", \"m0\"] }\n".into(),
            "topology.medium.nodes",
            &["set by the star builder"],
        ),
        (
            "star with both leaf links and a medium",
            "[topology]\nkind = \"star\"\nleaves = 2\nmedium = {}\nleaf = { rate = \"2Mbps\", delay = \"1ms\" }\n"
                .into(),
            "topology.leaf",
            &["not used with a medium"],
        ),
        (
            "star medium with a bad slot",
            "[topology]\nkind = \"star\"\nleaves = 2\nmedium = { slot = \"-1us\" }\n".into(),
            "topology.medium.slot",
            &["\"-1us\""],
        ),
        (
            "dumbbell receivers neither 1 nor senders",
            dumbbell_with("receivers = 3\nexit = { rate = \"10Mbps\", delay = \"1ms\" }"),
            "topology.receivers",
            &["must be 1 (one shared sink) or 2 (one receiver per sender), got 3"],
        ),
        (
            "dumbbell exit without receivers",
            dumbbell_with("exit = { rate = \"10Mbps\", delay = \"1ms\" }"),
            "topology.exit",
            &["only used with one receiver per sender"],
        ),
    ];
    assert!(cases.len() >= 20);
    common::assert_refused(&cases);
}

#[test]
fn red_queue_tables_parse_with_defaults() {
    let with = |q: &str| {
        ok(&format!(
            "[topology]\nkind = \"dumbbell\"\nsenders = 1\naccess = {{ rate = \"10Mbps\", delay = \"1ms\" }}\nbottleneck = {{ rate = \"1Mbps\", delay = \"10ms\", queue = {q} }}\n"
        ))
    };
    let s = with(
        r#"{ kind = "red", min_th = 5, max_th = 15, limit_packets = 50, maxp = 0.1, wq = 0.002, gentle = false, ecn = false, mean_packet_size = "1000B" }"#,
    );
    assert_eq!(link(&s, "bottleneck").queue, QueueSpec::Red(RedSpec::default()));
    let s = with(r#"{ kind = "red" }"#);
    assert_eq!(
        link(&s, "bottleneck").queue,
        QueueSpec::Red(RedSpec {
            min_th: 5,
            max_th: 15,
            limit_packets: 50,
            maxp: 0.1,
            wq: 0.002,
            gentle: false,
            ecn: false,
            mark_above_max_th: false,
            mean_packet_size: 1000,
            rules: RedRules::Paper,
        })
    );
    let s = with(
        r#"{ kind = "red", min_th = 20, max_th = 60, limit_packets = 150, wq = 0.5, maxp = 0.02, gentle = true, ecn = true, mark_above_max_th = true, mean_packet_size = "1500B", rules = "ns2" }"#,
    );
    assert_eq!(
        link(&s, "bottleneck").queue,
        QueueSpec::Red(RedSpec {
            min_th: 20,
            max_th: 60,
            limit_packets: 150,
            maxp: 0.02,
            wq: 0.5,
            gentle: true,
            ecn: true,
            mark_above_max_th: true,
            mean_packet_size: 1500,
            rules: RedRules::Ns2,
        })
    );
    assert_eq!(
        link(&with(r#"{ kind = "droptail" }"#), "bottleneck").queue,
        QueueSpec::DropTail { limit: QueueLimit::Packets(100) }
    );
}

#[test]
fn eifel_undo_needs_timestamps() {
    let text = "[run]\nduration = \"1s\"\n[topology]\nkind = \"chain\"\nhops = [{ rate = \"1Mbps\", delay = \"1ms\" }]\n[tcp]\nvariant = \"reno+undo\"\n";
    let e = dupack_sim::parse_scenario_toml(text).unwrap_err();
    assert!(e.message.contains("tcp.timestamps = true"), "{e}");
    let ok = text.replace("variant = \"reno+undo\"", "variant = \"reno+undo\"\ntimestamps = true");
    assert!(dupack_sim::parse_scenario_toml(&ok).is_ok());
    let e = dupack_sim::tcp::variant::parse_variant("reno+undo+irw").unwrap_err();
    assert!(e.0.contains("both undo"), "{e}");
}

#[test]
fn pipe_ssthresh_needs_a_variant_that_keeps_pipe() {
    let text = "[run]\nduration = \"1s\"\n[topology]\nkind = \"chain\"\nhops = [{ rate = \"1Mbps\", delay = \"1ms\" }]\n[tcp]\nvariant = \"newreno\"\nloss_ssthresh = \"pipe\"\n";
    let e = dupack_sim::parse_scenario_toml(text).unwrap_err();
    assert_eq!(e.path, "tcp.loss_ssthresh", "{e}");
    assert!(e.message.contains("'newreno'") && e.message.contains("rfc6675"), "{e}");
    for v in ["rfc6675", "rfc6675+lt", "rfc6675+prr+lt+cc=cubic"] {
        let ok = text.replace("\"newreno\"", &format!("\"{v}\""));
        assert!(dupack_sim::parse_scenario_toml(&ok).is_ok(), "{v}");
    }
}

/// One `rfc6675+lt` flow over one hop, with `lines` added to its `[tcp]` table.
fn one_flow_with_tcp(lines: &str) -> String {
    format!("[run]\nduration = \"1s\"\n[topology]\nkind = \"chain\"\nhops = [{{ rate = \"1Mbps\", delay = \"1ms\" }}]\n[tcp]\nvariant = \"rfc6675+lt\"\n{lines}\n")
}

/// The flow's TCP configuration with `lines` in `[tcp]`.
fn tcp_with(lines: &str) -> dupack_sim::scenario::model::TcpConfig {
    dupack_sim::parse_scenario_toml(&one_flow_with_tcp(lines)).unwrap().flows[0].tcp.clone()
}

/// `line` gives `path` (`tcp.KEY`, `tcp.rto.KEY`) a bad value: the error is
/// at that path and quotes the value and every allowed one.
fn assert_tcp_value_refused(line: &str, path: &str, words: &[&str]) {
    let e = dupack_sim::parse_scenario_toml(&one_flow_with_tcp(line)).unwrap_err();
    assert_eq!(e.path, path, "{e}");
    assert!(words.iter().all(|w| e.message.contains(w)), "{e}");
}

/// A string-valued key of `[tcp]` (`"rto.KEY"` for `[tcp.rto]`): `word` sets
/// it to `value`, a flow without it gets `default`, and `bad` is refused at
/// `tcp.KEY` with a message that quotes it and every word in `allowed`.
fn assert_word_key<T: PartialEq + std::fmt::Debug>(
    key: &str,
    get: impl Fn(&dupack_sim::scenario::model::TcpConfig) -> T,
    (word, value): (&str, T),
    default: T,
    bad: &str,
    allowed: &[&str],
) {
    let line = |w: &str| match key.strip_prefix("rto.") {
        Some(k) => format!("rto = {{ {k} = \"{w}\" }}"),
        None => format!("{key} = \"{w}\""),
    };
    assert_eq!(get(&tcp_with(&line(word))), value, "{key} = {word:?}");
    assert_eq!(get(&tcp_with("")), default, "the default of {key}");
    let words: Vec<&str> = std::iter::once(bad).chain(allowed.iter().copied()).collect();
    assert_tcp_value_refused(&line(bad), &format!("tcp.{key}"), &words);
}

#[test]
fn rto_on_fast_retransmit_is_read_per_flow_and_checked() {
    use dupack_sim::scenario::model::RtoOnFastRetransmit as R;
    let get = |t: &dupack_sim::scenario::model::TcpConfig| t.rto.on_fast_retransmit;
    assert_word_key("rto.on_fast_retransmit", get, ("keep", R::Keep), R::Restart, "never", &["restart", "keep"]);
}

#[test]
fn rto_sampling_is_read_per_flow_and_checked() {
    use dupack_sim::scenario::model::RttSampling as S;
    let get = |t: &dupack_sim::scenario::model::TcpConfig| t.rto.sampling;
    assert_word_key("rto.sampling", get, ("per_segment", S::PerSegment), S::Timed, "every", &["timed", "per_segment"]);
}

#[test]
fn rto_backoff_reset_is_read_per_flow_and_checked() {
    use dupack_sim::scenario::model::BackoffReset as B;
    let get = |t: &dupack_sim::scenario::model::TcpConfig| t.rto.backoff_reset;
    assert_word_key("rto.backoff_reset", get, ("new_ack", B::NewAck), B::Sample, "ack", &["sample", "new_ack"]);
}

#[test]
fn rfc6675_rto_reset_is_read_and_checked() {
    // The default: RFC 6298 §5.3 restarts the timer at every ACK of new data.
    use dupack_sim::scenario::model::PartialAckRtoReset as P;
    let get = |t: &dupack_sim::scenario::model::TcpConfig| t.rfc6675_rto_reset;
    assert_word_key("rfc6675_rto_reset", get, ("first", P::First), P::Every, "last", &["first", "every"]);
}

#[test]
fn timeout_exit_growth_is_read_and_checked() {
    // The default: RFC 5681 §3.1 grows the window on every ACK of new data.
    use dupack_sim::scenario::model::TimeoutExitGrowth as G;
    let get = |t: &dupack_sim::scenario::model::TcpConfig| t.timeout_exit_growth;
    assert_word_key(
        "timeout_exit_growth",
        get,
        ("above_recover", G::AboveRecover),
        G::Acked,
        "never",
        &["acked", "above_recover"],
    );
}

#[test]
fn recovery_exit_growth_is_read_and_checked() {
    // The default: RFC 5681 §3.2 step 6 and RFC 6582 §3.2 step 3 set the window and do not grow it.
    use dupack_sim::scenario::model::RecoveryExitGrowth as G;
    let get = |t: &dupack_sim::scenario::model::TcpConfig| t.recovery_exit_growth;
    assert_word_key("recovery_exit_growth", get, ("grow", G::Grow), G::None, "yes", &["none", "grow"]);
    let get = |t: &dupack_sim::scenario::model::TcpConfig| t.rfc6675_exit_growth;
    assert_word_key("rfc6675_exit_growth", get, ("grow", G::Grow), G::None, "yes", &["none", "grow"]);
}

#[test]
fn cubic_arithmetic_is_read_and_checked() {
    // The default: RFC 9438 as written; "ns3" mirrors ns-3.44's TcpCubic.
    use dupack_sim::scenario::model::CubicArithmetic as A;
    let get = |t: &dupack_sim::scenario::model::TcpConfig| t.cubic_arithmetic;
    assert_word_key("cubic_arithmetic", get, ("ns3", A::Ns3), A::Rfc9438, "linux", &["rfc9438", "ns3"]);
}

#[test]
fn rfc6675_pipe_is_read_and_checked() {
    // The default: RFC 6675 §4; "ns3" keeps a SACKed retransmission in pipe
    // until it is acknowledged, as ns-3.44's TcpTxBuffer does.
    use dupack_sim::scenario::model::Rfc6675Pipe as P;
    let get = |t: &dupack_sim::scenario::model::TcpConfig| t.rfc6675_pipe;
    assert_word_key("rfc6675_pipe", get, ("ns3", P::Ns3), P::Rfc6675, "linux", &["rfc6675", "ns3"]);
}

#[test]
fn prr_arithmetic_is_read_and_checked() {
    // The default: RFC 6937 as written; "ns3" mirrors ns-3.44's TcpPrrRecovery.
    use dupack_sim::scenario::model::PrrArithmetic as A;
    let get = |t: &dupack_sim::scenario::model::TcpConfig| t.prr_arithmetic;
    assert_word_key("prr_arithmetic", get, ("ns3", A::Ns3), A::Rfc6937, "linux", &["rfc6937", "ns3"]);
}

#[test]
fn sack_recover_after_exit_is_read_and_checked() {
    // The default: RFC 6582 §3.2's guard outlives the recovery.
    use dupack_sim::scenario::model::SackRecoverAfterExit as S;
    let get = |t: &dupack_sim::scenario::model::TcpConfig| t.sack_recover_after_exit;
    assert_word_key("sack_recover_after_exit", get, ("cleared", S::Cleared), S::Kept, "reset", &["kept", "cleared"]);
}

#[test]
fn gilbert_elliott_tables_parse_both_ways() {
    let with = |e: &str| {
        let s = ok(&format!(
            "[topology]\nkind = \"chain\"\nhops = [{{ rate = \"1Mbps\", delay = \"1ms\", fwd_error = {e} }}]\n"
        ));
        link(&s, "hop0").fwd_error.clone()
    };
    let ge =
        |p_good, p_bad, p_gb, p_bg| ErrorModelSpec::GilbertElliott(GilbertElliottSpec { p_good, p_bad, p_gb, p_bg });
    let e = with(r#"{ model = "gilbert_elliott", p_gb = 0.01, p_bg = 0.25 }"#);
    assert_eq!(e.model, ge(0.0, 1.0, 0.01, 0.25), "defaults p_good = 0, p_bad = 1");
    assert_eq!(e.applies_to, PacketSelector::Data);
    let e = with(
        r#"{ model = "gilbert_elliott", p_good = 0.001, p_bad = 0.5, mean_good_packets = 100, mean_bad_packets = 4, applies_to = "all" }"#,
    );
    assert_eq!(e.model, ge(0.001, 0.5, 0.01, 0.25));
    assert_eq!(e.applies_to, PacketSelector::All);
    let e = with(r#"{ model = "gilbert_elliott", mean_good_packets = 1, mean_bad_packets = 1.0 }"#);
    assert_eq!(e.model, ge(0.0, 1.0, 1.0, 1.0));
}

#[test]
fn trace_tables_parse_and_replace_the_rate() {
    let f = trace_file("parse-ok.trace", "1\n1\n3\n4\n");
    let s = ok(&format!(
        r#"
[topology]
kind = "dumbbell"
senders = 2
access = {{ rate = "10Mbps", delay = "1ms" }}
bottleneck = {{ delay = "10ms", fwd_trace = {{ file = {f:?} }}, rev_trace = {{ file = {f:?}, mtu = "100B" }} }}
[[topology.access_override]]
senders = [1]
fwd_trace = {{ file = {f:?} }}
"#
    ));
    let b = link(&s, "bottleneck");
    assert_eq!(b.rate_bps, 0, "both directions traced: no rate");
    let fwd = b.fwd_trace.as_ref().unwrap();
    assert_eq!((fwd.file.as_str(), fwd.mtu, &fwd.opportunities_ms[..]), (f.as_str(), 1500, &[1, 1, 3, 4][..]));
    assert_eq!(b.rev_trace.as_ref().unwrap().mtu, 100);
    // An override tracing one direction keeps the template's rate for the other.
    let a1 = link(&s, "access1");
    assert_eq!((a1.rate_bps, a1.fwd_trace.is_some(), a1.rev_trace.is_none()), (10_000_000, true, true));
    assert!(link(&s, "access0").fwd_trace.is_none());
}

#[test]
fn link_jitter_is_per_direction_and_defaults_to_none() {
    let s = ok(r#"
[topology]
kind = "dumbbell"
senders = 2
access = { rate = "1Mbps", delay = "1ms" }
bottleneck = { rate = "3Mbps", delay = "1ms", rev_jitter = "1.5ms" }
access_override = [{ senders = [1], fwd_jitter = "200us" }]
"#);
    assert_eq!((link(&s, "bottleneck").fwd_jitter, link(&s, "bottleneck").rev_jitter), (SimDuration::ZERO, us(1500)));
    assert_eq!(link(&s, "access1").fwd_jitter, us(200));
    assert_eq!(link(&s, "access0").fwd_jitter, SimDuration::ZERO);
    let e = bad(r#"
[topology]
kind = "dumbbell"
senders = 1
access = { rate = "1Mbps", delay = "1ms" }
bottleneck = { rate = "3Mbps", delay = "1ms", rev_jitter = "soon" }
"#);
    assert_eq!(e.path, "topology.bottleneck.rev_jitter", "{e}");
}

#[test]
fn run_tie_break_is_shuffled_unless_asked() {
    let base = "[topology]\nkind = \"chain\"\nhops = [{ rate = \"1Mbps\", delay = \"1ms\" }]\n";
    assert_eq!(ok(base).tie_break, TieBreakMode::Shuffled);
    assert_eq!(ok(&format!("[run]\ntie_break = \"identity\"\n{base}")).tie_break, TieBreakMode::Identity);
    let e = bad(&format!("[run]\ntie_break = \"fifo\"\n{base}"));
    assert_eq!(e.path, "run.tie_break");
    assert!(e.to_string().contains("shuffled") && e.to_string().contains("identity"), "{e}");
}

#[test]
fn wire_is_exact_and_headerless_unless_asked_and_says_what_it_allows() {
    let base = "[topology]\nkind = \"chain\"\nhops = [{ rate = \"1Mbps\", delay = \"1ms\" }]\n";
    assert_eq!(ok(base).wire, WireSpec { tx_time: TxTime::Exact, header_bytes: 0 });
    let s = ok(&format!("[wire]\ntx_time = \"per_frame\"\nheader = \"2B\"\n{base}"));
    assert_eq!(s.wire, WireSpec { tx_time: TxTime::PerFrame, header_bytes: 2 });
    let e = bad(&format!("[wire]\ntx_time = \"rounded\"\n{base}"));
    assert_eq!(e.path, "wire.tx_time");
    assert!(e.to_string().contains("exact") && e.to_string().contains("per_frame"), "{e}");
    let e = bad(&format!("[wire]\nheader = \"2KB\"\n{base}"));
    assert_eq!(e.path, "wire.header");
    assert!(e.to_string().contains("between 0 and 1024 bytes"), "{e}");
    let e = bad(&format!("[wire]\nheaders = \"2B\"\n{base}"));
    assert_eq!(e.path, "wire.headers", "{e}");
}

#[test]
fn a_misspelt_key_of_a_long_table_gets_its_suggestion_and_a_short_list() {
    // [tcp] has thirty-odd keys: with a suggestion the message names a dozen and the count, on one line.
    let e = dupack_sim::parse_scenario_toml(&one_flow_with_tcp("varient = \"sack\"")).unwrap_err();
    assert_eq!(e.path, "tcp.varient", "{e}");
    assert!(e.message.contains("did you mean 'variant'?"), "{e}");
    assert!(e.message.contains("allowed keys here: variant, ") && e.message.contains(" in all)"), "{e}");
    assert!(e.message.len() < 300, "{e}");
    // Without a suggestion every key is named.
    let e = dupack_sim::parse_scenario_toml(&one_flow_with_tcp("zzzzzz = 1")).unwrap_err();
    assert!(!e.message.contains("in all)") && e.message.contains("sack_recover_after_exit"), "{e}");
}

#[test]
fn sack_option_size_is_read_per_flow_and_checked() {
    // RFC 2018's layout by default; ns-2's 8 bytes per block on request,
    // globally or for one flow.
    let s = ok(&dumbbell_with("[tcp]\nvariant = \"sack\""));
    assert!(s.flows.iter().all(|f| f.receiver.sack_option_size == SackOptionSize::Rfc2018));
    let s = ok(&dumbbell_with("[tcp]\nvariant = \"sack\"\n[receiver]\nsack_option_size = \"ns2\""));
    assert!(s.flows.iter().all(|f| f.receiver.sack_option_size == SackOptionSize::Ns2));
    let e = bad(&dumbbell_with("[receiver]\nsack_option_size = \"bsd\""));
    assert_eq!(e.path, "receiver.sack_option_size");
    assert!(
        e.message.contains("\"bsd\"") && e.message.contains("rfc2018") && e.message.contains("ns2"),
        "{}",
        e.message
    );
    assert_eq!(SackOptionSize::Rfc2018.bytes(0), 0);
    assert_eq!((1..=4).map(|n| SackOptionSize::Rfc2018.bytes(n)).collect::<Vec<_>>(), [12, 20, 28, 36]);
    assert_eq!((1..=4).map(|n| SackOptionSize::Ns2.bytes(n)).collect::<Vec<_>>(), [8, 16, 24, 32]);
}
