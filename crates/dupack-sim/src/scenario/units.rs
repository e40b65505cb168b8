//! Unit strings: durations (`"280ms"`), rates (`"1.5Mbps"`) and sizes
//! (`"64KiB"`).
//!
//! Every physical quantity in a scenario is written as a string carrying its
//! unit; only counts and probabilities are bare numbers. The number part is a
//! non-negative decimal (`"1.5"`, `"20"`, `"0.25"`; no sign, no exponent) and is
//! converted with exact integer arithmetic: `"0.1ms"` is exactly 100 000 ns,
//! never 99 999 because of a binary fraction. A value that does not come out
//! as a whole number of the base unit (`"0.5ns"`, `"1.5B"`) is an error, as is
//! one that does not fit in 64 bits.
//!
//! Errors are plain strings that quote the offending text and say what form
//! is expected; [`super::parse`] prefixes them with the field path.

use crate::time::SimDuration;

/// The three kinds of quantity, with their units and wording for messages.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Quantity {
    Duration,
    Rate,
    Size,
}

/// (unit, multiplier to the base unit). Matching is exact and case-sensitive,
/// except that `kbps` and `Kbps` are both accepted.
const DURATION_UNITS: &[(&str, u64)] = &[("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000)];
const RATE_UNITS: &[(&str, u64)] =
    &[("bps", 1), ("kbps", 1_000), ("Kbps", 1_000), ("Mbps", 1_000_000), ("Gbps", 1_000_000_000)];
const SIZE_UNITS: &[(&str, u64)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("KiB", 1 << 10),
    ("MB", 1_000_000),
    ("MiB", 1 << 20),
    ("GB", 1_000_000_000),
    ("GiB", 1 << 30),
];

impl Quantity {
    fn units(self) -> &'static [(&'static str, u64)] {
        match self {
            Quantity::Duration => DURATION_UNITS,
            Quantity::Rate => RATE_UNITS,
            Quantity::Size => SIZE_UNITS,
        }
    }

    /// "a duration", "a rate", "a size".
    pub fn noun(self) -> &'static str {
        match self {
            Quantity::Duration => "a duration",
            Quantity::Rate => "a rate",
            Quantity::Size => "a size",
        }
    }

    /// A typical value, used in hints.
    pub fn example(self) -> &'static str {
        match self {
            Quantity::Duration => "200ms",
            Quantity::Rate => "2Mbps",
            Quantity::Size => "1460B",
        }
    }

    /// The base unit as words, for "not a whole number of …".
    fn base_words(self) -> &'static str {
        match self {
            Quantity::Duration => "nanoseconds",
            Quantity::Rate => "bits per second",
            Quantity::Size => "bytes",
        }
    }

    /// `a duration such as "200ms" or "1.5s" (units ns, us, ms, s)`.
    pub fn expected(self) -> &'static str {
        match self {
            Quantity::Duration => r#"a duration such as "200ms" or "1.5s" (units ns, us, ms, s)"#,
            Quantity::Rate => r#"a rate such as "2Mbps" or "64kbps" (units bps, kbps, Mbps, Gbps)"#,
            Quantity::Size => r#"a size such as "1460B" or "64KiB" (units B, KB, KiB, MB, MiB, GB, GiB)"#,
        }
    }

    fn expected_got(self, s: &str) -> String {
        format!("expected {}, got {:?}", self.expected(), s)
    }

    /// Message for a bare JSON/TOML number where a unit string is required.
    /// `number` is the number as written (`"200"`, `"1.5"`).
    pub fn bare_number_hint(self, number: &str) -> String {
        let example = match self {
            Quantity::Duration => format!("{number}ms"),
            // A big bare number was most likely meant in bit/s.
            Quantity::Rate if number.split('.').next().is_some_and(|i| i.len() >= 4) => format!("{number}bps"),
            Quantity::Rate => format!("{number}Mbps"),
            Quantity::Size => format!("{number}B"),
        };
        // Do not suggest a nonsense example such as "-3ms".
        let example = if number.starts_with('-') { self.example().to_string() } else { example };
        format!("expected {}, got the number {number}; write it with a unit, e.g. {example:?}", self.expected())
    }

    /// Parse `s` into the base unit (ns, bit/s or bytes).
    pub fn parse(self, s: &str) -> Result<u64, String> {
        let t = s.trim();
        let num_len = t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+')).unwrap_or(t.len());
        let (num, unit) = t.split_at(num_len);
        let unit = unit.trim_start();
        if num.starts_with('-') {
            return Err(format!("{} cannot be negative, got {s:?}", self.noun()));
        }
        let Some(&(_, mult)) = self.units().iter().find(|(u, _)| *u == unit) else {
            return Err(self.unit_error(s, num, unit));
        };
        let Some(dec) = Decimal::parse(num) else {
            return Err(self.expected_got(s));
        };
        match dec.times(mult) {
            Scaled::Whole(v) => Ok(v),
            Scaled::Fraction => Err(format!("{s:?} is not a whole number of {}", self.base_words())),
            Scaled::Overflow => Err(format!("{s:?} is too large")),
            Scaled::TooPrecise => {
                Err(format!("{s:?} has more than {MAX_DIGITS} significant digits; write it with fewer"))
            }
        }
    }

    fn unit_error(self, s: &str, num: &str, unit: &str) -> String {
        if unit.is_empty() {
            return format!("{}; the unit is missing", self.expected_got(s));
        }
        if num.is_empty() {
            return self.expected_got(s);
        }
        // A unit of another kind of quantity: say what it is.
        for other in [Quantity::Duration, Quantity::Rate, Quantity::Size] {
            if other != self && other.units().iter().any(|(u, _)| *u == unit) {
                return format!("{}; {unit:?} is a unit of {}", self.expected_got(s), &other.noun()[2..]);
            }
        }
        // A case slip ("MBPS", "Ms") gets a suggestion.
        if let Some((u, _)) = self.units().iter().find(|(u, _)| u.eq_ignore_ascii_case(unit)) {
            return format!("{}; did you mean \"{num}{u}\"?", self.expected_got(s));
        }
        for other in [Quantity::Duration, Quantity::Rate, Quantity::Size] {
            if other != self && other.units().iter().any(|(u, _)| u.eq_ignore_ascii_case(unit)) {
                return format!("{}; {unit:?} looks like a unit of {}", self.expected_got(s), &other.noun()[2..]);
            }
        }
        format!("{}; unknown unit {unit:?}", self.expected_got(s))
    }
}

/// A non-negative decimal `digits / 10^scale`, held exactly.
struct Decimal {
    digits: u128,
    scale: u32,
    /// More significant digits than can be held exactly (see MAX_DIGITS).
    too_precise: bool,
}

enum Scaled {
    Whole(u64),
    Fraction,
    Overflow,
    TooPrecise,
}

/// More significant digits than this cannot be held exactly in `u128` after
/// multiplying by the largest unit (2^30); such values are too large anyway.
const MAX_DIGITS: usize = 28;

impl Decimal {
    /// `int` or `int.frac`, at least one digit on each side of the point.
    fn parse(s: &str) -> Option<Decimal> {
        let (int, frac) = match s.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (s, None),
        };
        let ok = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
        if !ok(int) || !frac.is_none_or(ok) {
            return None;
        }
        // Leading zeros of the integer part and trailing zeros of the fraction
        // carry no information; drop them so they do not count as digits.
        let int = int.trim_start_matches('0');
        let frac = frac.unwrap_or("").trim_end_matches('0');
        if int.len() > MAX_DIGITS {
            // Still exact: only the magnitude matters for the error.
            return Some(Decimal { digits: u128::MAX, scale: 0, too_precise: false });
        }
        if int.len() + frac.len() > MAX_DIGITS {
            // A long fraction is not a large number: say what is wrong.
            return Some(Decimal { digits: 0, scale: 0, too_precise: true });
        }
        let mut digits: u128 = 0;
        for b in int.bytes().chain(frac.bytes()) {
            digits = digits * 10 + u128::from(b - b'0');
        }
        Some(Decimal { digits, scale: frac.len() as u32, too_precise: false })
    }

    fn times(&self, mult: u64) -> Scaled {
        if self.too_precise {
            return Scaled::TooPrecise;
        }
        let Some(n) = self.digits.checked_mul(u128::from(mult)) else {
            return Scaled::Overflow;
        };
        let div = 10u128.pow(self.scale);
        if n % div != 0 {
            return Scaled::Fraction;
        }
        match u64::try_from(n / div) {
            Ok(v) => Scaled::Whole(v),
            Err(_) => Scaled::Overflow,
        }
    }
}

/// `"280ms"` → 280 000 000 ns.
pub fn parse_duration(s: &str) -> Result<SimDuration, String> {
    Quantity::Duration.parse(s).map(SimDuration::from_nanos)
}

/// `"1.5Mbps"` → 1 500 000 bit/s.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    Quantity::Rate.parse(s)
}

/// `"64KiB"` → 65 536 bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    Quantity::Size.parse(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let ns = |s| parse_duration(s).map(|d| d.as_nanos());
        assert_eq!(ns("280ms"), Ok(280_000_000));
        assert_eq!(ns("0.1ms"), Ok(100_000));
        assert_eq!(ns("1.5s"), Ok(1_500_000_000));
        assert_eq!(ns("20us"), Ok(20_000));
        assert_eq!(ns("100ns"), Ok(100));
        assert_eq!(ns("0s"), Ok(0));
        assert_eq!(ns("0.000000001s"), Ok(1));
        assert_eq!(ns("1.000s"), Ok(1_000_000_000));
        assert_eq!(ns("007ms"), Ok(7_000_000));
        assert_eq!(ns("2 ms"), Ok(2_000_000));
        // Exact decimal: 0.3 s is not 0.299999… s.
        assert_eq!(ns("0.3s"), Ok(300_000_000));
        assert_eq!(ns("18446744073.709551615s"), Ok(u64::MAX));
        let e = ns("0.00000000000000000000000000001s").unwrap_err();
        assert!(e.contains("significant digits"), "{e}");
        assert!(ns("100000000000000000000000000000s").unwrap_err().contains("too large"));
    }

    #[test]
    fn rates_and_sizes() {
        assert_eq!(parse_rate("2Mbps"), Ok(2_000_000));
        assert_eq!(parse_rate("1.5Mbps"), Ok(1_500_000));
        assert_eq!(parse_rate("64kbps"), Ok(64_000));
        assert_eq!(parse_rate("64Kbps"), Ok(64_000));
        assert_eq!(parse_rate("10Gbps"), Ok(10_000_000_000));
        assert_eq!(parse_rate("9600bps"), Ok(9600));
        assert_eq!(parse_size("1460B"), Ok(1460));
        assert_eq!(parse_size("64KiB"), Ok(65_536));
        assert_eq!(parse_size("1.5MB"), Ok(1_500_000));
        assert_eq!(parse_size("20KB"), Ok(20_000));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("0.5KiB"), Ok(512));
    }

    #[test]
    fn errors_quote_the_value_and_the_expected_form() {
        let e = parse_duration("200").unwrap_err();
        assert_eq!(
            e,
            r#"expected a duration such as "200ms" or "1.5s" (units ns, us, ms, s), got "200"; the unit is missing"#
        );
        assert!(parse_duration("0.5ns").unwrap_err().contains("whole number of nanoseconds"));
        assert!(parse_size("1.5B").unwrap_err().contains("whole number of bytes"));
        assert!(parse_rate("0.5bps").unwrap_err().contains("whole number of bits"));
        assert!(parse_rate("-2Mbps").unwrap_err().starts_with("a rate cannot be negative"));
        assert!(Quantity::Rate.bare_number_hint("2000000").ends_with(r#"e.g. "2000000bps""#));
        assert!(Quantity::Rate.bare_number_hint("2").ends_with(r#"e.g. "2Mbps""#));
        assert!(parse_rate("2ms").unwrap_err().contains("unit of duration"));
        assert!(parse_rate("2MBPS").unwrap_err().contains("did you mean \"2Mbps\"?"));
        assert!(parse_duration("1.5 mbps").unwrap_err().contains("looks like a unit of rate"));
        assert!(parse_duration("99999999999999999999999999999999999s").unwrap_err().contains("too large"));
        assert!(parse_duration("18446744074s").unwrap_err().contains("too large"));
        for bad in ["", "ms", ".5s", "1.s", "1..2s", "1e3ms", "+1ms", "1,5s", "1.5.3s", "one s", "1 5ms"] {
            assert!(parse_duration(bad).is_err(), "{bad:?} accepted");
        }
        let h = Quantity::Duration.bare_number_hint("200");
        assert!(h.ends_with(r#"got the number 200; write it with a unit, e.g. "200ms""#), "{h}");
    }
}
