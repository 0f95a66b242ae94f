//! A real window on a private Xvfb display: frames drawn into the offscreen
//! image must reach the screen with the right colours (RGBA → BGRA swizzle),
//! a resize must rebuild the swapchain at the new size, a failing draw
//! closure must come back as an error, and none of it may draw a single
//! validation message. HDR10 asked for on Xvfb (which has no HDR colour
//! space) must fall back to SDR, said once, not again on the resize.
//!
//! winit allows one event loop per process and reads `DISPLAY` once, so each
//! windowed scenario runs in a child process (this test binary again, one
//! `#[ignore]`d test selected by name) with `DISPLAY` pointing at the Xvfb
//! started here. Needs `Xvfb` (xvfb), `xwd` (x11-apps) and `convert`
//! (imagemagick); without them the tests skip, except under CI, where they
//! fail.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use vqscope_renderer::Output;
use vqscope_renderer::present::{
    HdrOutput, InputEvent, PresentError, PresentMode, WindowOptions, run_window,
};

const FIRST_SIZE: (u32, u32) = (320, 240);
const SECOND_SIZE: (u32, u32) = (200, 150);
/// R differs from B, so a missing or doubled RGBA/BGRA swizzle is caught;
/// 64/255 and 128/255 survive UNORM rounding exactly.
const FIRST_COLOUR: [u8; 3] = [255, 64, 0];
const SECOND_COLOUR: [u8; 3] = [0, 128, 255];

// ---------------------------------------------------------------- parent side

mod common;
use common::{clear, fail, is_child, run_child};

// The Xvfb helpers are shared with the app's window test; std only, so
// they come in by path rather than through a dependency cycle.
#[path = "../../tests/src/xvfb.rs"]
mod xvfb;
use xvfb::Xvfb;
#[path = "../../tests/src/proc_stat.rs"]
mod proc_stat;

/// Whether the X tools are here (skip, or fail under CI).
fn tools_present() -> bool {
    xvfb::tools_present(&["Xvfb", "xwd", "convert"], "xvfb x11-apps imagemagick")
}

#[test]
fn window_shows_frames_and_follows_resize() {
    if !tools_present() {
        return;
    }
    let xvfb = Xvfb::start(640, 480);
    let (ok, output) =
        run_child("child_draw_and_resize", &[("DISPLAY", &xvfb.display)], &["WAYLAND_DISPLAY"]);
    assert!(ok, "the windowed child failed:\n{output}");
    // The child must really have run the scenario, not returned early.
    assert!(output.contains("resize checked"), "child did not finish:\n{output}");
}

#[test]
fn failing_draw_is_returned_and_leaves_vulkan_clean() {
    if !tools_present() {
        return;
    }
    let xvfb = Xvfb::start(640, 480);
    let (ok, output) =
        run_child("child_failing_draw", &[("DISPLAY", &xvfb.display)], &["WAYLAND_DISPLAY"]);
    assert!(ok, "the windowed child failed:\n{output}");
    assert!(output.contains("draw error checked"), "child did not finish:\n{output}");
}

#[test]
fn an_idle_window_sleeps() {
    if !tools_present() {
        return;
    }
    let xvfb = Xvfb::start(640, 480);
    let (ok, output) = run_child("child_idle", &[("DISPLAY", &xvfb.display)], &["WAYLAND_DISPLAY"]);
    assert!(ok, "the windowed child failed:\n{output}");
    assert!(output.contains("idle checked"), "child did not finish:\n{output}");
}

#[test]
fn no_display_is_a_clear_error() {
    let (ok, output) = run_child("child_no_display", &[], &["DISPLAY", "WAYLAND_DISPLAY"]);
    assert!(ok, "the child failed:\n{output}");
    assert!(output.contains("no display checked"), "child did not finish:\n{output}");
}

// ----------------------------------------------------------------- child side

fn options(mode: PresentMode) -> WindowOptions {
    let mut options = WindowOptions::new("vqscope window test", FIRST_SIZE);
    options.context.validation = true;
    options.present.mode = mode;
    options
}

/// The X screen as RGB rows: `xwd -root | convert xwd:- png:-`.
fn grab_screen() -> Result<image::RgbImage, String> {
    let mut xwd = Command::new("xwd")
        .args(["-root", "-silent"])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run xwd: {e}"))?;
    let xwd_out = xwd.stdout.take().expect("piped stdout");
    let convert = Command::new("convert")
        .args(["xwd:-", "png:-"])
        .stdin(xwd_out)
        .output()
        .map_err(|e| format!("cannot run convert: {e}"))?;
    let xwd_status = xwd.wait().map_err(|e| format!("xwd: {e}"))?;
    if !xwd_status.success() || !convert.status.success() {
        return Err(format!(
            "screen grab failed: xwd {xwd_status}, convert {}: {}",
            convert.status,
            String::from_utf8_lossy(&convert.stderr)
        ));
    }
    image::load_from_memory_with_format(&convert.stdout, image::ImageFormat::Png)
        .map(|i| i.to_rgb8())
        .map_err(|e| format!("cannot decode the grab: {e}"))
}

/// The bounding box `(x0, y0, width, height)` of the pixels of `rgb` and
/// how many there are.
fn region_of(screen: &image::RgbImage, rgb: [u8; 3]) -> Option<((u32, u32, u32, u32), u64)> {
    let mut count = 0u64;
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for (x, y, p) in screen.enumerate_pixels() {
        if p.0 == rgb {
            count += 1;
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
    }
    (count > 0).then(|| ((x0, y0, x1 - x0 + 1, y1 - y0 + 1), count))
}

/// The window must show exactly `size` pixels of `rgb`, as one rectangle.
fn check_window(rgb: [u8; 3], size: (u32, u32)) -> Result<(), String> {
    let screen = grab_screen()?;
    let Some(((x, y, w, h), count)) = region_of(&screen, rgb) else {
        let centre = screen.get_pixel(screen.width() / 4, screen.height() / 4);
        return Err(format!(
            "no pixel of colour {rgb:?} on screen (a pixel in the window shows {:?})",
            centre.0
        ));
    };
    if (w, h) != size || count != u64::from(size.0) * u64::from(size.1) {
        return Err(format!(
            "expected a {size:?} window of colour {rgb:?}; found {count} such pixels \
             in a {w}x{h} box at ({x}, {y})"
        ));
    }
    Ok(())
}

/// Phase 1 draws `FIRST_COLOUR` at `FIRST_SIZE`, grabs and checks the
/// screen, then asks for `SECOND_SIZE`; phase 2 draws `SECOND_COLOUR` once
/// the offscreen image has the new size, and checks again.
#[test]
#[ignore = "run by window_shows_frames_and_follows_resize in a child process"]
fn child_draw_and_resize() {
    if !is_child() {
        return;
    }
    let started = Instant::now();
    let mut first_checked = false;
    let mut frames_at_second_size = 0;
    let mut saw_resize_event = false;
    let mut frames = 0u64;
    let mut options = options(PresentMode::Vsync);
    options.present.hdr = HdrOutput::On;
    options.present.hdr_content = true;
    let result = run_window(options, |frame, rec, image| {
        frames += 1;
        let (choice, new) = frame.output_choice();
        if frame.output() != Output::Sdr || !choice.refused || new != (frames == 1) {
            return Err(fail(format!(
                "frame {frames}: HDR10 on Xvfb gave {choice:?}, new {new}, output {:?}",
                frame.output()
            )));
        }
        if started.elapsed() > Duration::from_secs(60) || frames > 2000 {
            return Err(fail(format!(
                "gave up after {frames} frames (first checked: {first_checked}, \
                 resize event: {saw_resize_event}, size now {:?})",
                frame.size()
            )));
        }
        saw_resize_event |= frame.events().iter().any(|e| {
            matches!(e, InputEvent::Resized { width, height }
                if (*width, *height) == SECOND_SIZE)
        });
        if !first_checked {
            if frame.size() != FIRST_SIZE {
                return Err(fail(format!(
                    "window opened at {:?}, not {FIRST_SIZE:?}",
                    frame.size()
                )));
            }
            // Every frame so far had this colour, so whichever one the
            // screen shows must be it; a few frames let one get there.
            if frame.index() == 8 {
                check_window(FIRST_COLOUR, FIRST_SIZE).map_err(fail)?;
                println!("first frame checked at frame {}", frame.index());
                first_checked = true;
                let _ = frame.window().request_inner_size(winit::dpi::PhysicalSize::new(
                    SECOND_SIZE.0,
                    SECOND_SIZE.1,
                ));
            }
            clear(frame, rec, image, FIRST_COLOUR);
            return Ok(());
        }
        if frame.size() != SECOND_SIZE {
            clear(frame, rec, image, FIRST_COLOUR);
            return Ok(());
        }
        if frame.size() != (image.width(), image.height()) {
            return Err(fail("frame size and image size differ".into()));
        }
        frames_at_second_size += 1;
        if frames_at_second_size == 8 {
            if !saw_resize_event {
                return Err(fail("the image changed size without a Resized event".into()));
            }
            check_window(SECOND_COLOUR, SECOND_SIZE).map_err(fail)?;
            let screen = grab_screen().map_err(fail)?;
            if region_of(&screen, FIRST_COLOUR).is_some() {
                return Err(fail("pixels of the first size are still on screen".into()));
            }
            println!("resize checked at frame {}", frame.index());
            frame.exit();
        }
        clear(frame, rec, image, SECOND_COLOUR);
        Ok(())
    });
    if let Err(e) = result {
        panic!("run_window failed: {e}");
    }
    vqscope_gpu::testing::assert_no_validation_messages();
}

/// A draw closure that fails must end the loop with its own error, and the
/// presenter's recovery frame must keep Vulkan's books straight.
#[test]
#[ignore = "run by failing_draw_is_returned_and_leaves_vulkan_clean in a child process"]
fn child_failing_draw() {
    if !is_child() {
        return;
    }
    let result = run_window(options(PresentMode::Immediate), |frame, rec, image| {
        if frame.index() == 5 {
            // Something already recorded must be thrown away, not submitted.
            clear(frame, rec, image, SECOND_COLOUR);
            return Err(fail("deliberate failure".into()));
        }
        clear(frame, rec, image, FIRST_COLOUR);
        Ok(())
    });
    match result {
        Err(PresentError::Draw(e)) => assert_eq!(e.to_string(), "deliberate failure"),
        other => panic!("expected the draw closure's error, got {other:?}"),
    }
    vqscope_gpu::testing::assert_no_validation_messages();
    println!("draw error checked");
}

/// How long the idle window must stay quiet.
const IDLE: Duration = Duration::from_secs(3);

/// A window whose frames ask for no successor must draw nothing and burn
/// (almost) no CPU until its timed wake-up (`redraw_after`): less than 20%
/// of a core over [`IDLE`], which a 2-core CI machine keeps even when busy.
/// Frames the window system causes at first (map, expose, focus) restart
/// the quiet period; a loop that keeps drawing never finishes one.
#[test]
#[ignore = "run by an_idle_window_sleeps in a child process"]
fn child_idle() {
    if !is_child() {
        return;
    }
    // Nothing but the timed wake-up ends the quiet period: if it never
    // comes, fail rather than hang the parent.
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(60));
        eprintln!("the timed redraw never came");
        std::process::exit(3);
    });
    let cpu = || proc_stat::cpu_seconds("self").expect("/proc/self/stat");
    let mut quiet_since: Option<(Instant, f64)> = None;
    let mut restarts = 0;
    let result = run_window(options(PresentMode::Vsync), |frame, rec, image| {
        rec.clear_image(image, vqscope_gpu::vk::ImageLayout::GENERAL, [0.2, 0.4, 0.6, 1.0]);
        match quiet_since {
            Some((since, cpu_then)) if since.elapsed() >= IDLE => {
                let (wall, used) = (since.elapsed().as_secs_f64(), cpu() - cpu_then);
                println!("{used:.2} s of CPU in {wall:.2} s idle, after {restarts} restarts");
                if used > 0.2 * wall {
                    return Err(fail(format!(
                        "the idle window used {used:.2} s of CPU in {wall:.2} s"
                    )));
                }
                frame.exit();
            }
            _ => {
                restarts += 1;
                if restarts > 10 {
                    return Err(fail(format!(
                        "the window drew {restarts} frames without being asked (frame {})",
                        frame.index()
                    )));
                }
                quiet_since = Some((Instant::now(), cpu()));
                frame.redraw_after(IDLE);
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("run_window failed: {e}");
    }
    vqscope_gpu::testing::assert_no_validation_messages();
    println!("idle checked");
}

#[test]
#[ignore = "run by no_display_is_a_clear_error in a child process"]
fn child_no_display() {
    if !is_child() {
        return;
    }
    let result = run_window(options(PresentMode::Vsync), |_, _, _| {
        Err(fail("a frame was drawn without a display".into()))
    });
    match result {
        Err(PresentError::NoDisplay(message)) => {
            assert!(message.contains("DISPLAY"), "unhelpful message: {message}")
        }
        other => panic!("expected NoDisplay, got {other:?}"),
    }
    println!("no display checked");
}
