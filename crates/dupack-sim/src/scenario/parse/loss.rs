//! Error models on a link direction: none, Bernoulli, BER, drop list and
//! Gilbert–Elliott.

use super::error::*;
use super::value::*;
use crate::scenario::model::*;
use serde_json::Value;

#[derive(Clone)]
pub(super) struct ErrRaw {
    /// For droplist, `flow` is a placeholder until resolved.
    pub(super) spec: ErrorSpec,
    pub(super) drop_flow: Option<At<String>>,
}

pub(super) const ERR_NONE_KEYS: &[&str] = &["model"];
pub(super) const ERR_BERNOULLI_KEYS: &[&str] = &["model", "p", "applies_to"];
pub(super) const ERR_BER_KEYS: &[&str] = &["model", "ber", "applies_to"];
pub(super) const ERR_DROPLIST_KEYS: &[&str] = &["model", "flow", "packets", "applies_to"];
pub(super) const ERR_GE_KEYS: &[&str] =
    &["model", "p_good", "p_bad", "p_gb", "p_bg", "mean_good_packets", "mean_bad_packets", "applies_to"];

pub(super) fn parse_error_model(v: &Value, path: &str) -> R<ErrRaw> {
    #[derive(Copy, Clone)]
    enum M {
        None,
        Bernoulli,
        Ber,
        DropList,
        GilbertElliott,
    }
    let t = table(v, path)?;
    let model = t
        .req("model", "\"none\", \"bernoulli\", \"ber\", \"droplist\" or \"gilbert_elliott\"", |v, p| {
            v_enum(
                v,
                p,
                &[
                    ("none", M::None),
                    ("bernoulli", M::Bernoulli),
                    ("ber", M::Ber),
                    ("droplist", M::DropList),
                    ("gilbert_elliott", M::GilbertElliott),
                ],
            )
        })?
        .v;
    let models: [(&str, &[&str]); 5] = [
        ("none", ERR_NONE_KEYS),
        ("bernoulli", ERR_BERNOULLI_KEYS),
        ("ber", ERR_BER_KEYS),
        ("droplist", ERR_DROPLIST_KEYS),
        ("gilbert_elliott", ERR_GE_KEYS),
    ];
    let (mname, keys) = match model {
        M::None => models[0],
        M::Bernoulli => models[1],
        M::Ber => models[2],
        M::DropList => models[3],
        M::GilbertElliott => models[4],
    };
    t.allow_explained(keys, |k| belongs_elsewhere(k, "model", mname, &models))?;
    let mut drop_flow = None;
    let spec = match model {
        M::None => ErrorModelSpec::None,
        M::Bernoulli => ErrorModelSpec::Bernoulli { p: t.req("p", "a probability between 0 and 1", v_prob)?.v },
        M::Ber => ErrorModelSpec::Ber { ber: t.req("ber", "a bit error rate between 0 and 1", v_prob)?.v },
        M::DropList => {
            drop_flow = Some(t.req("flow", "the name of a flow", |v, p| v_str(v, p).map(str::to_string))?);
            let packets = t.req("packets", "an array of packet numbers, 1 = the first", |v, p| {
                let a = v_array(v, p, "packet numbers")?;
                if a.is_empty() {
                    return fail(p, "must list at least one packet number");
                }
                let mut out = Vec::with_capacity(a.len());
                for (i, x) in a.iter().enumerate() {
                    out.push(v_int(x, &index_path(p, i), 1, u64::MAX)?);
                }
                out.sort_unstable();
                out.dedup();
                Ok(out)
            })?;
            ErrorModelSpec::DropList { flow: usize::MAX, packets: packets.v }
        }
        M::GilbertElliott => ErrorModelSpec::GilbertElliott(parse_gilbert_elliott(&t)?),
    };
    let applies_to = match model {
        M::None => PacketSelector::All,
        _ => t
            .opt("applies_to", |v, p| {
                v_enum(
                    v,
                    p,
                    &[("data", PacketSelector::Data), ("acks", PacketSelector::Acks), ("all", PacketSelector::All)],
                )
            })?
            .map_or(PacketSelector::Data, |a| a.v),
    };
    Ok(ErrRaw { spec: ErrorSpec { model: spec, applies_to }, drop_flow })
}

/// A mean number of packets: a finite number ≥ 1.
fn v_mean_packets(v: &Value, path: &str) -> R<f64> {
    let Value::Number(n) = v else {
        return fail(path, format!("expected a number of packets (at least 1), got {}", describe(v)));
    };
    match n.as_f64() {
        Some(x) if x >= 1.0 && x.is_finite() => Ok(x),
        _ => fail(path, format!("must be at least 1 (a mean number of packets), got {n}")),
    }
}

/// The keys of a `model = "gilbert_elliott"` table in the documented order:
/// `p_good`, `p_bad`, then the transitions either as `p_gb` and `p_bg` or as
/// `mean_good_packets` (= 1/`p_gb`) and `mean_bad_packets` (= 1/`p_bg`).
fn parse_gilbert_elliott(t: &Table) -> R<GilbertElliottSpec> {
    let p_good = t.opt("p_good", v_prob)?.map_or(defaults::GE_P_GOOD, |a| a.v);
    let p_bad = t.opt("p_bad", v_prob)?.map_or(defaults::GE_P_BAD, |a| a.v);
    let p_gb = t.opt("p_gb", v_prob)?;
    let p_bg = t.opt("p_bg", v_prob)?;
    let mean_good = t.opt("mean_good_packets", v_mean_packets)?;
    let mean_bad = t.opt("mean_bad_packets", v_mean_packets)?;
    let either = "give either p_gb and p_bg (transition probabilities) or mean_good_packets and \
                  mean_bad_packets (mean stays in each state), not both";
    let probs_given = p_gb.as_ref().or(p_bg.as_ref()).map(|a| a.path.clone());
    if let (Some(first), Some(m)) = (probs_given, mean_good.as_ref().or(mean_bad.as_ref())) {
        return fail(&m.path, format!("{either}; {first} is given too"));
    }
    // A pair given by half: name the missing partner.
    let partner = |given: &str, missing: &str, what: &str| {
        fail(&t.at(missing), format!("missing required key '{missing}' ({what}; {given} is given)"))
    };
    let (p_gb, p_bg) = match (p_gb, p_bg, mean_good, mean_bad) {
        (Some(gb), Some(bg), _, _) => (gb.v, bg.v),
        (Some(_), None, _, _) => return partner("p_gb", "p_bg", "the Bad→Good probability, between 0 and 1"),
        (None, Some(_), _, _) => return partner("p_bg", "p_gb", "the Good→Bad probability, between 0 and 1"),
        (None, None, Some(g), Some(b)) => (1.0 / g.v, 1.0 / b.v),
        (None, None, Some(_), None) => {
            return partner("mean_good_packets", "mean_bad_packets", "mean packets per stay in Bad, at least 1")
        }
        (None, None, None, Some(_)) => {
            return partner("mean_bad_packets", "mean_good_packets", "mean packets per stay in Good, at least 1")
        }
        (None, None, None, None) => {
            return fail(
                &t.at("p_gb"),
                "missing the transitions: give p_gb and p_bg (probabilities between 0 and 1) or \
                 mean_good_packets and mean_bad_packets (at least 1)",
            )
        }
    };
    Ok(GilbertElliottSpec { p_good, p_bad, p_gb, p_bg })
}
