//! `vqscope bench playback`: the dashboard's frame loop without a window,
//! to show that playback keeps the clip's frame rate while the same clip is
//! scored on the same GPU. The loop is the window's: the scores that have
//! arrived are taken, the pictures of the frame the playback clock wants
//! are fetched from the feed if they are ready (never waiting) and uploaded
//! once, the scene is built and drawn, here into an offscreen image of the
//! window's size. One display frame per period of the clip's frame rate,
//! paced by the wall clock like a display would; a short clip plays in a
//! loop.
//!
//! The clock starts once the first pair is shown, as in the window, where
//! play is pressed on a frame already shown; how long that pair took to
//! come (the decoders starting) is printed apart.
//!
//! Printed per size: how many display frames showed the frame the clock
//! wanted ("on time"; a late one shows the previous frame again, as the
//! window would), the host time of a frame's work before submission
//! (scores, pictures, scene, encoding, upload), the GPU time of the two
//! render passes from timestamps, the time to the first pair, and how far
//! scoring got meanwhile.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use vqscope_gpu::{Binding, ContextOptions, GpuContext, Submitter, vk};
use vqscope_renderer::{Renderer, ScanMode};

use super::pictures::{self, Pictures};
use super::source::Inputs;
use super::state::{Input, InputSide, Key, MAX_OFFSET, State};
use super::{MODEL, Session, external_buffers, frames_buffer, view};
use crate::output::outln;
use crate::stats::percentile;

/// Plays `inputs` for `seconds` at each window size in `sizes`, the
/// distorted side shown `offset` frames later (negative: earlier).
pub fn run(inputs: &Inputs, sizes: &[(u32, u32)], seconds: f64, offset: i64) -> Result<()> {
    if !(seconds.is_finite() && seconds > 0.0) {
        bail!("--seconds {seconds}: give a positive number of seconds to play");
    }
    if offset.abs() > MAX_OFFSET {
        bail!("--offset {offset}: the dashboard shows a side at most {MAX_OFFSET} frames apart");
    }
    drop(inputs.open()?); // a bad input fails before any output
    let ctx = crate::decode_arg::gpu_context(&ContextOptions::from_env())?;
    outln!("device: {}", ctx.info().name)?;
    outln!(
        "{:<10} {:>9} {:>8} {:>8} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>6} {:>12}",
        "window",
        "clip",
        "fps",
        "frames",
        "on time",
        "host ms p50",
        "host ms max",
        "GPU ms p50",
        "GPU ms max",
        "1st pair ms",
        "seeks",
        "scored"
    )?;
    for &size in sizes {
        let run = play(&ctx, inputs.clone(), size, seconds, offset)?;
        outln!(
            "{:<10} {:>9} {:>8.2} {:>8} {:>8} {:>10.2} {:>10.2} {:>10.3} {:>10.3} {:>10.1} {:>6} {:>12}",
            format!("{}x{}", size.0, size.1),
            run.clip,
            run.fps,
            run.host_ms.len(),
            run.on_time,
            percentile(&run.host_ms, 0.5),
            percentile(&run.host_ms, 1.0),
            percentile(&run.gpu_ms, 0.5),
            percentile(&run.gpu_ms, 1.0),
            run.first_pair_ms,
            run.seeks,
            run.scored_column(),
        )?;
    }
    Ok(())
}

/// What one playback measured.
struct Playback {
    clip: String,
    fps: f64,
    /// Display frames that showed the frame the clock wanted.
    on_time: usize,
    /// Per display frame, the work before submission.
    host_ms: Vec<f64>,
    gpu_ms: Vec<f64>,
    /// From the start of play to the first pair shown.
    first_pair_ms: f64,
    /// Seeks the frame feed made (none while playing on from the start).
    seeks: u64,
    /// Frames with scores at the end, of `frames` (unknown for a stream).
    scored: usize,
    frames: Option<usize>,
    /// Seconds into the playback when the last frame's scores were in
    /// (to the display period), if they were.
    scored_by: Option<f64>,
}

impl Playback {
    /// `48/48 by 0.12 s`, `30/48` when scoring had not finished, `30/?`
    /// for a stream of unknown length.
    fn scored_column(&self) -> String {
        let frames = self.frames.map_or("?".to_string(), |n| n.to_string());
        match self.scored_by {
            Some(t) => format!("{}/{frames} by {t:.2} s", self.scored),
            None => format!("{}/{frames}", self.scored),
        }
    }
}

/// How long playback waits for its first pair before it gives up.
const FIRST_PAIR_WAIT: Duration = Duration::from_secs(60);

fn play(
    ctx: &Arc<GpuContext>,
    inputs: Inputs,
    size: (u32, u32),
    seconds: f64,
    offset: i64,
) -> Result<Playback> {
    let mut session = Session::open(inputs, super::model_choices(None), 0, Arc::from([]))?;
    let g = session.clip.reference.geometry;
    let fps = session.clip.reference.frame_rate.as_f64();
    let fps = if fps > 0.0 { fps } else { 25.0 };
    let count = session.clip.frame_count.unwrap_or(1);
    let mut state = State::new(size, (g.width, g.height), count, fps);
    state.shift_offset(InputSide::Distorted, offset);
    state.apply(Input::Key(Key::Space)); // play

    let mut renderer = Renderer::new(ctx, ScanMode::for_device(ctx), None)?;
    let mut submitter = Submitter::new(ctx, 1)?;
    let target = renderer.target_image(size.0, size.1)?;
    submitter.run(|rec| {
        rec.image_layout(target.raw(), vk::ImageLayout::UNDEFINED, vk::ImageLayout::GENERAL);
        Ok(())
    })?;

    let mut pictures: Option<Pictures> = None;
    let pressed = Instant::now();
    while pictures.is_none() {
        session.refresh_pictures(&state, &mut pictures);
        if let Some(e) = &session.feed.error {
            bail!("the first pair: {e}");
        }
        if pressed.elapsed() > FIRST_PAIR_WAIT {
            bail!("the first pair did not come in {} s", FIRST_PAIR_WAIT.as_secs());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let first_pair_ms = pressed.elapsed().as_secs_f64() * 1e3;
    let mut uploader = None;
    let (mut on_time, mut host_ms, mut gpu_ms) = (0, Vec::new(), Vec::new());
    let period = Duration::from_secs_f64(1.0 / fps);
    let start = Instant::now();
    let mut last = start;
    let mut scored_by = None;
    for k in 0u32.. {
        let due = start + period * k;
        if due.duration_since(start).as_secs_f64() >= seconds {
            break;
        }
        if !state.playing {
            // The end of the clip: play it again from the start, as a
            // looping player would (the jump back is a seek).
            state.seek(0);
            state.apply(Input::Key(Key::Space));
        }
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
        let begin = Instant::now();
        state.apply(Input::Tick((begin - last).as_secs_f64()));
        last = begin;
        session.poll_scores(&mut state);
        let all_scored =
            session.clip.frame_count.is_some_and(|n| session.history.frames.len() >= n as usize);
        if scored_by.is_none() && all_scored {
            scored_by = Some(begin.duration_since(start).as_secs_f64());
        }
        session.refresh_pictures(&state, &mut pictures);
        if let Some(p) = &mut pictures {
            let up = match &mut uploader {
                Some(u) => u,
                None => uploader.insert(pictures::display_uploader(ctx, p.frame(false), 0)?),
            };
            submitter.run(|rec| p.upload(up, rec))?;
        }
        if pictures.as_ref().is_some_and(|p| p.shown == state.shown_frames()) {
            on_time += 1;
        }
        let scene = view::build(&view::ViewInputs {
            state: &state,
            clip: &session.clip,
            model: MODEL,
            pictures: pictures.as_ref(),
            history: &session.history,
            error: None,
            map: None,
        });
        let encoded = renderer.encode(&scene)?;
        let buffers = renderer.upload(&encoded)?;
        host_ms.push(begin.elapsed().as_secs_f64() * 1e3);
        let maps = external_buffers(None, frames_buffer(pictures.as_ref(), uploader.as_ref()));
        submitter.run(|rec| {
            buffers.record_upload(rec);
            renderer.record_with_maps(rec, &buffers, Binding::Image(&target), &maps)
        })?;
        let times = renderer.pass_times()?;
        gpu_ms.push(times.binning_ms() + times.fused_ms);
    }
    // What arrived during the playback: no last poll, so that `scored` and
    // `scored_by` tell the same story.
    Ok(Playback {
        clip: format!("{}x{}", g.width, g.height),
        fps,
        on_time,
        host_ms,
        gpu_ms,
        first_pair_ms,
        seeks: session.feed.seeks,
        scored: session.history.frames.len(),
        frames: session.clip.frame_count.map(|n| n as usize),
        scored_by,
    })
}
