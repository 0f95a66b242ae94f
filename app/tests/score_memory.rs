//! `vqscope score` keeps memory flat over a long clip: no per-frame
//! history, the report's frames streamed through a scratch file. Two runs
//! of the same small clip fed through pipes, one 3,000 frames longer than
//! the other; their peak resident sizes (VmHWM, read from /proc while the
//! child is still alive) may differ by less than `MAX_BYTES_PER_FRAME`.
//! Before the report was streamed, JSON runs grew by about 2.2 KB a frame.

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;

const SIDE: usize = 64;

/// Writes `frames` frames of a 64x64 4:2:0 y4m (four distinct pictures,
/// repeated; `seed` tells reference from distorted) into `path` (a FIFO).
fn feed(path: PathBuf, frames: usize, seed: u8) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let pictures: Vec<Vec<u8>> = (0..4u8)
            .map(|k| {
                let mut p = b"FRAME\n".to_vec();
                for y in 0..SIDE {
                    for x in 0..SIDE {
                        let v =
                            x * 3 + y * 5 + usize::from(k) * 7 + usize::from(seed) * ((x ^ y) & 7);
                        p.push((v & 255) as u8);
                    }
                }
                p.extend(std::iter::repeat_n(128u8, SIDE * SIDE / 2));
                p
            })
            .collect();
        let Ok(file) = std::fs::OpenOptions::new().write(true).open(&path) else { return };
        let mut out = BufWriter::new(file);
        let _ = writeln!(out, "YUV4MPEG2 W{SIDE} H{SIDE} F25:1 C420");
        for i in 0..frames {
            if out.write_all(&pictures[i % 4]).is_err() {
                return; // the reader went away: the test reports why
            }
        }
    })
}

fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Scores `frames` frames from two FIFOs with the JSON report on stdout;
/// returns the child's peak resident size in kB, read while it is blocked
/// writing the report into a pipe this test is not reading yet (so after
/// every frame was scored and the report's writing began).
fn peak_kb(dir: &Path, frames: usize) -> u64 {
    let (r, d) = (dir.join(format!("ref-{frames}")), dir.join(format!("dis-{frames}")));
    for fifo in [&r, &d] {
        let _ = std::fs::remove_file(fifo);
        let made = Command::new("mkfifo").arg(fifo).status().expect("run mkfifo");
        assert!(made.success(), "mkfifo {}", fifo.display());
    }
    // Not `common::command`: the validation layer's own allocations would
    // count in the peak.
    let mut child = Command::new(env!("CARGO_BIN_EXE_vqscope"))
        .args(["score", "-q", "--json", "-o", "-", "-r"])
        .arg(&r)
        .arg("-d")
        .arg(&d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run vqscope");
    let feeders = [feed(r.clone(), frames, 0), feed(d.clone(), frames, 1)];
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut stdout = child.stdout.take().unwrap();
    // The first byte comes once every frame is scored; then the report
    // fills the pipe (it is far larger than 64 KiB) and the child waits.
    let mut first = [0u8; 1];
    let got = stdout.read(&mut first).unwrap_or(0);
    std::thread::sleep(Duration::from_millis(500));
    let peak = vm_hwm_kb(child.id());
    let mut rest = Vec::new();
    let _ = stdout.read_to_end(&mut rest);
    let status = child.wait().unwrap();
    let errors = errors.join().unwrap();
    // A feeder whose FIFO was never opened stays blocked: not joined then.
    assert!(status.success() && got == 1, "vqscope failed on {frames} frames: {errors}");
    for f in feeders {
        let _ = f.join();
    }
    let report = [&first[..], &rest].concat();
    let frames_written = report.windows(10).filter(|w| w == b"\"frameNum\"").count();
    assert_eq!(frames_written, frames, "{errors}");
    peak.expect("VmHWM of the running child")
}

/// The bound is the streamed report's regression guard, not yet the issue's
/// goal (20 MB over 100,000 frames, 200 bytes a frame): on lavapipe about
/// 290 bytes a frame still grow outside the report code, not found yet.
const MAX_BYTES_PER_FRAME: f64 = 1000.0;

#[test]
fn memory_stays_flat_over_thousands_of_frames() {
    let dir = common::out_dir("score-memory");
    let (short, long) = (300, 3300);
    let a = peak_kb(&dir, short);
    let b = peak_kb(&dir, long);
    let per_frame = (b.saturating_sub(a) * 1024) as f64 / (long - short) as f64;
    eprintln!("peak RSS {a} kB at {short} frames, {b} kB at {long}: {per_frame:.1} bytes a frame");
    assert!(
        per_frame < MAX_BYTES_PER_FRAME,
        "peak RSS grew {per_frame:.0} bytes a frame ({a} kB at {short} frames, {b} kB at {long})"
    );
}
