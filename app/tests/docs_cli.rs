//! `vqscope completions` and `vqscope man`: generated from the command
//! line's definition, so they name the real subcommands and flags.

use std::path::PathBuf;

mod common;
use common::vqscope;

fn stdout_of(args: &[&str]) -> String {
    let out = vqscope(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// A fresh, empty folder under target/.
fn scratch(name: &str) -> PathBuf {
    common::scratch("docs-cli", name)
}

/// roff writes `-` as `\-`; the text a reader sees.
fn unroff(page: &str) -> String {
    page.replace("\\-", "-")
}

#[test]
fn bash_completion_names_commands_and_flags() {
    let script = stdout_of(&["completions", "bash"]);
    assert!(script.contains("score"), "no `score` in:\n{script}");
    assert!(script.contains("--feature"), "no `--feature` in:\n{script}");
    assert!(script.contains("--aom_ctc"));
    // fish spells a long flag `-l feature`.
    for (shell, flag) in [
        ("zsh", "--feature"),
        ("fish", "-l feature"),
        ("elvish", "--feature"),
        ("powershell", "--feature"),
    ] {
        let script = stdout_of(&["completions", shell]);
        assert!(script.contains(flag), "{shell}: no `{flag}`");
    }
    let bad = vqscope(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn man_pages_are_written_once() {
    let dir = scratch("pages");
    let d = dir.to_str().unwrap();
    let out = vqscope(&["man", "-o", d]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let score = std::fs::read_to_string(dir.join("vqscope-score.1")).unwrap();
    assert!(score.starts_with(".ie") || score.contains(".TH"), "not roff:\n{score}");
    assert!(unroff(&score).contains("--aom_ctc"), "no --aom_ctc in:\n{score}");
    assert!(unroff(&score).contains("vqscope-score"));
    let main = std::fs::read_to_string(dir.join("vqscope.1")).unwrap();
    assert!(main.contains("score"));
    for page in ["vqscope-info.1", "vqscope-completions.1", "vqscope-man.1"] {
        assert!(dir.join(page).is_file(), "{page} missing");
    }

    // A second run refuses to overwrite, and changes nothing.
    std::fs::write(dir.join("vqscope-info.1"), "mine").unwrap();
    let again = vqscope(&["man", "-o", d]);
    assert_eq!(again.status.code(), Some(1));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("--force") && err.lines().count() == 1, "{err}");
    assert_eq!(std::fs::read_to_string(dir.join("vqscope-info.1")).unwrap(), "mine");
    let forced = vqscope(&["man", "-o", d, "--force"]);
    assert!(forced.status.success());
    assert_ne!(std::fs::read_to_string(dir.join("vqscope-info.1")).unwrap(), "mine");
}

#[test]
fn man_page_to_stdout() {
    let score = stdout_of(&["man", "-o", "-", "score"]);
    assert!(unroff(&score).contains("--aom_ctc"));
    let main = stdout_of(&["man", "-o", "-"]);
    assert!(!unroff(&main).contains("--aom_ctc"));
    let bad = vqscope(&["man", "-o", "-", "nosuch"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("score"));
    let missing = vqscope(&["man", "-o", "/nonexistent/folder"]);
    assert_eq!(missing.status.code(), Some(1));
}
