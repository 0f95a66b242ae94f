//! What the tests that make clips with ffmpeg and run the `vqscope` binary
//! share: a scratch folder per test, ffmpeg, and vqscope with the
//! validation layer on.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// An empty folder for one test of one test binary (`prefix`) and run.
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
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

/// Runs the `vqscope` binary with `args`, the validation layer on and no
/// stdin.
pub fn vqscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vqscope"))
        .env("VQSCOPE_VALIDATION", "1")
        .stdin(Stdio::null())
        .args(args)
        .output()
        .expect("run vqscope")
}
