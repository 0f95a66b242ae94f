//! Golden-image comparison. A test renders an image and calls
//! [`check_golden`]: it compares with `screenshots/<name>.png`; on a mismatch
//! it writes the actual image and a diff image under
//! `target/screenshot-failures/` and fails. With `VQSCOPE_BLESS=1` it writes
//! the golden instead (re-blessing on purpose).

use std::path::PathBuf;

use vqscope_renderer::capture::{load_png, save_png};

use crate::clips::workspace_root;

/// Largest per-channel difference tolerated (rounding in the driver's
/// maths may move a value by one step).
const CHANNEL_TOLERANCE: u8 = 2;

fn golden_path(name: &str) -> PathBuf {
    workspace_root().join("screenshots").join(format!("{name}.png"))
}

/// Compares `rgba` with the golden `name`, or blesses it.
pub fn check_golden(name: &str, width: u32, height: u32, rgba: &[u8]) {
    let golden = golden_path(name);
    if std::env::var("VQSCOPE_BLESS").is_ok_and(|v| v == "1") {
        save_png(&golden, width, height, rgba).expect("write golden");
        eprintln!("blessed {}", golden.display());
        return;
    }
    let (gw, gh, expected) = load_png(&golden).unwrap_or_else(|e| {
        panic!("golden {name} unreadable ({e}); render it with VQSCOPE_BLESS=1 and look at it")
    });
    let failures = workspace_root().join("target/screenshot-failures");
    if (gw, gh) != (width, height) {
        std::fs::create_dir_all(&failures).unwrap();
        save_png(&failures.join(format!("{name}.actual.png")), width, height, rgba).unwrap();
        panic!("{name}: rendered {width}x{height}, golden is {gw}x{gh}");
    }
    let mut diff = vec![0u8; rgba.len()];
    let mut bad = 0usize;
    let mut worst = 0u8;
    for (i, (a, e)) in rgba.chunks_exact(4).zip(expected.chunks_exact(4)).enumerate() {
        let d = a.iter().zip(e).map(|(x, y)| x.abs_diff(*y)).max().unwrap();
        worst = worst.max(d);
        let px = &mut diff[4 * i..4 * i + 4];
        if d > CHANNEL_TOLERANCE {
            bad += 1;
            px.copy_from_slice(&[255, 0, 255, 255]);
        } else {
            // Faded copy of the expected image, so the differences stand out.
            px.copy_from_slice(&[e[0] / 4, e[1] / 4, e[2] / 4, 255]);
        }
    }
    if bad > 0 {
        std::fs::create_dir_all(&failures).unwrap();
        let actual = failures.join(format!("{name}.actual.png"));
        let diff_path = failures.join(format!("{name}.diff.png"));
        save_png(&actual, width, height, rgba).unwrap();
        save_png(&diff_path, width, height, &diff).unwrap();
        panic!(
            "{name}: {bad} pixels differ by more than {CHANNEL_TOLERANCE} (worst {worst}); see {} and {}",
            actual.display(),
            diff_path.display()
        );
    }
}
