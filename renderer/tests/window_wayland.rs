//! A real window on a private, headless Weston compositor: with only
//! `WAYLAND_DISPLAY` set (no `DISPLAY`), the window must open as a Wayland
//! window, present frames through a `VK_KHR_wayland_surface` swapchain,
//! follow a resize the app asks for (which on Wayland arrives without a
//! Resized event and never makes the swapchain out of date), and draw no
//! validation message. The pixels are not checked: Weston's headless
//! screenshooter waits for a repaint that never comes; `window_xvfb.rs`
//! checks them on X11 through the same presenter.
//!
//! Needs `weston` (Debian: weston, which runs headless on the CPU with its
//! pixman renderer); without it the test skips, except under CI, where it
//! fails.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use vqscope_renderer::present::{PresentMode, WindowOptions, run_window};
use winit::raw_window_handle::{HasWindowHandle, RawWindowHandle};

mod common;
use common::{clear, fail, is_child, run_child};

// The tool check is shared with the X11 window tests.
#[path = "../../tests/src/xvfb.rs"]
#[allow(dead_code)]
mod xvfb;

const FIRST_SIZE: (u32, u32) = (320, 240);
const SECOND_SIZE: (u32, u32) = (200, 150);

// ---------------------------------------------------------------- parent side

/// A private headless Weston, killed (and its runtime directory removed)
/// when dropped.
struct Weston {
    child: Child,
    /// `XDG_RUNTIME_DIR` for its clients; the socket is in it.
    runtime_dir: PathBuf,
    /// `WAYLAND_DISPLAY` for its clients.
    socket: String,
}

impl Weston {
    fn start() -> Weston {
        use std::os::unix::fs::PermissionsExt;
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let n = STARTED.fetch_add(1, Ordering::Relaxed);
        let runtime_dir =
            std::env::temp_dir().join(format!("vqscope-weston-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&runtime_dir);
        std::fs::create_dir(&runtime_dir).expect("create the runtime directory");
        // Wayland insists on a private runtime directory.
        std::fs::set_permissions(&runtime_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let socket = "wayland-vqscope".to_owned();
        let mut child = Command::new("weston")
            .args(["--backend=headless-backend.so", "--no-config", "--idle-time=0"])
            .args(["--width=640", "--height=480", &format!("--socket={socket}")])
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start weston");
        // Clients may connect once the socket exists (the compositor
        // answers them when its loop runs).
        let start = Instant::now();
        while !runtime_dir.join(&socket).exists() {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("weston exited at start ({status})");
            }
            assert!(start.elapsed() < Duration::from_secs(20), "weston made no socket");
            std::thread::sleep(Duration::from_millis(20));
        }
        Weston { child, runtime_dir, socket }
    }
}

impl Drop for Weston {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.runtime_dir);
    }
}

#[test]
fn window_presents_and_resizes_on_wayland() {
    if !xvfb::tools_present(&["weston"], "weston") {
        return;
    }
    let weston = Weston::start();
    let runtime_dir = weston.runtime_dir.to_string_lossy().into_owned();
    let (ok, output) = run_child(
        "child_wayland",
        &[("WAYLAND_DISPLAY", &weston.socket), ("XDG_RUNTIME_DIR", &runtime_dir)],
        &["DISPLAY"],
    );
    assert!(ok, "the windowed child failed:\n{output}");
    assert!(output.contains("wayland checked"), "child did not finish:\n{output}");
}

// ----------------------------------------------------------------- child side

#[test]
#[ignore = "run by window_presents_and_resizes_on_wayland in a child process"]
fn child_wayland() {
    if !is_child() {
        return;
    }
    let mut options = WindowOptions::new("vqscope wayland test", FIRST_SIZE);
    options.context.validation = true;
    options.present.mode = PresentMode::Vsync;
    let started = Instant::now();
    let mut frames_at_second_size = 0;
    let result = run_window(options, |frame, rec, image| {
        if started.elapsed() > Duration::from_secs(60) || frame.index() > 1000 {
            return Err(fail(format!(
                "gave up at frame {} (size now {:?})",
                frame.index(),
                frame.size()
            )));
        }
        if frame.size() != (image.width(), image.height()) {
            return Err(fail("frame size and image size differ".into()));
        }
        if frame.index() == 0 {
            let handle = frame.window().window_handle().map_err(|e| fail(e.to_string()))?;
            if !matches!(handle.as_raw(), RawWindowHandle::Wayland(_)) {
                return Err(fail(format!("not a Wayland window: {:?}", handle.as_raw())));
            }
            if frame.size() != FIRST_SIZE {
                return Err(fail(format!("opened at {:?}, not {FIRST_SIZE:?}", frame.size())));
            }
        }
        if frame.index() == 5 {
            let _ = frame
                .window()
                .request_inner_size(winit::dpi::PhysicalSize::new(SECOND_SIZE.0, SECOND_SIZE.1));
        }
        if frame.size() == SECOND_SIZE {
            frames_at_second_size += 1;
            if frames_at_second_size == 5 {
                println!("resized by frame {}", frame.index());
                frame.exit();
            }
        }
        clear(frame, rec, image, [255, 64, 0]);
        Ok(())
    });
    if let Err(e) = result {
        panic!("run_window failed: {e}");
    }
    vqscope_gpu::testing::assert_no_validation_messages();
    println!("wayland checked");
}
