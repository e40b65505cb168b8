//! Queue tables: DropTail (packets or bytes) and RED.

use super::error::*;
use super::value::*;
use crate::scenario::model::*;
use serde_json::Value;

pub(super) const DROPTAIL_KEYS: &[&str] = &["kind", "limit_packets", "limit_bytes"];
pub(super) const RED_KEYS: &[&str] = &[
    "kind",
    "min_th",
    "max_th",
    "limit_packets",
    "maxp",
    "wq",
    "gentle",
    "ecn",
    "mark_above_max_th",
    "mean_packet_size",
    "rules",
];
/// Queue lengths in packets: thresholds and limits.
const MAX_QUEUE_PACKETS: u32 = 1_000_000;

pub(super) fn parse_queue(v: &Value, path: &str) -> R<QueueSpec> {
    #[derive(Copy, Clone)]
    enum K {
        DropTail,
        Red,
    }
    let t = table(v, path)?;
    let kind =
        t.opt("kind", |v, p| v_enum(v, p, &[("droptail", K::DropTail), ("red", K::Red)]))?.map_or(K::DropTail, |a| a.v);
    let kinds: [(&str, &[&str]); 2] = [("droptail", DROPTAIL_KEYS), ("red", RED_KEYS)];
    let (kname, keys) = match kind {
        K::DropTail => kinds[0],
        K::Red => kinds[1],
    };
    t.allow_explained(keys, |k| belongs_elsewhere(k, "queue kind", kname, &kinds))?;
    if let K::Red = kind {
        return parse_red(&t).map(QueueSpec::Red);
    }
    let packets = t.opt("limit_packets", |v, p| v_u32(v, p, 1, MAX_QUEUE_PACKETS))?;
    let bytes = t.opt("limit_bytes", |v, p| v_size(v, p, 1, u64::MAX))?;
    let limit = match (packets, bytes) {
        (Some(_), Some(b)) => return fail(&b.path, "give either limit_packets or limit_bytes, not both"),
        (Some(p), None) => QueueLimit::Packets(p.v),
        (None, Some(b)) => QueueLimit::Bytes(b.v),
        (None, None) => defaults::QUEUE_LIMIT,
    };
    Ok(QueueSpec::DropTail { limit })
}

/// A number in (0, 1].
fn v_frac_pos(v: &Value, path: &str) -> R<f64> {
    let Value::Number(n) = v else {
        return fail(path, format!("expected a number greater than 0 and at most 1, got {}", describe(v)));
    };
    match n.as_f64() {
        Some(x) if x > 0.0 && x <= 1.0 => Ok(x),
        _ => fail(path, format!("must be greater than 0 and at most 1, got {n}")),
    }
}

/// The keys of a `kind = "red"` queue table (already checked against
/// [`RED_KEYS`]), in the documented order, then `min_th < max_th ≤ limit_packets`.
fn parse_red(t: &Table) -> R<RedSpec> {
    let d = RedSpec::default();
    let min_th = t.opt("min_th", |v, p| v_u32(v, p, 0, MAX_QUEUE_PACKETS - 1))?;
    let max_th = t.opt("max_th", |v, p| v_u32(v, p, 1, MAX_QUEUE_PACKETS))?;
    let limit = t.opt("limit_packets", |v, p| v_u32(v, p, 1, MAX_QUEUE_PACKETS))?;
    let maxp = t.opt("maxp", v_frac_pos)?.map_or(d.maxp, |a| a.v);
    let wq = t.opt("wq", v_frac_pos)?.map_or(d.wq, |a| a.v);
    let gentle = t.opt("gentle", v_bool)?.map_or(d.gentle, |a| a.v);
    let ecn = t.opt("ecn", v_bool)?.map_or(d.ecn, |a| a.v);
    let mark_above = t.opt("mark_above_max_th", v_bool)?;
    let mean = t.opt("mean_packet_size", |v, p| v_size(v, p, 1, 65_535))?.map_or(d.mean_packet_size, |a| a.v as u32);
    let rules = t
        .opt("rules", |v, p| v_enum(v, p, &[("paper", RedRules::Paper), ("ns2", RedRules::Ns2)]))?
        .map_or(d.rules, |a| a.v);
    if let Some(m) = &mark_above {
        if m.v && !ecn {
            return fail(&m.path, "mark_above_max_th = true needs ecn = true (without ECN nothing is marked)");
        }
    }
    // (value, path, "key (value)" or "key (value, the default)")
    let show_at = |a: &Option<At<u32>>, key: &str, dflt: u32| match a {
        Some(a) => (a.v, a.path.clone(), format!("{key} ({})", a.v)),
        None => (dflt, t.at(key), format!("{key} ({dflt}, the default)")),
    };
    let (lo, lo_path, lo_name) = show_at(&min_th, "min_th", d.min_th);
    let (hi, hi_path, hi_name) = show_at(&max_th, "max_th", d.max_th);
    let (lim, _, lim_name) = show_at(&limit, "limit_packets", d.limit_packets);
    if lo >= hi {
        // Blame a key that was written: max_th if given, else min_th.
        return match (&max_th, &min_th) {
            (Some(_), _) => fail(&hi_path, format!("must be greater than {lo_name}, got {hi}")),
            _ => fail(&lo_path, format!("must be less than {hi_name}, got {lo}")),
        };
    }
    if hi > lim {
        return match &limit {
            Some(l) => fail(&l.path, format!("must be at least {hi_name}, got {lim}")),
            None => fail(&hi_path, format!("must be at most {lim_name}, got {hi}")),
        };
    }
    Ok(RedSpec {
        min_th: lo,
        max_th: hi,
        limit_packets: lim,
        maxp,
        wq,
        gentle,
        ecn,
        mark_above_max_th: mark_above.is_some_and(|a| a.v),
        mean_packet_size: mean,
        rules,
    })
}
