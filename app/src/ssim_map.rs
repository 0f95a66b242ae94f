//! `vqscope screenshot --ssim-map`: where a frame lost quality, as a heat
//! map of its per-pixel luma SSIM.
//!
//! The frame pair is uploaded once, `float_ssim` runs on the GPU
//! ([`SsimKernel`]) and leaves its per-pixel map in a device buffer; the
//! renderer then binds that buffer as an external map and draws it as a
//! heat map, so the map never travels through the host. Only the frame's
//! four SSIM means (32 bytes) are read back, for the title line.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use vqscope_gpu::{Buffer, ContextOptions, Submitter, download_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, upload_plane};
use vqscope_metrics::features::float_ssim::SsimOptions;
use vqscope_metrics::features::float_ssim::gpu::SsimKernel;
use vqscope_renderer::{
    Align, Color, Rect, RectStyle, Renderer, Sampling, ScanMode, Scene, TextRun, VAlign, heat,
};
use vqscope_video::{Pair, PairOptions, VideoError, open_input};

/// Smallest output the view fits in (title, map, legend).
const MIN_SIZE: (u32, u32) = (320, 200);

const BACKGROUND: Color = Color::rgb(0.09, 0.10, 0.12);
const TEXT: Color = Color::rgb(0.90, 0.91, 0.93);
const DIM: Color = Color::rgb(0.62, 0.64, 0.68);

/// What to render.
#[derive(Debug, Clone)]
pub struct SsimMapShot {
    pub reference: PathBuf,
    pub distorted: PathBuf,
    pub frame: u64,
    pub size: (u32, u32),
    pub range: (f32, f32),
}

/// The frame's SSIM heat map as RGBA pixels of `shot.size`, and its
/// `float_ssim`.
pub fn render(shot: &SsimMapShot) -> Result<(Vec<u8>, f64)> {
    let (width, height) = shot.size;
    if width < MIN_SIZE.0 || height < MIN_SIZE.1 {
        bail!(
            "--size {width}x{height} is too small for the SSIM map view (at least {}x{})",
            MIN_SIZE.0,
            MIN_SIZE.1
        );
    }
    let (lo, hi) = shot.range;
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        bail!("--range {lo},{hi}: give LO,HI with LO < HI");
    }
    let mut pair = Pair::new(
        open_input(&shot.reference, None)?,
        open_input(&shot.distorted, None)?,
        PairOptions::default(),
    )?;
    let count = pair.frame_count();
    let out_of_range = |count: u64| {
        anyhow!(
            "--frame {}: the clip has {count} frames (0..={})",
            shot.frame,
            count.saturating_sub(1)
        )
    };
    if let Some(count) = count
        && shot.frame >= count
    {
        return Err(out_of_range(count));
    }
    let frames = match pair.read(shot.frame) {
        Err(VideoError::FrameOutOfRange { count, .. }) => return Err(out_of_range(count)),
        other => other?,
    };
    let g = frames.reference.geometry;
    let (w, h, bpc) = (g.width, g.height, g.format.bit_depth);

    let ctx = crate::decode_arg::gpu_context(&ContextOptions::from_env())?;
    let mut submitter = Submitter::new(&ctx, 1)?;
    let kernel = SsimKernel::new(&ctx, w, h, bpc, SsimOptions::default())
        .with_context(|| format!("{}", shot.reference.display()))?;
    let (ref_samples, dis_samples) =
        (frames.reference.plane_samples(0), frames.distorted.plane_samples(0));
    let (rb, rd) = upload_plane(
        &ctx,
        &mut submitter,
        &PlaneView::packed(w as usize, h as usize, bpc, &ref_samples),
    )?;
    let (db, dd) = upload_plane(
        &ctx,
        &mut submitter,
        &PlaneView::packed(w as usize, h as usize, bpc, &dis_samples),
    )?;
    let (r, d) = (DevicePlane { buffer: &rb, desc: rd }, DevicePlane { buffer: &db, desc: dd });
    let words = u64::from(SsimKernel::RESULT_WORDS) * 8;
    let results = Buffer::storage(&ctx, "ssim map results", words)?;
    submitter.run(|rec| {
        // Poison: an unwritten map cell draws magenta (NaN), an unwritten
        // mean prints as garbage rather than as a plausible score.
        rec.fill(kernel.map_buffer(), f32::NAN.to_bits());
        rec.fill(&results, 0xDEAD_BEEF);
        // Starts and ends with a barrier: the fills come first, and the map
        // is complete before anything submitted later reads it.
        kernel.record(rec, &r, &d, &results, 0)
    })?;
    let bytes = download_buffer(&ctx, &mut submitter, &results, words)?;
    let means: Vec<i64> =
        bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
    let ssim = SsimKernel::decode(&means).ssim;

    let scene = build_scene(shot, &kernel, (w, h, bpc), ssim);
    let mut renderer = Renderer::new(&ctx, ScanMode::for_device(&ctx), None)?;
    let rgba = renderer.render_to_rgba_with_maps(&mut submitter, &scene, &[kernel.map_buffer()])?;
    Ok((rgba, ssim))
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into())
}

/// Title and detail lines, the map fitted below them (external map slot
/// 0: the kernel's buffer), and the legend at the bottom.
fn build_scene(
    shot: &SsimMapShot,
    kernel: &SsimKernel,
    input: (u32, u32, u32),
    ssim: f64,
) -> Scene {
    let (width, height) = shot.size;
    let (w, h) = (width as f32, height as f32);
    let mut s = Scene::new(width, height, BACKGROUND);
    let title = format!(
        "{} vs {}  ·  frame {}  ·  float_ssim {ssim:.6}",
        file_name(&shot.reference),
        file_name(&shot.distorted),
        shot.frame
    );
    let pad = 16.0;
    s.text(TextRun::boxed(
        title,
        Rect::new(pad, 10.0, w - pad, 34.0),
        18.0,
        TEXT,
        Align::Start,
        VAlign::Middle,
    ));
    let (mw, mh, scale) = (kernel.map_width(), kernel.map_height(), kernel.scale());
    let (iw, ih, bpc) = input;
    let detail = format!(
        "luma SSIM per pixel  ·  {iw}x{ih} {bpc}-bit  ·  map {mw}x{mh}, one cell per {scale}x{scale} \
         pixels, {} pixels of border lost to the 11-tap window",
        5 * scale
    );
    s.text(TextRun::boxed(
        detail,
        Rect::new(pad, 36.0, w - pad, 54.0),
        13.0,
        DIM,
        Align::Start,
        VAlign::Middle,
    ));

    // The map, fitted with its aspect ratio into the space left.
    let area = Rect::new(pad, 62.0, w - pad, h - 78.0);
    let fit = (area.width() / mw as f32).min(area.height() / mh as f32);
    let (dw, dh) = (mw as f32 * fit, mh as f32 * fit);
    let x0 = (area.x0 + (area.width() - dw) / 2.0).round();
    let y0 = (area.y0 + (area.height() - dh) / 2.0).round();
    let dst = Rect::new(x0, y0, x0 + dw.round(), y0 + dh.round());
    // Magnified, each map cell stays one flat block (no invented values
    // between cells); shrunk, bilinear avoids aliasing.
    let sampling = if fit >= 1.0 { Sampling::Nearest } else { Sampling::Bilinear };
    let map = s.external_map(mw, mh, 0);
    s.rect(dst.inflate(1.0), RectStyle::fill(Color::TRANSPARENT).with_border(1.0, DIM.fade(0.6)));
    s.heat_map(dst, map, Rect::new(0.0, 0.0, mw as f32, mh as f32), sampling, shot.range);

    let bar_w = (w - 2.0 * pad).min(520.0);
    let bx = ((w - bar_w) / 2.0).round();
    let bar = Rect::new(bx, h - 44.0, bx + bar_w, h - 32.0);
    let (lo, _) = shot.range;
    let caption =
        format!("SSIM: bright = damaged, black = intact (values below {lo} are as bright as {lo})");
    heat::legend(&mut s, bar, shot.range, 5, 3, &caption, TEXT);
    s
}
