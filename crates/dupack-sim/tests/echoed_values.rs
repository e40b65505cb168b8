//! Values the parser echoes into its messages are shortened and escaped, so
//! that every message is one printable line of bounded length whatever the
//! input; names with control characters are refused; an integer beyond 64
//! bits is called one.

use dupack_sim::scenario::parse::{clip, quote, QUOTE_CHARS};
use dupack_sim::{parse_scenario, parse_scenario_toml, ScenarioError};
use serde_json::{json, Value};

fn base() -> Value {
    json!({
        "topology": {
            "kind": "custom",
            "nodes": [{"name": "a"}, {"name": "r", "kind": "router"}, {"name": "b"}],
            "links": [{"a": "a", "b": "r", "rate": "10Mbps", "delay": "1ms"},
                      {"a": "r", "b": "b", "rate": "10Mbps", "delay": "1ms"}]
        },
        "flows": [{"name": "f", "from": "a", "to": "b"}]
    })
}

fn error_with(edit: impl FnOnce(&mut Value)) -> ScenarioError {
    let mut v = base();
    edit(&mut v);
    parse_scenario(&v).expect_err("the edited scenario must be refused")
}

/// One line, no raw control characters, bounded length.
fn assert_printable(e: &ScenarioError) {
    let text = e.to_string();
    assert!(!text.chars().any(char::is_control), "{text:?}");
    assert!(text.chars().count() < 400, "{} chars: {}", text.chars().count(), &text[..200]);
}

/// A change to a scenario's JSON.
type Edit = Box<dyn FnOnce(&mut Value)>;
/// Puts a name at one place of a scenario's JSON.
type SetName = Box<dyn Fn(&mut Value, Value)>;

#[test]
fn the_base_scenario_is_valid() {
    parse_scenario(&base()).unwrap();
}

#[test]
fn clip_shortens_and_escapes() {
    assert_eq!(clip("abc"), "abc");
    assert_eq!(clip("a\nb\u{1b}[31m\0\t\r\u{7f}"), "a\\nb\\x1b[31m\\0\\t\\r\\x7f");
    assert_eq!(clip("\u{202e}evil"), "\\u{202e}evil");
    assert_eq!(clip("back\\slash"), "back\\\\slash");
    let long = "é".repeat(1000);
    assert_eq!(clip(&long).chars().count(), QUOTE_CHARS + 1);
    assert!(clip(&long).ends_with('…'));
    assert_eq!(quote("say \"hi\"\n"), "\"say \\\"hi\\\"\\n\"");
}

#[test]
fn a_megabyte_variant_gives_a_short_message() {
    let e = error_with(|v| v["flows"][0]["variant"] = json!("x".repeat(1 << 20)));
    assert_eq!(e.path, "flows[0].variant");
    assert!(e.message.contains("unknown TCP variant 'xxx"), "{}", e.message);
    assert!(e.message.contains("…"), "{}", e.message);
    assert!(e.message.contains("newreno"), "the allowed values survive: {}", e.message);
    assert_printable(&e);
}

#[test]
fn long_values_of_every_kind_are_shortened() {
    let big = "9".repeat(100_000);
    let cases: Vec<Edit> = vec![
        Box::new(|v| v["run"] = json!({"duration": format!("{}s", "1".repeat(100_000))})),
        Box::new(|v| v["run"] = json!({"duration": format!("1{}", "s".repeat(100_000))})),
        Box::new(|v| v["run"] = json!({"tie_break": "z".repeat(100_000)})),
        Box::new(|v| v["run"] = json!({"stop_when_done": "y".repeat(100_000)})),
        Box::new(move |v| v["run"] = json!({ big.clone(): 1 })),
        Box::new(|v| v["topology"]["links"][0]["a"] = json!("n".repeat(100_000))),
        Box::new(|v| v["flows"][0]["from"] = json!("n".repeat(100_000))),
        Box::new(|v| v["flows"][0]["variant"] = json!(format!("reno+{}", "q".repeat(100_000)))),
        Box::new(|v| v["flows"][0]["variant"] = json!(format!("{}+sack", "q".repeat(100_000)))),
        Box::new(|v| v["topology"]["nodes"][0]["name"] = json!("n".repeat(100_000))),
        Box::new(|v| v["tcp"] = json!({"mss": "1".repeat(100_000)})),
    ];
    for edit in cases {
        let e = error_with(edit);
        assert_printable(&e);
    }
}

#[test]
fn newlines_and_escapes_in_values_do_not_split_the_message() {
    for bad in ["new\nreno", "reno\r\n", "\u{1b}[2J", "a\0b", "\u{202e}oner"] {
        let e = error_with(|v| v["flows"][0]["variant"] = json!(bad));
        assert_printable(&e);
        let e = error_with(|v| v["flows"][0]["to"] = json!(bad));
        assert_printable(&e);
        let e = error_with(|v| v["run"] = json!({ bad: 1 }));
        assert_printable(&e);
        let e = error_with(|v| v["run"] = json!({"duration": bad}));
        assert_printable(&e);
    }
}

#[test]
fn names_with_control_characters_are_refused() {
    let name_paths: Vec<(&str, SetName)> = vec![
        ("flows[0].name", Box::new(|v, n| v["flows"][0]["name"] = n)),
        ("topology.links[0].name", Box::new(|v, n| v["topology"]["links"][0]["name"] = n)),
        ("name", Box::new(|v, n| v["name"] = n)),
        (
            "topology.nodes[0].name",
            Box::new(|v, n| {
                v["topology"]["nodes"][0]["name"] = n.clone();
                v["topology"]["links"][0]["a"] = n.clone();
                v["flows"][0]["from"] = n;
            }),
        ),
    ];
    for (path, set) in &name_paths {
        for bad in ["a\u{1b}[31mb", "x\ny", "nul\0", "tab\t", "\u{202e}rtl"] {
            let e = error_with(|v| set(v, json!(bad)));
            assert_eq!(&e.path, path, "{e}");
            assert!(e.message.contains("control characters"), "{e}");
            assert_printable(&e);
        }
        // Ordinary punctuation and non-ASCII letters are fine.
        let mut v = base();
        set(&mut v, json!("größe-1 (fast)"));
        parse_scenario(&v).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}

#[test]
fn a_medium_name_with_control_characters_is_refused() {
    let text = r#"
[topology]
kind = "custom"
nodes = [{ name = "ap" }, { name = "m1" }]
media = [{ name = "w\u001b[0m", nodes = ["ap", "m1"], rate = "2Mbps" }]
"#;
    let e = parse_scenario_toml(text).unwrap_err();
    assert_eq!(e.path, "topology.media[0].name", "{e}");
    assert!(e.message.contains("control characters"), "{e}");
}

#[test]
fn an_integer_beyond_64_bits_is_called_an_integer_out_of_range() {
    // What Python's json module writes for 2^64 and for -2^63 - 1.
    for text in ["18446744073709551616", "-9223372036854775809", "100000000000000000000000"] {
        let doc = format!(r#"{{"run": {{"seed": {text}}}, "topology": {{"kind": "chain"}}}}"#);
        let v: Value = serde_json::from_str(&doc).unwrap();
        let e = parse_scenario(&v).unwrap_err();
        assert_eq!(e.path, "run.seed");
        assert!(e.message.contains("integer too large for 64 bits"), "{e}");
        assert!(!e.message.contains("expected an integer"), "{e}");
    }
    // A fraction is still a fraction.
    let v: Value = serde_json::from_str(r#"{"run": {"seed": 1.5}, "topology": {"kind": "chain"}}"#).unwrap();
    assert!(parse_scenario(&v).unwrap_err().message.contains("expected an integer, got the number 1.5"));
}

/// A key path is the user's text too: a table header thousands of
/// characters long, whose value is then nested too deeply, once gave a
/// 3,475-character message (found by the scenario_toml fuzz target).
#[test]
fn a_long_key_path_is_shortened_keeping_its_end() {
    let header = format!("{}.end", "k".repeat(5000));
    let text = format!("[{header}]\nx = {}{}\n", "[".repeat(70), "]".repeat(70));
    let e = parse_scenario_toml(&text).expect_err("too deep");
    assert_printable(&e);
    assert!(e.path.ends_with("k.end.x"), "{}", e.path);
    assert!(e.path.contains('…'), "{}", e.path);
    assert!(e.message.contains("nested too deeply"), "{e}");
}

/// A file path in a message: backslashes and control characters escaped,
/// a long one cut in the middle without cutting an escape in two.
#[test]
fn a_file_path_is_escaped_and_a_long_one_keeps_both_ends() {
    use dupack_sim::scenario::parse::quote_path;
    assert_eq!(quote_path("a\\b\n.toml"), "\"a\\\\b\\n.toml\"");
    let long = format!("/{}/\u{1b}{}.toml", "d".repeat(300), "f".repeat(100));
    let q = quote_path(&long);
    assert!(q.starts_with("\"/ddd") && q.ends_with("ffff.toml\"") && q.contains('…'), "{q}");
    assert!(q.contains("\\x1b") && !q.contains('\u{1b}'), "{q}");
    assert!(q.chars().count() < 200, "{q}");
}
