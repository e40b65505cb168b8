use super::*;
use serde_json::json;

fn key(k: &str) -> Segment {
    Segment::Key(k.into())
}
fn idx(i: &str) -> Segment {
    Segment::Index(i.into())
}

#[test]
fn paths_and_values_are_read_as_the_cli_documents_them() {
    let cases: Vec<(&str, Vec<Segment>, Value)> = vec![
        ("run.duration=10s", vec![key("run"), key("duration")], json!("10s")),
        ("run.duration=10", vec![key("run"), key("duration")], json!(10)),
        ("run.duration = 2.5", vec![key("run"), key("duration")], json!(2.5)),
        ("tcp.timestamps=true", vec![key("tcp"), key("timestamps")], json!(true)),
        ("tcp.variant=\"newreno\"", vec![key("tcp"), key("variant")], json!("newreno")),
        ("name='a = b'", vec![key("name")], json!("a = b")),
        ("name=a=b", vec![key("name")], json!("a=b")),
        ("name=", vec![key("name")], json!("")),
        ("flows[0].variant=sack", vec![key("flows"), idx("0"), key("variant")], json!("sack")),
        ("flows.01.variant=sack", vec![key("flows"), idx("1"), key("variant")], json!("sack")),
        ("x.t={ p = 0.01 }", vec![key("x"), key("t")], json!({"p": 0.01})),
        ("m[0][1]=x", vec![key("m"), idx("0"), idx("1")], json!("x")),
        ("a-b.c_d=1e3", vec![key("a-b"), key("c_d")], json!(1000.0)),
        ("x=1\ny = 2", vec![key("x")], json!("1\ny = 2")),
        ("run.seed=18446744073709551615", vec![key("run"), key("seed")], json!(u64::MAX)),
    ];
    for (item, path, value) in cases {
        assert_eq!(parse_override(item), Ok((path, value)), "{item}");
    }
}

#[test]
fn malformed_overrides_say_what_is_wrong() {
    for (item, fragment) in [
        ("run.duration", "expected path=value"),
        ("  =5", "path before '=' is empty"),
        ("run..duration=5", "empty path segment"),
        (".run=5", "empty path segment"),
        ("run.=5", "empty path segment"),
        ("flows[x].variant=a", "list index [x] is not a non-negative integer"),
        ("flows[-1].variant=a", "not a non-negative integer"),
        ("fl ows=a", "invalid key 'fl ows'"),
        ("a]b=1", "cannot read path segment 'a]b'"),
        ("run.seed=18446744073709551616", "the integer 18446744073709551616 is out of range"),
        ("run.seed=-9223372036854775809", "is out of range"),
        ("run.start=1979-05-27", "dates and times are not supported"),
        ("x=nan", "nan is not allowed: numbers must be finite"),
    ] {
        let e = parse_override(item).unwrap_err();
        assert!(e.reason.contains(fragment), "{item}: {e:?}");
    }
}

fn base() -> Value {
    json!({"name": "t", "run": {"duration": "5s", "seed": 1}, "flows": [{"variant": "reno"}, {"variant": "sack"}]})
}

#[test]
fn overrides_set_create_tables_and_refuse_bad_targets() {
    let mut d = base();
    for item in ["run.duration=10s", "flows[1].tcp.mss=1460B", "receiver.ack.mode=delayed"] {
        apply(&mut d, item).unwrap();
    }
    assert_eq!(d["run"]["duration"], "10s");
    assert_eq!(d["flows"][1]["tcp"]["mss"], "1460B");
    assert_eq!(d["receiver"], json!({"ack": {"mode": "delayed"}}));
    for (item, path, fragment) in [
        ("flows[2].variant=reno", "flows[2].variant", "index 2 is out of range: flows has 2 element(s)"),
        ("flows.variant=reno", "flows.variant", "flows is a list; address its elements by index, e.g. flows[0]"),
        ("run[0]=x", "run[0]", "run is a table, not a list, so it cannot be indexed with [0]"),
        ("name[0]=x", "name[0]", "name is a string, not a table or list"),
        ("run.seed.x=1", "run.seed.x", "run.seed is an integer"),
        ("nothere[0].x=1", "nothere[0].x", "nothere does not exist, so it cannot be indexed"),
    ] {
        let e = apply(&mut base(), item).unwrap_err();
        assert_eq!(e.path, path, "{item}");
        assert!(e.reason.contains(fragment), "{item}: {e:?}");
    }
}

#[test]
fn nesting_counts_from_the_top_of_the_document() {
    let path = ["t"; 10].join(".");
    let ok = MAX_DEPTH - 10;
    let lists = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    apply(&mut json!({}), &format!("{path}={}", lists(ok))).unwrap();
    let e = apply(&mut json!({}), &format!("{path}={}", lists(ok + 1))).unwrap_err();
    assert_eq!(e.path, path);
    assert!(e.reason.contains("the value is nested too deeply"), "{e:?}");
    // Deeper than the TOML reader goes: still too deep, not a string.
    for n in [130, 3000] {
        let e = apply(&mut base(), &format!("run.x={}", lists(n))).unwrap_err();
        assert!(e.reason.contains("nested too deeply"), "{n}: {e:?}");
    }
}

#[test]
fn a_toml_document_is_json_and_refuses_dates() {
    assert_eq!(from_toml("name = \"x\"\n[run]\nseed = 3\n").unwrap(), json!({"name": "x", "run": {"seed": 3}}));
    let e = from_toml("[run]\nstart = 1979-05-27\n").unwrap_err();
    assert!(e.message.contains("dates and times"), "{e}");
    let e = from_toml("name = \n").unwrap_err();
    assert!(e.message.contains("line 1"), "{e}");
}
