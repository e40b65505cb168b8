use super::*;

#[derive(serde::Serialize)]
struct Row {
    a: u64,
    b: Option<f64>,
    c: String,
    d: [u64; 2],
    e: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    f: Option<bool>,
}

#[test]
fn rows_become_typed_columns() {
    let mut t = Table::default();
    t.push(&Row { a: 1, b: None, c: "x".into(), d: [1, 2], e: None, f: None }).unwrap();
    t.push(&Row { a: 2, b: Some(f64::INFINITY), c: "y".into(), d: [3, 4], e: Some(7), f: Some(true) }).unwrap();
    t.push(&Row { a: 3, b: Some(0.5), c: "z".into(), d: [5, 6], e: None, f: None }).unwrap();
    assert_eq!(t.rows, 3);
    let names: Vec<_> = t.columns.iter().map(|c| c.name).collect();
    assert_eq!(names, ["a", "b", "c", "d", "e", "f"]);
    let c = |n: &str| t.columns.iter().find(|c| c.name == n).unwrap();
    assert!(matches!(&c("a").values, Values::U64(v) if v == &[1, 2, 3]));
    assert!(!c("a").has_nulls());
    match &c("b").values {
        Values::F64(v) => assert!(v[0].is_nan() && v[1].is_nan() && v[2] == 0.5),
        v => panic!("{v:?}"),
    }
    assert_eq!(c("b").valid, [false, true, true]);
    assert!(matches!(&c("d").values, Values::U64(v) if v == &[1, 2, 3, 4, 5, 6]));
    assert_eq!(c("d").width, 2);
    assert!(matches!(&c("e").values, Values::U64(v) if v == &[0, 7, 0]));
    assert_eq!(c("e").valid, [false, true, false]);
    // Left out of the first row: the column starts null.
    assert!(matches!(&c("f").values, Values::Bool(v) if v == &[false, true, false]));
    assert_eq!(c("f").valid, [false, true, false]);
    match &c("c").values {
        Values::Str(v) => {
            assert_eq!(v.data, b"xyz");
            assert_eq!(v.offsets, [0, 1, 2, 3]);
        }
        v => panic!("{v:?}"),
    }
}

#[test]
fn strings_are_arrow_buffers_with_empty_placeholders_for_nulls() {
    #[derive(serde::Serialize)]
    struct Named {
        name: Option<&'static str>,
    }
    let mut t = Table::default();
    for name in [None, Some("bc"), Some("a"), Some("bc"), None] {
        t.push(&Named { name }).unwrap();
    }
    let c = &t.columns[0];
    assert_eq!(c.valid, [false, true, true, true, false]);
    match &c.values {
        Values::Str(v) => {
            assert_eq!(v.data, b"bcabc");
            assert_eq!(v.offsets, [0, 0, 2, 3, 5, 5]);
        }
        v => panic!("{v:?}"),
    }
}

#[test]
fn a_copy_from_a_row_holds_exactly_the_later_rows() {
    #[derive(serde::Serialize)]
    struct R {
        name: String,
        n: Option<u64>,
        pair: [u64; 2],
    }
    let mut t = Table::default();
    let names = ["a", "bb", "", "ccc"];
    for (i, name) in names.iter().enumerate() {
        let n = (i % 2 == 1).then_some(i as u64);
        t.push(&R { name: name.to_string(), n, pair: [i as u64, 10 * i as u64] }).unwrap();
    }
    let c = t.copy_from_row(1);
    assert_eq!(c.rows, 3);
    let col = |n: &str| c.columns.iter().find(|c| c.name == n).unwrap();
    match &col("name").values {
        Values::Str(v) => {
            assert_eq!(v.offsets, [0, 2, 2, 5]); // rebased to the copy's own bytes
            assert_eq!(v.data, b"bbccc");
        }
        v => panic!("{v:?}"),
    }
    assert!(matches!(&col("n").values, Values::U64(v) if v == &[1, 0, 3]));
    assert_eq!(col("n").valid, [true, false, true]);
    assert!(matches!(&col("pair").values, Values::U64(v) if v == &[1, 10, 2, 20, 3, 30]));
    assert_eq!(col("pair").width, 2);
    // The copy takes more rows like the original.
    let mut c = c;
    c.push(&R { name: "d".into(), n: None, pair: [4, 40] }).unwrap();
    assert_eq!(c.rows, 4);
    assert_eq!(col_len(&c, "name"), 4);
    assert_eq!(t.copy_from_row(4).rows, 0);
}

#[test]
fn appending_row_ranges_equals_pushing_the_rows() {
    #[derive(serde::Serialize, Clone)]
    struct R {
        name: String,
        n: Option<u64>,
        x: Option<f64>,
        pair: [u64; 2],
    }
    let row = |i: u64| R {
        name: "r".repeat(i as usize % 3),
        n: i.is_multiple_of(3).then_some(i),
        x: (i >= 4).then_some(i as f64 / 2.0),
        pair: [i, 100 + i],
    };
    // Two tables that met their first values at different rows (x is all
    // null in the first), appended in pieces, against one table of every row.
    let (mut a, mut b, mut whole) = (Table::default(), Table::default(), Table::default());
    for i in 0..4 {
        a.push(&row(i)).unwrap();
    }
    for i in 4..9 {
        b.push(&row(i)).unwrap();
    }
    for i in [0, 1, 4, 5, 6, 2, 3, 7, 8] {
        whole.push(&row(i)).unwrap();
    }
    let mut t = Table::default();
    t.append_rows(&a, 0..2).unwrap();
    t.append_rows(&b, 0..3).unwrap();
    t.append_rows(&a, 2..4).unwrap();
    t.append_rows(&b, 3..5).unwrap();
    assert_eq!(t.rows, whole.rows);
    assert_eq!(format!("{:?}", strip(&t)), format!("{:?}", strip(&whole)));
    // Cleared, a table keeps its columns and takes rows again.
    t.clear();
    assert_eq!((t.rows, t.columns.len()), (0, 4));
    t.append_rows(&b, 1..2).unwrap();
    assert_eq!(col_len(&t, "pair"), 2);
}

/// The columns' contents, without the bookkeeping that may differ.
fn strip(t: &Table) -> Vec<(&'static str, String, Vec<bool>, usize)> {
    t.columns
        .iter()
        .map(|c| {
            let values = match &c.values {
                Values::F64(v) => format!("{:?}", v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
                v => format!("{v:?}"),
            };
            let valid = if c.nullable { c.valid.clone() } else { vec![true; c.rows] };
            (c.name, values, valid, c.width)
        })
        .collect()
}

fn col_len(t: &Table, name: &str) -> usize {
    t.columns.iter().find(|c| c.name == name).unwrap().len()
}

/// Reserving room (what a sweep that keeps every row does once it knows
/// a run's rows) changes no value, and the rows reserved for then fit
/// without a reallocation of any typed column.
#[test]
fn reserved_rows_fit_without_reallocating_and_change_nothing() {
    let row = |i: u64| Row {
        a: i,
        b: i.is_multiple_of(2).then_some(i as f64),
        c: "ab".repeat(i as usize % 3),
        d: [i, i + 1],
        e: None,
        f: (i > 2).then_some(true),
    };
    let (mut t, mut plain) = (Table::default(), Table::default());
    for i in 0..4 {
        t.push(&row(i)).unwrap();
        plain.push(&row(i)).unwrap();
    }
    t.reserve(100);
    let before: Vec<(usize, *const u8)> = t.columns.iter().map(buffer).collect();
    for i in 4..104 {
        t.push(&row(i)).unwrap();
        plain.push(&row(i)).unwrap();
    }
    let after: Vec<(usize, *const u8)> = t.columns.iter().map(buffer).collect();
    for ((c, b), a) in t.columns.iter().zip(&before).zip(&after) {
        if !matches!(c.values, Values::Null | Values::Str(_)) {
            assert_eq!(b.1, a.1, "column {:?} was reallocated", c.name);
        }
    }
    assert_eq!(format!("{:?}", strip(&t)), format!("{:?}", strip(&plain)));
}

/// A column's capacity and where its values live.
fn buffer(c: &Column) -> (usize, *const u8) {
    match &c.values {
        Values::Null => (0, std::ptr::null()),
        Values::U64(v) => (v.capacity(), v.as_ptr().cast()),
        Values::I64(v) => (v.capacity(), v.as_ptr().cast()),
        Values::F64(v) => (v.capacity(), v.as_ptr().cast()),
        Values::Bool(v) => (v.capacity(), v.as_ptr().cast()),
        Values::Str(s) => (s.offsets.capacity(), s.offsets.as_ptr().cast()),
    }
}

/// Flow rows that reach every case of a column: a null before the first
/// value, a value before the first null, non-finite floats, empty and
/// non-ASCII strings, an array field.
fn flow_rows() -> Vec<dupack_sim::FlowResult> {
    use dupack_sim::FlowResult;
    let a = FlowResult {
        flow: "f0".into(),
        variant: "sack".into(),
        app_bytes: None,
        bytes_delivered: 10,
        goodput_kbps: f64::INFINITY,
        completion_time_s: Some(1.5),
        fr_to_ratio: None,
        final_ssthresh: Some(3000),
        ndup_at_timeout: [1, 2, 3, 4],
        ..FlowResult::default()
    };
    let b = FlowResult {
        flow: String::new(),
        variant: "rpld–α".into(),
        app_bytes: Some(7),
        goodput_kbps: f64::NAN,
        completion_time_s: None,
        fr_to_ratio: Some(0.25),
        final_ssthresh: None,
        srtt_s: Some(f64::NEG_INFINITY),
        ndup_at_timeout: [5, 6, 7, 8],
        ..FlowResult::default()
    };
    vec![a.clone(), b.clone(), a, b.clone(), b]
}

#[test]
fn result_rows_by_position_are_the_rows_serde_makes() {
    let rows = flow_rows();
    let (mut by_serde, mut by_position) = (Table::default(), Table::default());
    for r in &rows {
        by_serde.push(r).unwrap();
        by_position.push_row(r).unwrap();
    }
    assert_eq!(by_serde.rows, rows.len());
    assert_eq!(by_position.rows, rows.len());
    assert_eq!(format!("{:?}", by_position.columns), format!("{:?}", by_serde.columns));
    // And so are a run's, a link's and a station's, with their defaults.
    let run = dupack_sim::RunInfo { end_reason: "time_limit".into(), sim_time_s: 2.0, ..Default::default() };
    let link = dupack_sim::LinkResult { link: "bottleneck".into(), utilisation: 0.5, ..Default::default() };
    let station = dupack_sim::MediumResult { medium: "wlan".into(), airtime: 0.1, ..Default::default() };
    let (mut a, mut b) = (
        [Table::default(), Table::default(), Table::default()],
        [Table::default(), Table::default(), Table::default()],
    );
    for _ in 0..3 {
        a[0].push(&run).unwrap();
        b[0].push_row(&run).unwrap();
        a[1].push(&link).unwrap();
        b[1].push_row(&link).unwrap();
        a[2].push(&station).unwrap();
        b[2].push_row(&station).unwrap();
    }
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(format!("{:?}", y.columns), format!("{:?}", x.columns));
    }
}

#[test]
fn a_result_row_goes_through_serde_only_while_its_columns_are_not_made() {
    // A row whose two ways give different values tells which one was taken.
    #[derive(serde::Serialize)]
    struct Two {
        a: u64,
        b: String,
    }
    impl dupack_sim::metrics::columns::Row for Two {
        const FIELDS: usize = 2;
        fn visit<V: dupack_sim::metrics::columns::RowVisitor>(&self, v: &mut V) {
            v.u64(self.a + 100);
            v.str("by position");
        }
    }
    let mut t = Table::default();
    t.push_row(&Two { a: 1, b: "by serde".into() }).unwrap();
    t.push_row(&Two { a: 2, b: "by serde".into() }).unwrap();
    t.clear(); // a worker's batch, handed back: its columns stay
    t.push_row(&Two { a: 3, b: "by serde".into() }).unwrap();
    assert!(matches!(&t.columns[0].values, Values::U64(v) if v == &[103]));
    let mut t = Table::default();
    t.push_row(&Two { a: 1, b: "by serde".into() }).unwrap();
    t.push_row(&Two { a: 2, b: "by serde".into() }).unwrap();
    assert!(matches!(&t.columns[0].values, Values::U64(v) if v == &[1, 102]));
    match &t.columns[1].values {
        Values::Str(s) => assert_eq!(s.data, b"by serdeby position"),
        v => panic!("{v:?}"),
    }
}

#[test]
fn a_row_that_does_not_fill_its_columns_is_an_error() {
    #[derive(serde::Serialize)]
    struct Short {
        a: u64,
        b: u64,
    }
    impl dupack_sim::metrics::columns::Row for Short {
        const FIELDS: usize = 2;
        fn visit<V: dupack_sim::metrics::columns::RowVisitor>(&self, v: &mut V) {
            v.u64(self.a);
        }
    }
    let mut t = Table::default();
    t.push_row(&Short { a: 1, b: 2 }).unwrap();
    let e = t.push_row(&Short { a: 1, b: 2 }).unwrap_err();
    assert!(e.to_string().contains("a row of 1 fields for 2 columns"), "{e}");
}
