//! The real dashboard window, end to end, on a private Xvfb display: start
//! `vqscope -r REF -d DIS` on the rocket pair, press keys through XTEST
//! (xdotool), grab the screen (xwd) and check that it shows what the
//! headless `screenshot --dashboard` renders for the same state: End must
//! bring frame 11 (the last), then M three times the SSIM heat map computed
//! on the window's own GPU path. `S` must write `vqscope-view.png` into the
//! folder the window was started from, without touching a file of that
//! name already there, and say so in the header (the window then differs
//! from the headless render in the header only, and is back to it once a
//! key clears the message). Escape must close it with exit code 0.
//! Paused with its clip scored, the window must sleep: under 20% of a core
//! over three seconds (it used to redraw continuously, a whole core on
//! lavapipe).
//!
//! Keys are sent without `--window`: xdotool then uses XTEST, which X
//! delivers like real typing to the focused window; `--window` sends
//! synthetic events (XSendEvent) that winit ignores. There is no window
//! manager on Xvfb, so the window is focused with `windowfocus`, not
//! `windowactivate` (which needs a manager's `_NET_ACTIVE_WINDOW`).
//!
//! Needs Xvfb, xdotool, xwd and ImageMagick's convert: without them the
//! test skips with a message, except under CI (env `CI` set), where it fails.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use vqscope_renderer::capture::load_png;
use vqscope_tests::clips::{distorted_y4m, reference_y4m};
use vqscope_tests::proc_stat::cpu_seconds;
use vqscope_tests::xvfb::{Xvfb, tools_present};

const ROCKET: &str = "rocket_576x324_420p8_x264crf35";
const SIZE: (u32, u32) = (1280, 720);
/// How long the window may take to show the expected picture (lavapipe
/// on two cores renders a 720p frame in about a second, and scoring runs
/// beside it).
const SETTLE: Duration = Duration::from_secs(90);
/// How long the paused window is watched for CPU use.
const IDLE: Duration = Duration::from_secs(3);

mod common;

fn out_dir() -> PathBuf {
    common::out_dir("dashboard-window")
}

/// The vqscope window process, killed if the test ends without it exiting.
struct App(Child);

impl Drop for App {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn run(command: &mut Command) -> Output {
    let output = command.output().unwrap_or_else(|e| panic!("running {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn xdotool(display: &str, args: &[&str]) -> Output {
    run(Command::new("xdotool").env("DISPLAY", display).args(args))
}

/// The whole screen as RGBA.
fn grab(display: &str, path: &Path) -> (u32, u32, Vec<u8>) {
    let shell = format!("xwd -root -display {display} | convert xwd:- png:{}", path.display());
    run(Command::new("sh").args(["-c", &shell]));
    load_png(path).expect("read the screen grab")
}

/// What `screenshot --dashboard` renders for `extra` flags on rocket.
fn headless(name: &str, extra: &[&str]) -> Vec<u8> {
    let out = out_dir().join(format!("{name}.headless.png"));
    let (r, d) = (reference_y4m(ROCKET), distorted_y4m(ROCKET));
    run(common::command()
        .args(["screenshot", "--dashboard", "--size", "1280x720", "--force", "-r"])
        .args([&r, Path::new("-d"), &d, Path::new("-o"), &out])
        .args(extra));
    let (w, h, rgba) = load_png(&out).unwrap();
    assert_eq!((w, h), SIZE);
    rgba
}

/// Pixels differing by more than 2 in a channel.
fn differing(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .filter(|(p, q)| p.iter().zip(q.iter()).take(3).any(|(x, y)| x.abs_diff(*y) > 2))
        .count()
}

/// Grabs the screen until it shows `expected` (the window draws
/// continuously and the plot fills in as scoring runs, so the first grabs
/// may be early), or fails after [`SETTLE`] with the last grab kept.
fn wait_for(app: &mut App, display: &str, name: &str, expected: &[u8]) {
    let path = out_dir().join(format!("{name}.screen.png"));
    let start = Instant::now();
    let mut last = usize::MAX;
    while start.elapsed() < SETTLE {
        if let Ok(Some(status)) = app.0.try_wait() {
            panic!("vqscope exited early ({status})");
        }
        let (w, h, screen) = grab(display, &path);
        assert_eq!((w, h), SIZE, "the Xvfb screen is the window's size");
        last = differing(&screen, expected);
        if last == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    panic!(
        "{name}: after {SETTLE:?} the window still differs from the headless render in {last} \
         pixels; see {}",
        path.display()
    );
}

/// The window, paused with nothing left to score or decode, must use less
/// than 20% of a core (a margin a busy 2-core CI machine keeps).
fn assert_idle(app: &App) {
    let pid = app.0.id().to_string();
    let cpu = || cpu_seconds(&pid).expect("the CPU time of vqscope from /proc");
    let (start, before) = (Instant::now(), cpu());
    std::thread::sleep(IDLE);
    let (wall, used) = (start.elapsed().as_secs_f64(), cpu() - before);
    println!("paused dashboard: {used:.2} s of CPU in {wall:.2} s");
    assert!(used < 0.2 * wall, "the paused dashboard used {used:.2} s of CPU in {wall:.2} s");
}

#[test]
fn the_window_seeks_switches_to_ssim_and_quits_on_keys() {
    if !tools_present(&["Xvfb", "xdotool", "xwd", "convert"], "xvfb xdotool x11-apps imagemagick") {
        return;
    }
    // Expected pictures first: rendering them while the window runs would
    // slow both down on a two-core machine.
    let last = headless("end", &["--frame", "11"]);
    let ssim = headless("ssim", &["--frame", "11", "--mode", "ssim"]);
    let first = headless("start", &["--frame", "0"]);
    assert!(differing(&first, &last) > 1000, "frame 0 and frame 11 must look different");

    // The screen is exactly the window's size: with no window manager the
    // window sits at (0, 0), so the screen grab is the window.
    let xvfb = Xvfb::start(SIZE.0, SIZE.1);
    let (r, d) = (reference_y4m(ROCKET), distorted_y4m(ROCKET));
    for stale in ["vqscope-view-1.png", "vqscope-view-2.png"] {
        let _ = std::fs::remove_file(out_dir().join(stale));
    }
    std::fs::write(out_dir().join("vqscope-view.png"), b"mine").unwrap();
    let log = std::fs::File::create(out_dir().join("vqscope.log")).unwrap();
    let mut app = App(common::command()
        .current_dir(out_dir())
        .env("DISPLAY", &xvfb.display)
        .env_remove("WAYLAND_DISPLAY")
        .args([Path::new("-r"), &r, Path::new("-d"), &d])
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("start vqscope"));
    let display = xvfb.display.as_str();
    xdotool(display, &["search", "--sync", "--name", "vqscope", "windowfocus", "--sync"]);
    // The pointer starts mid-screen, over the video, where the window would
    // show a hover readout the headless renders lack: park it on a blank
    // corner of the side panel.
    xdotool(display, &["mousemove", "1270", "710"]);
    wait_for(&mut app, display, "start", &first);
    // The picture matches only once the plot is complete: scoring is done.
    assert_idle(&app);

    xdotool(display, &["key", "End"]);
    wait_for(&mut app, display, "end", &last);

    xdotool(display, &["key", "m", "m", "m"]);
    wait_for(&mut app, display, "ssim", &ssim);

    xdotool(display, &["key", "s"]);
    let saved = out_dir().join("vqscope-view-1.png");
    let path = out_dir().join("saved.screen.png");
    let start = Instant::now();
    loop {
        let (_, _, screen) = grab(display, &path);
        // Below the header's 48 rows the screen is the SSIM view as before.
        let header = 4 * SIZE.0 as usize * 48;
        let (above, below) = (differing(&screen[..header], &ssim[..header]), &screen[header..]);
        if saved.exists() && above > 0 {
            assert_eq!(differing(below, &ssim[header..]), 0, "only the header changes");
            break;
        }
        assert!(start.elapsed() < SETTLE, "no saved PNG and message; see {}", path.display());
        std::thread::sleep(Duration::from_millis(300));
    }
    assert_eq!(std::fs::read(out_dir().join("vqscope-view.png")).unwrap(), b"mine");
    let (w, h, _) = load_png(&saved).expect("the saved view");
    assert_eq!((w, h), SIZE);
    // Any key clears the message: Home then End comes back to the same view.
    xdotool(display, &["key", "Home", "End"]);
    wait_for(&mut app, display, "ssim-again", &ssim);

    xdotool(display, &["key", "Escape"]);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = app.0.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "Escape did not close the window");
        std::thread::sleep(Duration::from_millis(100));
    };
    let log = std::fs::read_to_string(out_dir().join("vqscope.log")).unwrap_or_default();
    assert_eq!(status.code(), Some(0), "vqscope exited with {status}:\n{log}");
    assert!(!log.contains("[vulkan"), "validation messages from the window:\n{log}");
    let written = std::path::absolute(&saved).unwrap();
    assert!(log.contains(&format!("wrote {}", written.display())), "{log}");
}
