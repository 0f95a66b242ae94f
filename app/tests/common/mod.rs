//! What the tests that run the `vqscope` binary share: the binary with the
//! validation layer on and no stdin, fresh scratch folders, kept output
//! folders, and ffmpeg for the tests that make clips. Every test binary
//! compiles this module and uses the part it needs, hence the `allow`.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// The `vqscope` binary, the validation layer on and no stdin, for a test
/// that sets more than arguments.
pub fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vqscope"));
    c.env("VQSCOPE_VALIDATION", "1").stdin(Stdio::null());
    c
}

/// Runs the `vqscope` binary with `args` ([`command`]) to the end.
pub fn vqscope<S: AsRef<OsStr>>(args: &[S]) -> Output {
    command().args(args).output().expect("run vqscope")
}

/// A fresh, empty folder under cargo's temporary folder, for one test
/// binary (`prefix`), process and call.
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    static CALLS: AtomicU32 = AtomicU32::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{prefix}-{}-{call}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `target/NAME` in the workspace, kept after the run: where tests leave
/// reports and diff images for a person to look at.
pub fn out_dir(name: &str) -> PathBuf {
    let dir = vqscope_tests::clips::workspace_root().join("target").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs ffmpeg quietly with `args`, failing the test if it fails.
pub fn ffmpeg(args: &[&str]) {
    let out = Command::new("ffmpeg")
        .args(["-nostdin", "-hide_banner", "-loglevel", "error", "-y"])
        .args(args)
        .output()
        .expect("ffmpeg is installed (scripts/setup)");
    assert!(out.status.success(), "ffmpeg {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}
