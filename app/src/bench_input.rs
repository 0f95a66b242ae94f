//! `vqscope bench input`: how fast frames come in. Reads a synthetic y4m
//! pair from the page cache (frames/s and GB/s of parsing), uploads pairs
//! held in memory through the staging ring (GB/s by GPU timestamps around
//! the copy, pairs/s by the wall clock), and finally runs the whole input
//! path, decoder thread to device planes, on the y4m pair, so input is
//! shown not to limit scoring.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use vqscope_gpu::{ContextOptions, GpuContext, Submitter, Timestamps};
use vqscope_video::y4m::Y4mFile;
use vqscope_video::{Decoder, FramePair, FrameUploader, Geometry, Pair, PairOptions, open_input};

use crate::bench_metrics::{
    CLIP_SUFFIXES, ScratchDir, geometry_8bit_420, synthetic_pair, write_y4m,
};
use crate::output::outln;

pub fn run(sizes: &[(u32, u32)], frames: u64) -> Result<()> {
    let ctx = Arc::new(GpuContext::new(&ContextOptions::from_env())?);
    outln!("device: {} ({frames} frames per case, 8-bit 4:2:0)", ctx.info().name)?;
    outln!(
        "{:<10} {:>10} {:>10} {:>14} {:>14} {:>16} {:>11}",
        "size",
        "parse fps",
        "parse GB/s",
        "upload pairs/s",
        "copy GB/s GPU",
        "y4m→GPU pairs/s",
        "pair bytes"
    )?;
    let scratch = ScratchDir::new()?;
    for &(width, height) in sizes {
        let geometry = geometry_8bit_420(width, height);
        let pairs: Vec<_> = (0..4).map(|t| synthetic_pair(geometry, t)).collect();
        let base = write_y4m(scratch.path(), geometry, &pairs, frames)?;
        let reference = base.with_extension("ref.y4m");
        read_all(&reference)?; // warm the page cache
        let start = Instant::now();
        let read = read_all(&reference)?;
        let parse_s = start.elapsed().as_secs_f64();
        let frame_bytes = geometry.frame_bytes() as f64;

        let mut uploader = FrameUploader::new(&ctx, geometry, 4)?;
        let mut submitter = Submitter::new(&ctx, 4)?;
        let stamps: Vec<Timestamps> =
            (0..4).map(|_| Timestamps::new(&ctx, 2)).collect::<vqscope_gpu::Result<_>>()?;
        let mut copy_ms = Vec::new();
        let held: Vec<FramePair> = pairs
            .into_iter()
            .enumerate()
            .map(|(i, (reference, distorted))| FramePair { index: i as u64, reference, distorted })
            .collect();
        let start = Instant::now();
        for i in 0..frames {
            let pair = &held[i as usize % held.len()];
            let slot = uploader.next_slot();
            let ticket = submitter.submit(|rec| {
                rec.reset_timestamps(&stamps[slot]);
                rec.timestamp(&stamps[slot], 0);
                uploader.upload(rec, pair)?;
                rec.timestamp(&stamps[slot], 1);
                Ok(())
            })?;
            if i + 1 == frames {
                submitter.wait(ticket)?;
            }
            // The next slot's previous upload is the oldest in flight: wait
            // for it and read its copy time before the ring reuses it.
            if i >= 3 {
                submitter.wait(vqscope_gpu::Ticket(ticket.0 - 3))?;
                copy_ms.push(stamps[(slot + 1) % 4].read_intervals_ms()?[0]);
            }
        }
        submitter.wait_all()?;
        let upload_s = start.elapsed().as_secs_f64();
        copy_ms.sort_by(f64::total_cmp);
        let copy = copy_ms[copy_ms.len() / 2];
        let pair_bytes = uploader.slot_bytes() as f64;
        let decoded = decode_and_upload(&ctx, &base, geometry)?;
        outln!(
            "{:<10} {:>10.1} {:>10.2} {:>14.1} {:>14.1} {:>16.1} {:>11}",
            format!("{width}x{height}"),
            read as f64 / parse_s,
            read as f64 * frame_bytes / parse_s / 1e9,
            frames as f64 / upload_s,
            pair_bytes / (copy / 1e3) / 1e9,
            decoded,
            pair_bytes as u64
        )?;
        for suffix in CLIP_SUFFIXES {
            std::fs::remove_file(base.with_extension(suffix)).ok();
        }
    }
    Ok(())
}

/// Reads every frame of a y4m file; returns how many.
fn read_all(path: &Path) -> Result<u64> {
    let mut file = Y4mFile::open(path)?;
    let mut n = 0;
    while file.next_frame()?.is_some() {
        n += 1;
    }
    Ok(n)
}

/// Pairs per second from the y4m pair on disk to device planes: the decoder
/// thread reading ahead, each pair copied into the staging ring and
/// transferred, as `score` does before its kernels.
fn decode_and_upload(ctx: &Arc<GpuContext>, base: &Path, geometry: Geometry) -> Result<f64> {
    let (r, d) = (base.with_extension("ref.y4m"), base.with_extension("dis.y4m"));
    let pair = Pair::new(open_input(&r, None)?, open_input(&d, None)?, PairOptions::default())?;
    let mut uploader = FrameUploader::new(ctx, geometry, 4)?;
    let mut submitter = Submitter::new(ctx, 4)?;
    let mut decoder = Decoder::spawn(pair, 8)?;
    let start = Instant::now();
    let mut n = 0u64;
    while let Some(pair) = decoder.recv()? {
        submitter.submit(|rec| uploader.upload(rec, &pair).map(|_| ()))?;
        pair.recycle();
        n += 1;
    }
    submitter.wait_all()?;
    decoder.shutdown()?;
    Ok(n as f64 / start.elapsed().as_secs_f64())
}
