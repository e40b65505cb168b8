//! Stamps the git commit the extension is built from into `_core.__commit__`
//! (`unknown` outside a git checkout, `+dirty` with uncommitted changes to
//! tracked files), so that every result file can say which code made it,
//! and the profile-guided build's profile into `_core.__pgo__`.
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{c}+dirty")
            } else {
                c
            }
        }
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=DUPACK_COMMIT={commit}");
    // A new commit or a change to what is staged rebuilds the stamp.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        for f in ["HEAD", "index"] {
            println!("cargo:rerun-if-changed={dir}/{f}");
        }
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{r}");
        }
    }
    // The profile the build is guided by, if any (set with the compiler's
    // flags by packaging/pgo.py), for `_core.__pgo__`.
    println!("cargo:rustc-env=DUPACK_PGO_PROFILE={}", std::env::var("DUPACK_PGO_PROFILE").unwrap_or_default());
    println!("cargo:rerun-if-env-changed=DUPACK_PGO_PROFILE");
    println!("cargo:rerun-if-changed=build.rs");
}
