//! The dashboard's state machine driven by synthetic input, no window and
//! no GPU: seeking, stepping, playback and looping, zoom around the cursor,
//! panning, the wipe line, clicks on the plot, the scrubber and the
//! worst-frames list, header messages, and the layout at small window
//! sizes. The app is a binary crate, so its pure modules are compiled in
//! here by path.

#[allow(dead_code)]
#[path = "../src/dashboard/layout.rs"]
mod layout;
#[allow(dead_code)]
#[path = "../src/dashboard/state.rs"]
mod state;

use glam::Vec2;
use layout::{Layout, WORST_ROWS};
use state::{
    Input, Key, MAX_SCALE, MESSAGE_SECONDS, PLOT_INSET, State, ViewMode, ZOOM_PER_LINE,
    picture_rect,
};

/// The rocket clip's geometry in a 1280x720 window.
fn rocket() -> State {
    State::new((1280, 720), (576, 324), 12, 25.0)
}

fn click(s: &mut State, x: f32, y: f32) {
    s.apply(Input::CursorMoved { x, y });
    s.apply(Input::Press);
    s.apply(Input::Release);
}

fn drag(s: &mut State, from: [f32; 2], to: [f32; 2]) {
    s.apply(Input::CursorMoved { x: from[0], y: from[1] });
    s.apply(Input::Press);
    // In steps, as a real mouse reports it.
    for i in 1..=4 {
        let t = i as f32 / 4.0;
        s.apply(Input::CursorMoved {
            x: from[0] + t * (to[0] - from[0]),
            y: from[1] + t * (to[1] - from[1]),
        });
    }
    s.apply(Input::Release);
}

/// The picture point under screen point `p` of `pane`.
fn picture_point(s: &State, pane: vqscope_renderer::Rect, p: [f32; 2]) -> [f32; 2] {
    let r = picture_rect(pane, &s.view, s.picture);
    [(p[0] - r.x0) / s.view.scale, (p[1] - r.y0) / s.view.scale]
}

#[test]
fn steps_and_seeks_clamp_to_the_clip() {
    let mut s = rocket();
    s.apply(Input::Key(Key::Right));
    assert_eq!(s.frame, 1);
    s.apply(Input::Shift(true));
    s.apply(Input::Key(Key::Right));
    assert_eq!(s.frame, 11, "Shift+Right steps ten");
    s.apply(Input::Key(Key::Right));
    assert_eq!(s.frame, 11, "never past the last frame");
    s.apply(Input::Key(Key::Left));
    assert_eq!(s.frame, 1, "Shift+Left steps ten back");
    s.apply(Input::Shift(false));
    s.apply(Input::Key(Key::Left));
    assert_eq!(s.frame, 0);
    s.apply(Input::Key(Key::Left));
    assert_eq!(s.frame, 0, "stepping back from the first frame stays there");
    s.apply(Input::Key(Key::End));
    assert_eq!(s.frame, 11);
    s.apply(Input::Key(Key::Home));
    assert_eq!(s.frame, 0);
    s.seek(1000);
    assert_eq!(s.frame, 11);
    assert_eq!(s.timecode(), "00:00.440", "no hours in a clip shorter than one");
    let mut long = State::new((1280, 720), (576, 324), 100_000, 25.0);
    long.seek(90_011);
    assert_eq!(long.timecode(), "01:00:00.440");
}

#[test]
fn playback_follows_the_frame_rate_and_stops_at_the_end() {
    let mut s = rocket();
    s.apply(Input::Tick(1.0));
    assert_eq!(s.frame, 0, "paused: time passing changes nothing");
    s.apply(Input::Key(Key::Space));
    assert!(s.playing);
    s.apply(Input::Tick(0.1)); // 2.5 frames at 25 fps
    assert_eq!(s.frame, 2);
    s.apply(Input::Tick(0.02)); // the half frame left over completes one more
    assert_eq!(s.frame, 3);
    for _ in 0..20 {
        s.apply(Input::Tick(0.1));
    }
    assert_eq!(s.frame, 11);
    assert!(!s.playing, "playback stops at the last frame");
    s.apply(Input::Key(Key::Space));
    assert!(s.playing);
    assert_eq!(s.frame, 0, "play at the end starts over");
    s.apply(Input::Key(Key::Left));
    assert!(!s.playing, "stepping pauses");
}

#[test]
fn wheel_zooms_around_the_cursor_in_both_panes() {
    let mut s = rocket();
    let fit = s.view.scale;
    assert!(s.view.fit && fit > 0.5 && fit < 1.0, "fitted scale {fit}");
    let pane = s.layout.side_panes[0];
    let cursor = [pane.x0 + pane.width() * 0.3, pane.y0 + pane.height() * 0.6];
    let before = picture_point(&s, pane, cursor);
    s.apply(Input::CursorMoved { x: cursor[0], y: cursor[1] });
    s.apply(Input::Scroll(4.0));
    assert!((s.view.scale - 2.0 * fit).abs() < 1e-4, "four lines double the scale");
    assert!(!s.view.fit);
    let after = picture_point(&s, pane, cursor);
    assert!(
        (before[0] - after[0]).abs() < 0.01 && (before[1] - after[1]).abs() < 0.01,
        "the point under the cursor stays put: {before:?} -> {after:?}"
    );
    // The other pane shows the same region: same offset from its corner.
    let (a, b) = (
        picture_rect(s.layout.side_panes[0], &s.view, s.picture),
        picture_rect(s.layout.side_panes[1], &s.view, s.picture),
    );
    assert!((a.x0 - s.layout.side_panes[0].x0 - (b.x0 - s.layout.side_panes[1].x0)).abs() < 1e-3);
    assert!((a.y0 - b.y0).abs() < 1e-3);
    s.apply(Input::Scroll(100.0));
    assert_eq!(s.view.scale, MAX_SCALE, "zoom stops at 32x");
    s.apply(Input::Scroll(-100.0));
    assert!((s.view.scale - fit).abs() < 1e-4, "zoom out stops at fit");
    s.apply(Input::Key(Key::Char('1')));
    assert_eq!(s.view.scale, 1.0);
    s.apply(Input::Key(Key::Char('f')));
    assert!(s.view.fit && (s.view.scale - fit).abs() < 1e-4);
    assert_eq!(s.view.center, Vec2::new(288.0, 162.0));
}

#[test]
fn dragging_the_video_pans_within_the_picture() {
    let mut s = rocket();
    let pane = s.layout.side_panes[1];
    let mid = [0.5 * (pane.x0 + pane.x1), 0.5 * (pane.y0 + pane.y1)];
    s.apply(Input::CursorMoved { x: mid[0], y: mid[1] });
    s.apply(Input::Scroll(4.0)); // 4x fit: room to pan
    let (scale, center) = (s.view.scale, s.view.center);
    drag(&mut s, mid, [mid[0] + 40.0, mid[1] - 20.0]);
    assert!((s.view.center[0] - (center[0] - 40.0 / scale)).abs() < 1e-3, "{:?}", s.view);
    assert!((s.view.center[1] - (center[1] + 20.0 / scale)).abs() < 1e-3, "{:?}", s.view);
    // A huge drag stops at the picture's edge: the pane stays covered.
    drag(&mut s, mid, [mid[0] + 5000.0, mid[1] + 5000.0]);
    let r = picture_rect(pane, &s.view, s.picture);
    assert!((r.x0 - pane.x0).abs() < 1e-3 && (r.y0 - pane.y0).abs() < 1e-3, "{r:?} vs {pane:?}");
}

#[test]
fn the_wipe_line_drags_and_elsewhere_the_picture_pans() {
    let mut s = rocket();
    s.apply(Input::Key(Key::Char('m')));
    assert_eq!(s.mode, ViewMode::Wipe);
    let pane = s.layout.single_pane;
    let y = 0.5 * (pane.y0 + pane.y1);
    let x = s.wipe_x();
    drag(&mut s, [x + 3.0, y], [pane.x0 + 0.25 * pane.width(), y]);
    assert!((s.wipe - 0.25).abs() < 1e-3, "wipe at {}", s.wipe);
    let x = s.wipe_x();
    drag(&mut s, [x, y], [pane.x0 - 500.0, y]);
    assert_eq!(s.wipe, 0.0, "the line stays inside the pane");
    // Far from the line, a drag pans (nothing to pan when fitted) and the
    // split does not move.
    drag(&mut s, [pane.x0 + 0.7 * pane.width(), y], [pane.x0 + 0.9 * pane.width(), y]);
    assert_eq!(s.wipe, 0.0);
    s.apply(Input::Key(Key::Char('m')));
    assert_eq!(s.mode, ViewMode::Diff);
    s.apply(Input::Key(Key::Char('m')));
    assert_eq!(s.mode, ViewMode::Ssim);
    s.apply(Input::Key(Key::Char('m')));
    assert_eq!(s.mode, ViewMode::DeltaE);
    assert_eq!(ViewMode::parse("ciede"), Some(ViewMode::DeltaE));
    assert_eq!(s.panes(), vec![s.layout.single_pane]);
    s.apply(Input::Key(Key::Char('m')));
    assert_eq!(s.mode, ViewMode::Cambi);
    assert_eq!(ViewMode::parse("cambi"), Some(ViewMode::Cambi));
    assert_eq!(s.panes(), vec![s.layout.single_pane]);
    s.apply(Input::Key(Key::Char('M')));
    assert_eq!(s.mode, ViewMode::Side);
}

#[test]
fn the_ssim_view_is_one_pane_zoomed_and_panned_like_the_others() {
    let mut s = rocket();
    for _ in 0..3 {
        s.apply(Input::Key(Key::Char('m')));
    }
    assert_eq!(s.mode, ViewMode::Ssim);
    assert_eq!(ViewMode::parse("ssim"), Some(ViewMode::Ssim));
    assert_eq!(s.panes(), vec![s.layout.single_pane]);
    let pane = s.layout.single_pane;
    let cursor = [0.5 * (pane.x0 + pane.x1) + 60.0, 0.5 * (pane.y0 + pane.y1) + 40.0];
    let before = picture_point(&s, pane, cursor);
    s.apply(Input::CursorMoved { x: cursor[0], y: cursor[1] });
    s.apply(Input::Scroll(4.0));
    let after = picture_point(&s, pane, cursor);
    assert!((before[0] - after[0]).abs() < 0.01 && (before[1] - after[1]).abs() < 0.01);
    assert!(s.hovered_pixel().is_some(), "hover reads out the picture under the map");
    // On to the ΔE and banding maps, which keep the view, then back to side by side:
    // the same picture point under the same place of the (now narrower)
    // first pane's centre, same scale.
    let (scale, center) = (s.view.scale, s.view.center);
    s.apply(Input::Key(Key::Char('m')));
    assert_eq!(s.mode, ViewMode::DeltaE);
    assert_eq!((s.view.scale, s.view.center), (scale, center));
    s.apply(Input::Key(Key::Char('m')));
    assert_eq!(s.mode, ViewMode::Cambi);
    assert_eq!((s.view.scale, s.view.center), (scale, center));
    s.apply(Input::Key(Key::Char('m')));
    assert_eq!(s.mode, ViewMode::Side);
    assert_eq!(s.view.scale, scale);
    assert!((s.view.center[1] - center[1]).abs() < 1e-3);
}

#[test]
fn frame_offsets_shift_only_what_each_side_shows() {
    let mut s = rocket();
    s.seek(5);
    assert_eq!(s.shown_frames(), (5, 5));
    s.apply(Input::Key(Key::Char(']')));
    assert_eq!((s.ref_offset, s.dis_offset), (0, 1));
    assert_eq!(s.shown_frames(), (5, 6), "] shows the distorted side one frame later");
    s.apply(Input::Key(Key::Char('[')));
    s.apply(Input::Key(Key::Char('[')));
    assert_eq!(s.shown_frames(), (5, 4));
    s.apply(Input::Key(Key::Char('}')));
    assert_eq!((s.ref_offset, s.dis_offset), (1, -1));
    assert_eq!(s.shown_frames(), (6, 4));
    s.apply(Input::Key(Key::Char('{')));
    s.apply(Input::Key(Key::Char('{')));
    assert_eq!(s.shown_frames(), (4, 4));
    assert_eq!(s.frame, 5, "offsets never move the current (scored) pair");
    // Stepping keeps the offsets; the ends hold the shown frame inside the clip.
    s.apply(Input::Key(Key::Home));
    assert_eq!(s.shown_frames(), (0, 0), "frame 0 - 1 shows frame 0");
    s.apply(Input::Key(Key::End));
    assert_eq!(s.shown_frames(), (10, 10));
    for _ in 0..5 {
        s.apply(Input::Key(Key::Char('}')));
    }
    assert_eq!(s.ref_offset, 4);
    assert_eq!(s.shown_frames(), (11, 10), "11 + 4 holds at the last frame");
    // Offsets stay bounded however long a key is held.
    for _ in 0..3 {
        s.shift_offset(state::InputSide::Distorted, i64::MIN);
    }
    assert_eq!(s.dis_offset, -state::MAX_OFFSET);
    assert_eq!(s.shown_frames().1, 0);
}

#[test]
fn a_dropped_file_replaces_the_side_under_the_cursor() {
    use state::InputSide;
    let mut s = rocket();
    let path = std::path::PathBuf::from("new.y4m");
    s.file_dropped(path.clone());
    assert_eq!(
        s.requests.replace,
        Some((InputSide::Reference, path.clone())),
        "no cursor known: the left side"
    );
    let [left, right] = s.layout.side_panes;
    let mid = |r: vqscope_renderer::Rect| [0.5 * (r.x0 + r.x1), 0.5 * (r.y0 + r.y1)];
    s.apply(Input::CursorMoved { x: mid(right)[0], y: mid(right)[1] });
    s.notice = Some("an old complaint".into());
    s.file_dropped(path.clone());
    assert_eq!(s.requests.replace, Some((InputSide::Distorted, path.clone())));
    assert_eq!(s.notice, None, "a new drop clears the last refusal");
    s.apply(Input::CursorMoved { x: mid(left)[0], y: mid(left)[1] });
    assert_eq!(s.drop_side(), InputSide::Reference);
    // Wiped: the side of the split line.
    s.apply(Input::Key(Key::Char('m')));
    let x = s.wipe_x();
    let y = mid(s.layout.single_pane)[1];
    s.apply(Input::CursorMoved { x: x - 5.0, y });
    assert_eq!(s.drop_side(), InputSide::Reference);
    s.apply(Input::CursorMoved { x: x + 5.0, y });
    assert_eq!(s.drop_side(), InputSide::Distorted);
    // Taking the request leaves none behind.
    let taken = std::mem::take(&mut s.requests);
    assert!(taken.replace.is_some() && s.requests.replace.is_none());
}

#[test]
fn clicking_and_dragging_on_the_plot_seeks() {
    let mut s = rocket();
    let area = s.layout.plot_area;
    let y = 0.5 * (area.y0 + area.y1);
    let x = s.plot_x(7.0);
    click(&mut s, x, y);
    assert_eq!(s.frame, 7);
    assert_eq!(s.hovered_frame(), Some(7));
    let (from, to) = (s.plot_x(7.0), s.plot_x(3.2));
    drag(&mut s, [from, y], [to, y]);
    assert_eq!(s.frame, 3);
    s.apply(Input::CursorMoved { x: s.plot_x(9.0), y });
    assert_eq!(s.frame, 3, "after release, moving only hovers");
    assert_eq!(s.hovered_frame(), Some(9));
    // The scrubber spans the whole clip.
    let sc = s.layout.scrubber;
    click(&mut s, sc.x1, 0.5 * (sc.y0 + sc.y1));
    assert_eq!(s.frame, 11);
    click(&mut s, sc.x0, 0.5 * (sc.y0 + sc.y1));
    assert_eq!(s.frame, 0);
}

#[test]
fn wheel_on_the_plot_zooms_the_time_axis() {
    let mut s = State::new((1280, 720), (576, 324), 1000, 25.0);
    assert_eq!(s.plot_span, (0.0, 999.0));
    let area = s.layout.plot_area;
    let x = s.plot_x(500.0);
    s.apply(Input::CursorMoved { x, y: 0.5 * (area.y0 + area.y1) });
    s.apply(Input::Scroll(3.0));
    let (a, b) = s.plot_span;
    assert!(b - a < 999.0 * 0.6, "zoomed in: {a}..{b}");
    assert!((s.plot_frame_at(x) as f64 - 500.0).abs() <= 1.0, "the frame under the cursor stays");
    s.seek(990);
    assert!(s.plot_span.1 >= 990.0, "the window follows the current frame");
    s.apply(Input::Scroll(-50.0));
    assert_eq!(s.plot_span, (0.0, 999.0), "zoom out stops at the whole clip");
}

#[test]
fn a_click_on_a_worst_frame_seeks_to_it() {
    let mut s = rocket();
    s.worst = vec![9, 4];
    let row = s.layout.worst_rows[1];
    click(&mut s, 0.5 * (row.x0 + row.x1), 0.5 * (row.y0 + row.y1));
    assert_eq!(s.frame, 4);
    let empty = s.layout.worst_rows[3];
    click(&mut s, 0.5 * (empty.x0 + empty.x1), 0.5 * (empty.y0 + empty.y1));
    assert_eq!(s.frame, 4, "a row without a frame does nothing");
}

#[test]
fn help_and_quit() {
    let mut s = rocket();
    s.apply(Input::Key(Key::Char('?')));
    assert!(s.help);
    s.apply(Input::Key(Key::Escape));
    assert!(!s.help && !s.quit, "Esc closes the help first");
    s.apply(Input::Key(Key::Escape));
    assert!(s.quit);
}

#[test]
fn resizing_refits_and_keeps_the_layout_apart_down_to_1024x600() {
    let mut s = rocket();
    s.apply(Input::Resized { width: 1024, height: 600 });
    assert!(s.view.fit);
    assert!((s.view.scale - s.fit_scale()).abs() < 1e-6);
    let l = Layout::new(1024, 600);
    let regions = [l.header, l.video, l.transport, l.plot, l.side];
    for (i, a) in regions.iter().enumerate() {
        assert!(a.width() > 100.0 && a.height() > 20.0, "region {i} too small: {a:?}");
        assert!(a.x0 >= 0.0 && a.y0 >= 0.0 && a.x1 <= 1024.0 && a.y1 <= 600.0, "{a:?}");
        for b in &regions[i + 1..] {
            assert!(a.intersect(b).is_empty(), "{a:?} overlaps {b:?}");
        }
    }
    let last = l.worst_rows[layout::WORST_ROWS - 1];
    assert!(last.y1 <= l.side.y1, "the worst-frames list fits the side panel");
    assert!(l.side_panes[0].width() > 300.0 && l.video.height() > 250.0);
    // Degenerate sizes do not panic.
    s.apply(Input::Resized { width: 0, height: 0 });
    s.apply(Input::Scroll(1.0));
}

#[test]
fn looping_playback_wraps_to_the_first_frame_and_keeps_playing() {
    let mut s = rocket();
    assert!(!s.looping, "off unless asked for (L or --loop)");
    s.apply(Input::Key(Key::Char('L')));
    assert!(s.looping);
    s.seek(10);
    s.apply(Input::Key(Key::Space));
    s.apply(Input::Tick(0.04)); // one frame at 25 fps: the last
    assert_eq!(s.frame, 11);
    s.apply(Input::Tick(0.04));
    assert_eq!(s.frame, 0, "after the last frame comes the first");
    assert!(s.playing, "and playback goes on");
    assert_eq!(s.plot_span, (0.0, 11.0));
    s.seek(11);
    s.apply(Input::Tick(0.12)); // three frames: 11 -> 0 -> 1 -> 2
    assert_eq!(s.frame, 2);
    s.apply(Input::Key(Key::Char('l')));
    assert!(!s.looping, "L toggles");
    s.seek(11);
    s.apply(Input::Tick(0.04));
    assert_eq!((s.frame, s.playing), (11, false), "not looping: stops at the end");
    // A one-frame clip loops in place rather than dividing by zero.
    let mut one = State::new((1280, 720), (576, 324), 1, 25.0);
    one.looping = true;
    one.apply(Input::Key(Key::Space));
    one.apply(Input::Tick(0.2));
    assert_eq!((one.frame, one.playing), (0, true));
}

#[test]
fn a_message_stays_until_a_key_a_click_or_its_time_is_up() {
    let mut s = rocket();
    s.inform("wrote /somewhere/vqscope-view.png");
    s.apply(Input::Tick(MESSAGE_SECONDS * 0.5));
    s.apply(Input::CursorMoved { x: 100.0, y: 100.0 });
    s.apply(Input::Scroll(1.0));
    assert_eq!(
        s.message.as_ref().map(|(m, _)| m.as_str()),
        Some("wrote /somewhere/vqscope-view.png"),
        "moving the mouse or the wheel does not clear it"
    );
    s.apply(Input::Tick(MESSAGE_SECONDS * 0.6));
    assert_eq!(s.message, None, "gone after {MESSAGE_SECONDS} s");
    s.inform("again");
    s.apply(Input::Key(Key::Right));
    assert_eq!(s.message, None, "a key clears it");
    s.inform("again");
    click(&mut s, 100.0, 100.0);
    assert_eq!(s.message, None, "a click clears it");
    // S and E ask the owner to write; the key that asks clears an old
    // message before the owner posts the new one.
    s.inform("old");
    s.apply(Input::Key(Key::Char('s')));
    s.apply(Input::Key(Key::Char('E')));
    assert!(s.requests.save_png && s.requests.export && s.message.is_none());
}

/// One notch is one line on X11 and most wheels: a fourth of a doubling,
/// so three notches from a fitted 57% reach about 96%, not 459%.
#[test]
fn wheel_notches_zoom_in_fine_steps() {
    let mut s = rocket();
    let pane = s.layout.side_panes[0];
    let middle = state::centre(pane);
    s.apply(Input::CursorMoved { x: middle.x, y: middle.y });
    let fit = s.view.scale;
    for _ in 0..3 {
        s.apply(Input::Scroll(1.0));
    }
    let ratio = s.view.scale / fit;
    assert!((ratio - 2f32.powf(0.75)).abs() < 1e-4, "three notches: x{ratio}");
    assert!((ZOOM_PER_LINE.powi(4) - 2.0).abs() < 1e-5);
    s.apply(Input::Scroll(-1.0));
    assert!((s.view.scale / fit - 2f32.powf(0.5)).abs() < 1e-4, "and back one");
}

#[test]
fn a_zoomed_plot_says_so_and_0_shows_the_whole_clip() {
    let mut s = State::new((1280, 720), (576, 324), 1000, 25.0);
    assert_eq!(s.plot_zoom_label(), None, "the whole clip: nothing to say");
    let area = s.layout.plot_area;
    s.apply(Input::CursorMoved { x: s.plot_x(500.0), y: 0.5 * (area.y0 + area.y1) });
    s.apply(Input::Scroll(3.0));
    assert!(s.plot_zoomed());
    let (a, b) = s.plot_span;
    let label = s.plot_zoom_label().expect("zoomed");
    assert_eq!(label, format!("frames {}–{} of 1000 (0: all)", a.ceil() as u64, b.floor() as u64));
    assert!(a > 0.0 && b < 999.0, "{a}..{b}");
    s.apply(Input::Key(Key::Char('0')));
    assert_eq!(s.plot_span, (0.0, 999.0));
    assert_eq!(s.plot_zoom_label(), None);
}

/// The first and last frames sit inside the plot, clear of the axes, and a
/// click at the very edge of the data area still picks them.
#[test]
fn the_plot_cursor_stays_clear_of_the_axes() {
    let mut s = rocket();
    let area = s.layout.plot_area;
    assert!((s.plot_x(0.0) - (area.x0 + PLOT_INSET)).abs() < 1e-3, "{}", s.plot_x(0.0));
    assert!((s.plot_x(11.0) - (area.x1 - PLOT_INSET)).abs() < 1e-3, "{}", s.plot_x(11.0));
    s.seek(6);
    click(&mut s, area.x0, 0.5 * (area.y0 + area.y1));
    assert_eq!(s.frame, 0);
    click(&mut s, area.x1, 0.5 * (area.y0 + area.y1));
    assert_eq!(s.frame, 11);
    for f in 0..12 {
        assert_eq!(s.plot_frame_at(s.plot_x(f as f64)), f, "round trip of frame {f}");
    }
}

/// Numbers count from 0 everywhere (plot, worst frames, libvmaf's
/// reports); the transport says so beside the count.
#[test]
fn the_frame_label_gives_the_number_and_the_range() {
    let mut s = State::new((1280, 720), (576, 324), 10, 25.0);
    assert_eq!(s.frame_label(), "frame 0 (0–9)");
    s.apply(Input::Key(Key::End));
    assert_eq!(s.frame_label(), "frame 9 (0–9)");
}

/// The picture-to-screen map and its inverse agree with `picture_rect`,
/// zoomed and panned: the sample under the cursor is the one drawn there.
#[test]
fn the_hovered_sample_is_the_one_drawn_under_the_cursor() {
    let mut s = rocket();
    s.zoom_to(7.0);
    let pane = s.layout.side_panes[1];
    drag(&mut s, [pane.x0 + 50.0, pane.y0 + 50.0], [pane.x0 + 10.0, pane.y0 + 70.0]);
    let r = picture_rect(pane, &s.view, s.picture);
    for (sx, sy) in [(100u32, 40u32), (301, 170), (575, 323)] {
        // The middle of sample (sx, sy) on screen.
        let x = r.x0 + (sx as f32 + 0.5) * s.view.scale;
        let y = r.y0 + (sy as f32 + 0.5) * s.view.scale;
        s.apply(Input::CursorMoved { x, y });
        let expected = pane.contains(x, y).then_some((sx, sy));
        assert_eq!(s.hovered_pixel(), expected, "at {x},{y} ({:?})", s.view);
    }
}

/// Small windows: the caption strips sit above their panes, the side
/// panel's sections stay inside it and in order, and the worst-frames
/// list keeps all its rows down to 800x500 (compact below, counting
/// what it cannot show).
#[test]
fn small_windows_keep_every_section_and_count_what_does_not_fit() {
    for (w, h, compact, shown) in
        [(1280, 720, false, WORST_ROWS), (800, 500, false, WORST_ROWS), (640, 400, true, 3)]
    {
        let l = Layout::new(w, h);
        let at = format!("{w}x{h}");
        assert_eq!((l.compact, l.worst_shown), (compact, shown), "{at}");
        for (caption, pane) in l.side_captions.iter().zip(&l.side_panes) {
            assert_eq!((caption.x0, caption.x1, caption.y1), (pane.x0, pane.x1, pane.y0), "{at}");
            assert!(caption.height() >= layout::ROW && caption.y0 >= l.video.y0, "{at}");
        }
        assert_eq!(l.single_caption.y1, l.single_pane.y0, "{at}");
        assert!(l.side_sections.windows(2).all(|p| p[0] < p[1]), "{at}: {:?}", l.side_sections);
        assert!(l.side_sections[0] >= l.side.y0, "{at}");
        for r in l.shown_worst_rows() {
            assert!(r.y0 >= l.side_sections[3] + layout::ROW && r.y1 <= l.side.y1, "{at}: {r:?}");
        }
        assert_eq!(l.shown_worst_rows().len(), shown);
        // A click on a row that is not shown seeks nowhere.
        let mut s = State::new((w, h), (576, 324), 12, 25.0);
        s.worst = vec![1, 2, 3, 4, 5];
        if shown < WORST_ROWS {
            let hidden = l.worst_rows[shown];
            click(&mut s, 0.5 * (hidden.x0 + hidden.x1), 0.5 * (hidden.y0 + hidden.y1));
            assert_eq!(s.frame, 0, "{at}");
        }
    }
}
