//! Scoring a clip on the GPU, frame pair after frame pair. Each pair is
//! uploaded once into a ring slot; every selected kernel is recorded into
//! the same command buffer and leaves its reduced int64 sums in that slot's
//! host-visible result buffer (a few hundred bytes). Up to `slots` pairs are
//! in flight on a timeline semaphore; the host turns each finished slot's
//! sums into libvmaf's values with the CPU twins' host functions, in frame
//! order. Motion needs the next frame (motion2), so a frame's scores come
//! out once its successor is known, or at [`ScorePipeline::finish`].

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use vqscope_gpu::{Buffer, GpuContext, Submitter, Ticket, Timestamps};
use vqscope_video::{DeviceFrame, DeviceFramePair, FramePair, FrameUploader, Geometry};

use crate::MetricsError;
use crate::adm::gpu::AdmKernel;
use crate::adm::{AdmOptions, adm_scores};
use crate::device::{DevicePlane, PlaneDesc};
use crate::motion::{MotionParams, MotionScorer};
use crate::motion_gpu::MotionKernel;
use crate::ms_ssim_gpu::MsSsimKernel;
use crate::psnr::{ChromaLayout, PsnrParams, PsnrSetup};
use crate::psnr_gpu::PsnrKernel;
use crate::ssim::SsimOptions;
use crate::ssim_gpu::SsimKernel;
use crate::vif::gpu::VifKernel;
use crate::vif::{VifOptions, features as vif_features};

/// Pairs in flight at once (also the upload ring's size: motion compares
/// with at most two frames back, so it must be at least 3).
const SLOTS: usize = 4;

/// Which features to compute, with their options.
#[derive(Debug, Clone, Default)]
pub struct FeatureSelection {
    pub vif: Option<VifOptions>,
    pub adm: Option<AdmOptions>,
    pub motion: Option<MotionParams>,
    pub psnr: Option<PsnrParams>,
    pub float_ssim: bool,
    pub float_ms_ssim: bool,
    /// Also report libvmaf's debug values (num/den per scale, ...).
    pub debug: bool,
}

/// One frame's values, in the order libvmaf's reports list them.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameScores {
    pub index: u64,
    pub values: Vec<(&'static str, f64)>,
}

impl FrameScores {
    pub fn get(&self, name: &str) -> Option<f64> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// Where each kernel's results start in a slot's result buffer.
#[derive(Debug, Default, Clone, Copy)]
struct Offsets {
    psnr: u32,
    adm: u32,
    motion: u32,
    vif: u32,
    ssim: u32,
    ms_ssim: u32,
    total: u32,
}

/// GPU milliseconds per kernel of the last finished frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KernelTimes {
    /// `(feature, ms)`, upload first.
    pub passes: Vec<(&'static str, f64)>,
}

struct InFlight {
    ticket: Ticket,
    slot: usize,
    index: u64,
    motion_sad: bool,
}

/// The per-frame GPU scoring pipeline for one clip geometry.
pub struct ScorePipeline {
    submitter: Submitter,
    uploader: FrameUploader,
    selection: FeatureSelection,
    geometry: Geometry,
    kernels: Kernels,
    psnr_setup: Option<PsnrSetup>,
    motion_scorer: Option<MotionScorer>,
    results: Vec<Buffer>,
    timestamps: Vec<Timestamps>,
    in_flight: VecDeque<InFlight>,
    /// Ring slot of each recent frame, for motion's earlier frame.
    recent_slots: VecDeque<(u64, usize)>,
    /// Frames whose values wait for their motion scores.
    waiting: BTreeMap<u64, Vec<(&'static str, f64)>>,
    last_times: KernelTimes,
    /// Two timestamps around [`ScorePipeline::time_resident`]'s batch.
    resident_stamps: Timestamps,
}

/// Every kernel's name, in recording order (after the upload).
const PASSES: [&str; 6] = ["psnr", "adm", "motion", "vif", "float_ssim", "float_ms_ssim"];

fn chroma_layout(geometry: &Geometry) -> ChromaLayout {
    match geometry.format.chroma {
        vqscope_video::ChromaFormat::Mono => ChromaLayout::Mono,
        vqscope_video::ChromaFormat::Yuv420 => ChromaLayout::Yuv420,
        vqscope_video::ChromaFormat::Yuv422 => ChromaLayout::Yuv422,
        vqscope_video::ChromaFormat::Yuv444 => ChromaLayout::Yuv444,
    }
}

/// The kernel view of plane `i` of an uploaded frame.
fn device_plane<'a>(buffer: &'a Buffer, frame: &DeviceFrame, i: usize) -> DevicePlane<'a> {
    let p = frame.planes[i];
    DevicePlane {
        buffer,
        desc: PlaneDesc {
            offset: p.offset,
            width: p.width,
            height: p.height,
            stride: p.width,
            bytes_per_sample: p.bytes_per_sample,
            bpc: frame.geometry.format.bit_depth,
            pad: [0; 2],
        },
    }
}

/// The selected kernels and where each leaves its results.
struct Kernels {
    psnr: Option<PsnrKernel>,
    adm: Option<AdmKernel>,
    motion: Option<MotionKernel>,
    vif: Option<VifKernel>,
    ssim: Option<SsimKernel>,
    ms_ssim: Option<MsSsimKernel>,
    offsets: Offsets,
}

impl Kernels {
    /// Records every selected kernel for the uploaded pair `up` into `out`
    /// (motion against the reference frame in ring slot `prev_slot`), with
    /// timestamps 2.. between kernels when `stamps` is given.
    fn record(
        &self,
        rec: &mut vqscope_gpu::Recorder<'_>,
        uploader: &FrameUploader,
        up: &DeviceFramePair,
        prev_slot: Option<usize>,
        out: &Buffer,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()> {
        let o = self.offsets;
        let stamp = |rec: &mut vqscope_gpu::Recorder<'_>, i: u32| {
            if let Some(s) = stamps {
                rec.timestamp(s, i);
            }
        };
        let buffer = uploader.slot_buffer(up.slot);
        let (r, d) = (&up.reference, &up.distorted);
        if let Some(kernel) = &self.psnr {
            let refs: Vec<_> = (0..r.plane_count).map(|i| device_plane(buffer, r, i)).collect();
            let dis: Vec<_> = (0..d.plane_count).map(|i| device_plane(buffer, d, i)).collect();
            kernel.record(rec, &refs, &dis, out, o.psnr)?;
        }
        stamp(rec, 2);
        let (r0, d0) = (device_plane(buffer, r, 0), device_plane(buffer, d, 0));
        if let Some(kernel) = &self.adm {
            kernel.record(rec, &r0, &d0, out, o.adm)?;
        }
        stamp(rec, 3);
        if let (Some(kernel), Some(prev_slot)) = (&self.motion, prev_slot) {
            // The earlier reference frame lies at the same offsets in its
            // own slot's buffer.
            let prev = device_plane(uploader.slot_buffer(prev_slot), r, 0);
            kernel.record(rec, prev, r0, out, o.motion)?;
        }
        stamp(rec, 4);
        if let Some(kernel) = &self.vif {
            kernel.record(rec, &r0, &d0, out, o.vif)?;
        }
        stamp(rec, 5);
        if let Some(kernel) = &self.ssim {
            kernel.record(rec, &r0, &d0, out, o.ssim)?;
        }
        stamp(rec, 6);
        if let Some(kernel) = &self.ms_ssim {
            kernel.record(rec, &r0, &d0, out, o.ms_ssim)?;
        }
        stamp(rec, 7);
        Ok(())
    }

    /// Which passes exist, in timestamp order (upload first).
    fn active(&self) -> [bool; 7] {
        [
            true,
            self.psnr.is_some(),
            self.adm.is_some(),
            self.motion.is_some(),
            self.vif.is_some(),
            self.ssim.is_some(),
            self.ms_ssim.is_some(),
        ]
    }
}

impl ScorePipeline {
    /// Builds every selected kernel for clips of `geometry`; size and option
    /// errors come from the kernels (the same as the CPU twins').
    pub fn new(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        selection: FeatureSelection,
    ) -> Result<Self, MetricsError> {
        let (w, h, bpc) = (geometry.width, geometry.height, geometry.format.bit_depth);
        let mut offsets = Offsets::default();
        let mut take = |words: u32| {
            let at = offsets.total;
            offsets.total += words;
            at
        };
        let layout = chroma_layout(&geometry);
        let psnr_setup = selection.psnr.as_ref().map(|p| PsnrSetup::new(p, bpc, w, h, layout));
        let psnr = match &selection.psnr {
            Some(_) => {
                offsets.psnr = take(PsnrKernel::RESULT_WORDS);
                Some(PsnrKernel::new(ctx, w, h, bpc, layout)?)
            }
            None => None,
        };
        let adm = match &selection.adm {
            Some(options) => {
                offsets.adm = take(AdmKernel::RESULT_WORDS);
                Some(AdmKernel::new(ctx, w, h, bpc, options)?)
            }
            None => None,
        };
        let motion_scorer = selection.motion.map(|params| MotionScorer::new(w, h, params));
        let motion = match &selection.motion {
            Some(_) => {
                offsets.motion = take(MotionKernel::RESULT_WORDS);
                Some(MotionKernel::new(ctx, w, h, bpc)?)
            }
            None => None,
        };
        let vif = match &selection.vif {
            Some(options) => {
                offsets.vif = take(VifKernel::RESULT_WORDS);
                Some(VifKernel::new(ctx, w, h, bpc, *options)?)
            }
            None => None,
        };
        let ssim = if selection.float_ssim {
            offsets.ssim = take(SsimKernel::RESULT_WORDS);
            Some(SsimKernel::new(ctx, w, h, bpc, SsimOptions::default())?)
        } else {
            None
        };
        let ms_ssim = if selection.float_ms_ssim {
            offsets.ms_ssim = take(MsSsimKernel::RESULT_WORDS);
            Some(MsSsimKernel::new(ctx, w, h, bpc)?)
        } else {
            None
        };
        let words = u64::from(offsets.total.max(1));
        let results = (0..SLOTS)
            .map(|_| Buffer::readback(ctx, "frame results", words * 8))
            .collect::<vqscope_gpu::Result<Vec<_>>>()?;
        let timestamps = (0..SLOTS)
            .map(|_| Timestamps::new(ctx, PASSES.len() as u32 + 2))
            .collect::<vqscope_gpu::Result<Vec<_>>>()?;
        Ok(Self {
            submitter: Submitter::new(ctx, SLOTS)?,
            uploader: FrameUploader::new(ctx, geometry, SLOTS)?,
            selection,
            geometry,
            kernels: Kernels { psnr, adm, motion, vif, ssim, ms_ssim, offsets },
            psnr_setup,
            motion_scorer,
            results,
            timestamps,
            in_flight: VecDeque::new(),
            recent_slots: VecDeque::new(),
            waiting: BTreeMap::new(),
            last_times: KernelTimes::default(),
            resident_stamps: Timestamps::new(ctx, 2)?,
        })
    }

    /// Bytes the host reads back per frame.
    pub fn readback_bytes(&self) -> u64 {
        u64::from(self.kernels.offsets.total) * 8
    }

    /// GPU time per kernel of the most recently finished frame.
    pub fn last_times(&self) -> &KernelTimes {
        &self.last_times
    }

    /// Submits `pair`; returns the frames whose scores became final.
    pub fn push(&mut self, pair: &FramePair) -> Result<Vec<FrameScores>, MetricsError> {
        let mut done = Vec::new();
        if self.in_flight.len() >= SLOTS - 1 {
            self.complete_oldest(&mut done)?;
        }
        let slot_of = |index: u64, recent: &VecDeque<(u64, usize)>| {
            recent.iter().find(|(i, _)| *i == index).map(|(_, s)| *s)
        };
        // The scorer lags behind submission, so ask its rule, not its state.
        let partner = self.selection.motion.as_ref().and_then(|p| {
            (!p.force_zero && pair.index >= p.min_index()).then(|| pair.index - p.distance())
        });
        let partner_slot = match partner {
            Some(p) => Some(slot_of(p, &self.recent_slots).ok_or_else(|| {
                vqscope_gpu::GpuError::Usage(format!("motion: frame {p} is no longer on the GPU"))
            })?),
            None => None,
        };
        let Self { submitter, uploader, kernels, results, timestamps, .. } = self;
        let mut slot = 0;
        let ticket = submitter.submit(|rec| {
            let stamps = &timestamps[uploader.next_slot()];
            rec.reset_timestamps(stamps);
            rec.timestamp(stamps, 0);
            let up = uploader.upload(rec, pair)?;
            slot = up.slot;
            rec.timestamp(stamps, 1);
            kernels.record(rec, uploader, &up, partner_slot, &results[up.slot], Some(stamps))
        })?;
        self.recent_slots.push_back((pair.index, slot));
        while self.recent_slots.len() > SLOTS {
            self.recent_slots.pop_front();
        }
        self.in_flight.push_back(InFlight {
            ticket,
            slot,
            index: pair.index,
            motion_sad: partner_slot.is_some(),
        });
        Ok(done)
    }

    /// GPU milliseconds per frame with the pair already on the GPU: waits
    /// for everything in flight, uploads `pair` once, then records every
    /// selected kernel `repeats` times back to back in one submission
    /// between two timestamps, so the GPU never idles on the host. Motion
    /// compares the frame with itself (the same work). Returns no scores.
    pub fn time_resident(&mut self, pair: &FramePair, repeats: u32) -> Result<f64, MetricsError> {
        self.submitter.wait_all()?;
        let Self { submitter, uploader, kernels, results, resident_stamps: stamps, .. } = self;
        submitter.run(|rec| {
            let up = uploader.upload(rec, pair)?;
            rec.reset_timestamps(stamps);
            rec.timestamp(stamps, 0);
            for _ in 0..repeats.max(1) {
                kernels.record(rec, uploader, &up, Some(up.slot), &results[up.slot], None)?;
            }
            rec.timestamp(stamps, 1);
            Ok(())
        })?;
        // Leave the ring as if nothing was scored: the next frame starts afresh.
        self.recent_slots.clear();
        let ms = self.resident_stamps.read_intervals_ms()?[0];
        Ok(ms / f64::from(repeats.max(1)))
    }

    /// Waits for every frame in flight and returns all remaining scores.
    pub fn finish(&mut self) -> Result<Vec<FrameScores>, MetricsError> {
        let mut done = Vec::new();
        while !self.in_flight.is_empty() {
            self.complete_oldest(&mut done)?;
        }
        if let Some(scorer) = &mut self.motion_scorer {
            for m in scorer.finish() {
                done.extend(merge_motion(&mut self.waiting, &m, self.selection.debug));
            }
        }
        done.extend(
            std::mem::take(&mut self.waiting)
                .into_iter()
                .map(|(index, values)| FrameScores { index, values }),
        );
        Ok(done)
    }

    /// Waits for the oldest frame in flight and turns its sums into values.
    fn complete_oldest(&mut self, done: &mut Vec<FrameScores>) -> Result<(), MetricsError> {
        let Some(frame) = self.in_flight.pop_front() else { return Ok(()) };
        self.submitter.wait(frame.ticket)?;
        let bytes = self.results[frame.slot].mapped()?;
        let words: Vec<i64> = bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let ms = self.timestamps[frame.slot].read_intervals_ms()?;
        let active = self.kernels.active();
        self.last_times = KernelTimes {
            passes: std::iter::once("upload")
                .chain(PASSES)
                .zip(ms)
                .zip(active)
                .filter_map(|(pass, on)| on.then_some(pass))
                .collect(),
        };
        let values = self.values(&words);
        let o = self.kernels.offsets;
        match &mut self.motion_scorer {
            Some(scorer) => {
                self.waiting.insert(frame.index, values);
                let sad =
                    frame.motion_sad.then(|| MotionKernel::decode(&words[o.motion as usize..]));
                for m in scorer.push(sad) {
                    done.extend(merge_motion(&mut self.waiting, &m, self.selection.debug));
                }
            }
            None => done.push(FrameScores { index: frame.index, values }),
        }
        Ok(())
    }

    /// libvmaf's values (all but motion) from one frame's result words.
    fn values(&self, words: &[i64]) -> Vec<(&'static str, f64)> {
        let o = self.kernels.offsets;
        let k = &self.kernels;
        let debug = self.selection.debug;
        let at = |offset: u32| &words[offset as usize..];
        let mut v = Vec::new();
        if let Some(setup) = &self.psnr_setup {
            let sse = PsnrKernel::decode(at(o.psnr));
            let names = ["psnr_y", "psnr_cb", "psnr_cr"];
            for (i, name) in names.iter().enumerate().take(setup.planes) {
                let (pw, ph) = self.geometry.plane_size(i);
                v.push((*name, setup.psnr(i, sse[i], pw, ph)));
            }
        }
        if let (Some(_), Some(options)) = (&k.adm, &self.selection.adm) {
            let scores = adm_scores(
                &AdmKernel::decode(at(o.adm)),
                self.geometry.width as usize,
                self.geometry.height as usize,
                options,
            );
            let named = scores.named();
            v.extend(named.into_iter().filter(|(n, _)| debug || !is_adm_debug(n)));
        }
        if let Some(vif) = &k.vif {
            let features = vif_features(&vif.decode(at(o.vif)));
            v.extend(features.named().into_iter().filter(|(n, _)| {
                debug || n.contains("_scale") && !n.contains("num") && !n.contains("den")
            }));
        }
        if k.ssim.is_some() {
            v.push(("float_ssim", SsimKernel::decode(at(o.ssim)).ssim));
        }
        if k.ms_ssim.is_some() {
            v.push(("float_ms_ssim", MsSsimKernel::decode(at(o.ms_ssim)).ms_ssim));
        }
        v
    }
}

fn is_adm_debug(name: &str) -> bool {
    name == "integer_adm" || name.contains("_num") || name.contains("_den")
}

/// Adds motion's values to a waiting frame and releases it.
fn merge_motion(
    waiting: &mut BTreeMap<u64, Vec<(&'static str, f64)>>,
    m: &crate::motion::MotionFrame,
    debug: bool,
) -> Option<FrameScores> {
    let mut values = waiting.remove(&m.index)?;
    // libvmaf writes the SAD score among the per-frame features and motion2
    // and motion3 at the end (they are written when the clip is flushed).
    let vif_at =
        values.iter().position(|(n, _)| n.starts_with("integer_vif")).unwrap_or(values.len());
    values.insert(vif_at, ("VMAF_integer_feature_motion_sad_score", m.motion));
    if debug {
        values.push(("integer_motion", m.motion));
    }
    values.push(("integer_motion2", m.motion2));
    values.push(("integer_motion3", m.motion3));
    Some(FrameScores { index: m.index, values })
}
