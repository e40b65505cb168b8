//! Every legal variant string — each base with every set of extensions the
//! grammar accepts — completes a short lossy transfer with the delivery
//! invariant holding; the illegal ones are rejected by the parser.

mod common;

use dupack_sim::run;
use dupack_sim::scenario::model::*;
use dupack_sim::tcp::variant::{parse_variant, Base, Ext};
use dupack_sim::time::{ms, secs};

#[test]
fn every_legal_combination_completes_a_lossy_transfer() {
    let exts: Vec<&str> = Ext::ALL.iter().map(|(n, _)| *n).collect();
    let (mut legal, mut illegal) = (0, 0);
    for (base, _) in Base::ALL {
        for mask in 0u32..(1 << exts.len()) {
            let mut name = base.to_string();
            for (i, e) in exts.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    name.push('+');
                    name.push_str(e);
                }
            }
            let Ok(spec) = parse_variant(&name) else {
                illegal += 1;
                continue;
            };
            legal += 1;
            let mut s = common::lossy_path(&name, 0.05, 2_000_000, ms(20), secs(3000));
            s.flows[0].bytes = Some(30_000);
            s.flows[0].receiver.window = 8_000;
            s.flows[0].tcp.timestamps = spec.has(Ext::Undo);
            s.links[1].rev_error =
                ErrorSpec { model: ErrorModelSpec::Bernoulli { p: 0.02 }, applies_to: PacketSelector::Acks };
            let r = run(&s, legal as u64).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(r.flows[0].bytes_delivered, 30_000, "{name}");
            assert_eq!(r.run.end_reason, "all_done", "{name}");
        }
    }
    assert!(legal >= 400 && illegal > 1000, "{legal} legal, {illegal} illegal");
}
