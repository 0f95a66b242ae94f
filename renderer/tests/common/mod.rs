//! What the windowed tests share: each windowed scenario runs in a child
//! process (this test binary again, one `#[ignore]`d test selected by
//! name), because winit allows one event loop per process and reads the
//! display variables once; and the child side's drawing helpers.

use std::process::Command;

use vqscope_gpu::{Image, Recorder, vk};
use vqscope_renderer::present::{Frame, PresentError};

/// Set in the child processes; the `#[ignore]`d tests do nothing without it.
const CHILD_ENV: &str = "VQSCOPE_WINDOW_TEST_CHILD";

/// Runs the ignored test `name` of this binary in a child process with
/// `env` set and `remove` unset; returns its exit status success and its
/// combined output.
pub fn run_child(name: &str, env: &[(&str, &str)], remove: &[&str]) -> (bool, String) {
    let exe = std::env::current_exe().expect("test binary path");
    let mut command = Command::new(exe);
    command
        .args(["--exact", name, "--ignored", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, "1");
    for (k, v) in env {
        command.env(k, v);
    }
    for k in remove {
        command.env_remove(k);
    }
    let output = command.output().expect("cannot run the child test");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // Passed on only so a failure shows what the child saw.
    println!("--- child {name} ---\n{text}--- end of child {name} ---");
    (output.status.success(), text)
}

/// Whether this process is a child started by [`run_child`].
pub fn is_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

pub fn fail(message: String) -> PresentError {
    PresentError::Draw(message.into())
}

/// Clears the whole offscreen image (GENERAL layout) to `rgb`, and asks
/// for the next frame (the scenarios count frames, input or not).
pub fn clear(frame: &mut Frame<'_>, rec: &mut Recorder<'_>, image: &Image, rgb: [u8; 3]) {
    let [r, g, b] = rgb.map(|c| f32::from(c) / 255.0);
    rec.clear_image(image, vk::ImageLayout::GENERAL, [r, g, b, 1.0]);
    frame.request_redraw();
}
