//! Variant names: `"reno"`, `"newreno"`, `"sack"`, later `"newreno+efr"`.
//!
//! A variant is a base loss-recovery algorithm plus zero or more `+ext`
//! extensions and at most one congestion controller `+cc=NAME`. The
//! grammar is `base ("+" ext | "+cc=" controller)*`, lower case, no spaces:
//! `sack`, `newreno+efr`, `rfc6675+prr+cc=cubic`. Without `+cc=` the
//! controller is Reno's AIMD (RFC 5681). Extensions are parsed here so that
//! a scenario naming one that does not exist yet fails validation with the
//! list of what does.

use std::fmt;

/// The base loss-recovery algorithm.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Base {
    /// Fast retransmit, then slow start from one segment (Jacobson 1988).
    Tahoe,
    /// RFC 5681 fast retransmit / fast recovery.
    Reno,
    /// RFC 6582 NewReno: partial ACKs keep recovery going.
    NewReno,
    /// Fall & Floyd 1996 SACK: `pipe` and the retransmission list ("SACK" of unfairness §IV).
    Sack,
    /// The rpld paper's own SACK TCP (rpld §2.3–2.4): NewReno's window
    /// rules for new data, a separate slow-starting `cwnd_rexmit` for
    /// selective retransmissions. The baseline RPLD is measured against;
    /// `+rpld` adds the detection of lost retransmissions (`sack+rpld` is the
    /// same as `sack-cautious+rpld`).
    SackCautious,
    /// Mathis & Mahdavi 1996 Forward Acknowledgement (unfairness §IV).
    Fack,
    /// ECN-FACK (unfairness §VIII, Fig. 8): FACK that reduces its window only
    /// on ECN-Echo or a timeout, never for a loss.
    EcnFack,
    /// RFC 6675 conservative SACK loss recovery (`IsLost`, `NextSeg`, `pipe`).
    Rfc6675,
    /// TCP Vegas (Brakmo & Peterson 1995): fine-grained retransmission and
    /// the ¾ decrease, with Vegas's delay-based congestion avoidance
    /// (`cc=vegas`) unless another controller is named.
    Vegas,
    /// RACK-TLP (RFC 8985): time-based loss detection and tail loss probes.
    Rack,
}

impl Base {
    pub const ALL: [(&'static str, Base); 10] = [
        ("tahoe", Base::Tahoe),
        ("reno", Base::Reno),
        ("newreno", Base::NewReno),
        ("sack", Base::Sack),
        ("sack-cautious", Base::SackCautious),
        ("fack", Base::Fack),
        ("ecn-fack", Base::EcnFack),
        ("rfc6675", Base::Rfc6675),
        ("vegas", Base::Vegas),
        ("rack", Base::Rack),
    ];
    pub fn name(self) -> &'static str {
        Base::ALL.iter().find(|(_, b)| *b == self).map(|(n, _)| *n).unwrap_or("?")
    }
}

/// Extensions composed onto a base.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ext {
    /// Efficient Fast Retransmit (efr §5): the dupack threshold follows the send window.
    Efr,
    /// Limited Transmit (RFC 3042): a new segment on each of the first two dupacks.
    LimitedTransmit,
    /// Early Retransmit (RFC 5827): a lower threshold when fewer than four segments are outstanding.
    EarlyRetransmit,
    /// EPLR / "Modified Reno" (eplr §III.C): small flights retransmit after F − 1 dupacks.
    Eplr,
    /// ECN (RFC 3168): ECT data, CWR, and the window halved once per window on ECE.
    Ecn,
    /// RPLD (rpld §2.3–3): the authors' SACK TCP with `cwnd_rexmit` and
    /// lost-retransmission detection. Only on `sack`.
    Rpld,
    /// TCP I&RW (irw §3): tagged transmissions and a revivable window.
    Irw,
    /// Proportional Rate Reduction (RFC 6937). Only on `rfc6675`.
    Prr,
    /// Undo spurious reductions detected with timestamps (Eifel, RFC 3522).
    Undo,
}

impl Ext {
    pub const ALL: [(&'static str, Ext); 9] = [
        ("efr", Ext::Efr),
        ("lt", Ext::LimitedTransmit),
        ("er", Ext::EarlyRetransmit),
        ("eplr", Ext::Eplr),
        ("ecn", Ext::Ecn),
        ("rpld", Ext::Rpld),
        ("irw", Ext::Irw),
        ("prr", Ext::Prr),
        ("undo", Ext::Undo),
    ];
    /// Extensions that each choose the duplicate-ACK threshold: at most one per variant.
    pub const THRESHOLD: [Ext; 3] = [Ext::Efr, Ext::EarlyRetransmit, Ext::Eplr];
    pub fn name(self) -> &'static str {
        Ext::ALL.iter().find(|(_, e)| *e == self).map(|(n, _)| *n).unwrap_or("?")
    }
}

/// The congestion controller (`tcp::cc`): how the window grows between
/// losses and by how much a loss reduces it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Cc {
    /// RFC 5681 AIMD: halve, then one segment per RTT.
    #[default]
    Reno,
    /// RFC 9438 CUBIC: β = 0.7, cubic growth with a Reno-friendly region.
    Cubic,
    /// Vegas (Brakmo & Peterson 1995 §3.2–3.3): delay-based avoidance and a
    /// slow start that stops when the queue begins to grow.
    Vegas,
}

impl Cc {
    pub const ALL: [(&'static str, Cc); 3] = [("reno", Cc::Reno), ("cubic", Cc::Cubic), ("vegas", Cc::Vegas)];
    /// The controller a base comes with when the variant names none: Vegas's
    /// own for `vegas`, Reno's AIMD for every other.
    pub fn default_for(base: Base) -> Cc {
        if base == Base::Vegas {
            Cc::Vegas
        } else {
            Cc::Reno
        }
    }
    pub fn name(self) -> &'static str {
        Cc::ALL.iter().find(|(_, c)| *c == self).map(|(n, _)| *n).unwrap_or("?")
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantSpec {
    pub base: Base,
    pub exts: Vec<Ext>,
    pub cc: Cc,
}

impl VariantSpec {
    /// Does the sender need SACK blocks from the receiver?
    pub fn uses_sack(&self) -> bool {
        matches!(self.base, Base::Sack | Base::SackCautious | Base::Fack | Base::EcnFack | Base::Rfc6675 | Base::Rack)
    }
    pub fn has(&self, e: Ext) -> bool {
        self.exts.contains(&e)
    }
}

impl fmt::Display for VariantSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.base.name())?;
        self.exts.iter().try_for_each(|e| write!(f, "+{}", e.name()))?;
        if self.cc != Cc::default_for(self.base) {
            write!(f, "+cc={}", self.cc.name())?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantError(pub String);

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn names<T>(table: &[(&'static str, T)]) -> String {
    table.iter().map(|(n, _)| format!("'{n}'")).collect::<Vec<_>>().join(", ")
}

/// A flow's variant: the text as written (`"newreno+efr"`, shown in results
/// and messages as it was written) and what it parses to, parsed once. A
/// `Variant` exists only for a valid text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    text: String,
    spec: VariantSpec,
}

impl Variant {
    /// Parse `text` with [`parse_variant`].
    pub fn parse(text: &str) -> Result<Variant, VariantError> {
        Ok(Variant { spec: parse_variant(text)?, text: text.to_string() })
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// What the text parses to.
    pub fn spec(&self) -> &VariantSpec {
        &self.spec
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq<str> for Variant {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<&str> for Variant {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

/// Parse `base(+ext)*`.
pub fn parse_variant(s: &str) -> Result<VariantSpec, VariantError> {
    let mut words = s.split('+');
    let head = words.next().unwrap_or("");
    let base = Base::ALL.iter().find(|(n, _)| *n == head).map(|(_, b)| *b).ok_or_else(|| {
        VariantError(format!("unknown TCP variant '{head}'; the base must be one of {}", names(&Base::ALL)))
    })?;
    let mut exts = Vec::new();
    let mut cc: Option<Cc> = None;
    for w in words {
        if let Some(name) = w.strip_prefix("cc=") {
            let c = Cc::ALL.iter().find(|(n, _)| *n == name).map(|(_, c)| *c).ok_or_else(|| {
                VariantError(format!(
                    "unknown congestion controller 'cc={name}' in variant '{s}'; controllers are {}",
                    names(&Cc::ALL)
                ))
            })?;
            if cc.is_some() {
                return Err(VariantError(format!("variant '{s}' names more than one congestion controller")));
            }
            cc = Some(c);
            continue;
        }
        let ext = Ext::ALL.iter().find(|(n, _)| *n == w).map(|(_, e)| *e);
        if ext.is_none() && Base::ALL.iter().any(|(n, _)| *n == w) {
            return Err(VariantError(format!(
                "'{w}' in variant '{s}' is a base, and a variant has exactly one base ('{head}'); \
                 extensions after '+' are {}",
                names(&Ext::ALL)
            )));
        }
        match ext {
            Some(e) if exts.contains(&e) => {
                return Err(VariantError(format!("extension '+{w}' appears twice in variant '{s}'")))
            }
            Some(e) => exts.push(e),
            None if Ext::ALL.is_empty() => {
                return Err(VariantError(format!(
                    "unknown extension '+{w}' in variant '{s}'; no extensions are available in this version"
                )))
            }
            None => {
                return Err(VariantError(format!(
                    "unknown extension '+{w}' in variant '{s}'; extensions are {}",
                    names(&Ext::ALL)
                )))
            }
        }
    }
    // Each chooses the duplicate-ACK threshold; there is no one way to combine them.
    let setters: Vec<String> =
        exts.iter().filter(|e| Ext::THRESHOLD.contains(e)).map(|e| format!("'+{}'", e.name())).collect();
    if setters.len() > 1 {
        return Err(VariantError(format!(
            "{} in variant '{s}' each set the duplicate-ACK threshold; use one of them",
            setters.join(" and ")
        )));
    }
    if exts.contains(&Ext::Rpld) && !matches!(base, Base::Sack | Base::SackCautious) {
        return Err(VariantError(format!(
            "'+rpld' in variant '{s}' works in the rpld paper's SACK TCP and needs the 'sack' or 'sack-cautious' \
             base (write 'sack+rpld')"
        )));
    }
    if exts.contains(&Ext::Undo) && exts.contains(&Ext::Irw) {
        return Err(VariantError(format!(
            "'+undo' and '+irw' in variant '{s}' both undo window reductions; use one of them"
        )));
    }
    if exts.contains(&Ext::Prr) && base != Base::Rfc6675 {
        return Err(VariantError(format!(
            "'+prr' in variant '{s}' needs RFC 6675's pipe and so the 'rfc6675' base (write 'rfc6675+prr')"
        )));
    }
    let cc = cc.unwrap_or(Cc::default_for(base));
    Ok(VariantSpec { base, exts, cc })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn extensions_compose_onto_every_base() {
        for (n, b) in Base::ALL {
            let v = parse_variant(&format!("{n}+efr")).unwrap();
            assert_eq!((v.base, v.has(Ext::Efr)), (b, true));
            assert_eq!(v.to_string(), format!("{n}+efr"));
        }
    }

    #[test]
    fn every_congestion_controller_composes_with_every_recovery() {
        for (n, b) in Base::ALL {
            for (c, cc) in Cc::ALL {
                let v = parse_variant(&format!("{n}+cc={c}")).unwrap();
                assert_eq!((v.base, v.cc), (b, cc));
                let shown = if cc == Cc::default_for(b) { n.to_string() } else { format!("{n}+cc={c}") };
                assert_eq!(v.to_string(), shown);
            }
        }
        assert_eq!(parse_variant("rfc6675+prr+cc=cubic").unwrap().to_string(), "rfc6675+prr+cc=cubic");
        assert_eq!(parse_variant("sack+cc=reno").unwrap(), parse_variant("sack").unwrap());
        let e = parse_variant("sack+cc=bbr").unwrap_err().0;
        assert!(e.contains("'cc=bbr'") && e.contains("'cubic'") && e.contains("'vegas'"), "{e}");
        assert!(parse_variant("sack+cc=cubic+cc=reno").unwrap_err().0.contains("more than one"));
    }

    #[test]
    fn vegas_comes_with_its_own_controller_and_takes_another_when_named() {
        assert_eq!(parse_variant("vegas").unwrap().cc, Cc::Vegas);
        assert_eq!(parse_variant("vegas+cc=vegas").unwrap(), parse_variant("vegas").unwrap());
        let v = parse_variant("vegas+cc=reno").unwrap();
        assert_eq!((v.base, v.cc, v.to_string().as_str()), (Base::Vegas, Cc::Reno, "vegas+cc=reno"));
        assert_eq!(parse_variant("sack+cc=vegas").unwrap().to_string(), "sack+cc=vegas");
    }

    #[test]
    fn parses_every_base() {
        for (n, b) in Base::ALL {
            assert_eq!(parse_variant(n).unwrap().base, b);
        }
    }
    #[test]
    fn rejects_unknown_names_with_the_allowed_list() {
        let e = parse_variant("westwood").unwrap_err().0;
        assert!(e.contains("'westwood'") && e.contains("'newreno'"), "{e}");
        let e = parse_variant("reno+bogus").unwrap_err().0;
        assert!(e.contains("'+bogus'") && e.contains("'efr'"), "{e}");
        let e = parse_variant("reno+sack").unwrap_err().0;
        assert!(e.contains("'sack'") && e.contains("exactly one base"), "{e}");
        let e = parse_variant("reno+efr+efr").unwrap_err().0;
        assert!(e.contains("twice"), "{e}");
        assert!(parse_variant("").is_err());
        assert!(parse_variant("Reno").is_err());
    }
}
