//! Trace files are read only if they are regular files under the size
//! limit: `/dev/zero` is not read until memory runs out, a FIFO without a
//! writer does not block the parser, and the refusal is one line naming the
//! file.

use dupack_sim::net::trace::{read_trace, read_trace_limited, DEFAULT_MAX_TRACE_BYTES};
use dupack_sim::parse_scenario_toml;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

/// Run `f` on a thread and fail (instead of hanging) if it takes more than 20 s.
fn within_20s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20)).expect("reading the file did not finish within 20 s")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dupack-special-files-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn chain_with_trace(file: &str) -> String {
    format!(
        r#"
[topology]
kind = "chain"
[[topology.hops]]
rate = "10Mbps"
delay = "10ms"
fwd_trace = {{ file = {file:?} }}
"#
    )
}

#[test]
fn dev_zero_is_refused_without_reading_it() {
    let m = within_20s(|| read_trace("/dev/zero")).unwrap_err();
    assert!(m.contains("\"/dev/zero\" is a character device"), "{m}");
    assert!(m.contains("regular file"), "{m}");
    let m = within_20s(|| read_trace("/dev/urandom")).unwrap_err();
    assert!(m.contains("character device"), "{m}");
}

#[test]
fn dev_zero_in_a_scenario_is_a_scenario_error_at_the_file_key() {
    let e = within_20s(|| parse_scenario_toml(&chain_with_trace("/dev/zero"))).unwrap_err();
    assert_eq!(e.path, "topology.hops[0].fwd_trace.file");
    assert!(e.message.contains("character device"), "{}", e.message);
}

#[cfg(unix)]
#[test]
fn a_fifo_without_a_writer_is_refused_without_opening_it() {
    let d = scratch("fifo");
    let fifo = d.join("pipe.trace");
    let ok = std::process::Command::new("mkfifo").arg(&fifo).status().map(|s| s.success()).unwrap_or(false);
    if !ok {
        eprintln!("mkfifo is not available; skipped");
        return;
    }
    let path = fifo.to_string_lossy().into_owned();
    let m = within_20s(move || read_trace(&path)).unwrap_err();
    assert!(m.contains("is a named pipe (FIFO)"), "{m}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_directory_is_refused() {
    let d = scratch("dir");
    let m = read_trace(&d.to_string_lossy()).unwrap_err();
    assert!(m.contains("is a directory"), "{m}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_file_over_the_limit_is_refused_and_one_at_the_limit_is_read() {
    let d = scratch("size");
    let f = d.join("t.trace");
    std::fs::write(&f, "1\n2\n3\n").unwrap(); // 6 bytes
    let p = f.to_string_lossy().into_owned();
    assert_eq!(read_trace_limited(&p, 6), Ok(vec![1, 2, 3]));
    let m = read_trace_limited(&p, 5).unwrap_err();
    assert!(m.contains("is too large (6 bytes)"), "{m}");
    assert!(m.contains("at most 5 bytes"), "{m}");
    assert!(m.contains("DUPACK_MAX_TRACE_BYTES"), "{m}");
    assert_eq!(DEFAULT_MAX_TRACE_BYTES, 256 << 20);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn the_file_name_is_quoted_on_one_line_and_shortened() {
    let long = format!("/nonexistent/{}/name\n\u{1b}[31m.trace", "x".repeat(500));
    let m = read_trace(&long).unwrap_err();
    assert!(!m.contains('\n') && !m.contains('\u{1b}'), "{m:?}");
    assert!(m.len() < 300, "{m}");
    assert!(m.contains("\"/nonexistent/xxx"), "the start is kept: {m}");
    assert!(m.contains('…'), "{m}");
    assert!(m.contains("/name\\n\\x1b[31m.trace\""), "the file name is kept: {m}");
    // A path of ordinary length is quoted whole.
    let path = format!("/nonexistent/{}/missing.trace", "d".repeat(100));
    assert!(read_trace(&path).unwrap_err().contains(&format!("{path:?}")));
}
