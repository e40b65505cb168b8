//! `receiver.sack_option_size`: how many bytes the SACK option adds to an
//! ACK on the wire. With drops fixed by a drop list (Fall & Floyd's
//! scenarios), the two sizes send the very same packets; only the ACKs that
//! carry SACK blocks are 4 bytes shorter with ns-2's 8 bytes per block than
//! with RFC 2018's layout (kind, length, blocks, two NOPs of padding).

use dupack_sim::{parse_scenario_toml, run, LinkResult, RunResult};

fn fall_floyd(drops: usize, variant: &str, size: &str) -> RunResult {
    let file = if drops == 1 { "fall-floyd-1-drop.toml".to_string() } else { format!("fall-floyd-{drops}-drops.toml") };
    let path = format!("{}/../../scenarios/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path)
        .expect("a shipped scenario")
        .replace("variant = \"newreno\"", &format!("variant = \"{variant}\""))
        .replace("[receiver]\n", &format!("[receiver]\nsack_option_size = \"{size}\"\n"));
    let s = parse_scenario_toml(&text).expect("the scenario with the option size");
    run(&s, s.seed).expect("runs")
}

fn link<'a>(r: &'a RunResult, name: &str, direction: &str) -> &'a LinkResult {
    r.links.iter().find(|l| l.link == name && l.direction == direction).expect("the link direction")
}

#[test]
fn ns2s_sack_acks_are_four_bytes_shorter_and_change_nothing_else() {
    for drops in [1, 3] {
        let rfc = fall_floyd(drops, "sack", "rfc2018");
        let ns2 = fall_floyd(drops, "sack", "ns2");
        assert_eq!(rfc.flows[0].fast_retransmits, ns2.flows[0].fast_retransmits);
        assert_eq!(rfc.flows[0].segments_sent, ns2.flows[0].segments_sent);
        assert_eq!(rfc.flows[0].bytes_delivered, ns2.flows[0].bytes_delivered);
        for l in &rfc.links {
            let m = link(&ns2, &l.link, &l.direction);
            assert_eq!(l.packets_sent, m.packets_sent, "{} {}: the same packets", l.link, l.direction);
            let shorter = l.bytes_sent - m.bytes_sent;
            if l.direction == "fwd" {
                assert_eq!(shorter, 0, "{} fwd carries data, which has no SACK blocks", l.link);
            } else {
                assert_eq!(shorter % 4, 0, "{} rev: 4 bytes less per ACK with blocks", l.link);
                assert!(shorter >= 4 * drops as u64, "{} rev: at least one ACK with blocks per drop", l.link);
            }
        }
    }
}

#[test]
fn without_sack_blocks_the_size_changes_nothing() {
    let a = fall_floyd(3, "newreno", "rfc2018");
    let b = fall_floyd(3, "newreno", "ns2");
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(format!("{:?}", a.links), format!("{:?}", b.links));
}
