//! `cambi` (`cambi`, and with `full_ref` also `cambi_source` and
//! `cambi_full_reference`): the exact CPU twin of libvmaf 3.2.0's CAMBI
//! extractor (`feature/cambi.c`), Netflix's contrast-aware multiscale
//! banding index. It scores the distorted luma alone; `full_ref` scores
//! the reference the same way and reports how much banding the encode
//! added.
//!
//! Per picture, in libvmaf's order:
//!
//! 1. [`preprocess`]: the luma is taken by nearest-sample decimation to the
//!    working size (`enc_width`x`enc_height` for the distorted,
//!    `src_width`x`src_height` for the reference; the input size by
//!    default, never larger for the encode) and converted to 10 bits; an
//!    encode below 10 bits (`enc_bitdepth`) is then smoothed 2x2 against
//!    dithering.
//! 2. [`mask`]: the spatial mask of flat areas at the working size.
//! 3. For each of five scales: the image and mask are decimated 2x (from
//!    the second scale on, or from the first with `cambi_high_res_speedup`
//!    on large encodes), the image is mode-filtered ([`scale`]), every
//!    masked pixel gets its c-value from the histograms of its window
//!    ([`cvalues`]) and the scale's score is the mean of the top `topk`
//!    fraction of c-values ([`pooling`]).
//! 4. The score is the scales' weighted sum (16, 8, 4, 2, 1) over the
//!    window's area, capped at `cambi_max_val`.
//!
//! The window (`window_size`, 65 at 4K) scales with `(width + height)`
//! of the working size, and is halved again with the speed-up. Which
//! contrast steps count comes from `tvi_threshold`, `max_log_contrast`,
//! `cambi_vis_lum_threshold` and the display `eotf` ([`luminance`]).
//!
//! Exactness: everything up to the c-values is integer. The c-values are
//! floats computed as libvmaf computes them (integer product to float,
//! times a float reciprocal from libvmaf's own table); the top-k mean adds
//! those floats into a double in the order libvmaf's partial quickselect
//! leaves them, and the scale weighting is in double. Nothing is carried
//! from frame to frame: each frame's score depends on that frame alone.
//!
//! `heatmaps_path` (libvmaf's dump of every scale's c-values to 16-bit
//! files) is [`heatmap`], fed from the GPU's c-value maps.
//! Where a scaled side is shorter than half the window libvmaf's loops
//! read outside the picture (undefined); the twin refuses such sizes, and
//! the `cambi_vis_lum_threshold`/`max_log_contrast` pairs on which libvmaf
//! 3.2.0 crashes.
//!
//! Checked against libvmaf 3.2.0 (`tests/tests/cpu_cambi_parity.rs`):
//! every printed value of the shared reports, and for five more option
//! sets libvmaf's doubles bit for bit.
//!
//! # On the GPU ([`gpu`])
//!
//! Each step is an integer kernel over the shared luma plane, per picture
//! (distorted, and reference with `full_ref`):
//!
//! - preprocessing: one kernel gathering the working-size samples through
//!   two index tables (x and y) computed on the host by
//!   [`preprocess::sample_positions`], since libvmaf's positions come from
//!   a sequential float walk; the 10-bit conversion and the 2x2
//!   anti-dithering fused in (the filter reads only unfiltered samples);
//! - mask: one kernel deriving the zero-derivative map of a tile and its
//!   halo in shared memory, then the 7x7 counts and the
//!   [`mask::mask_index`] comparison;
//! - per scale: 2x decimation of the image (the mask is read at the
//!   scale's stride), the 3x3 mode filter, and the grid of counted codes
//!   (masked and inside the histogram band); from here on the scales are
//!   independent, and each of the following steps is one dispatch for all
//!   five;
//! - c-values: libvmaf's sliding histograms are sequential along a row; on
//!   the GPU a workgroup keeps one histogram per column over the window's
//!   rows (a chunk of codes at a time), slides them down its rows (how
//!   many the host picks for the device), and each
//!   counted pixel adds the `2·num_diffs + 1` counts around its code over
//!   the window's columns (O(window) reads a pixel). The counts are the same
//!   integers; the c-value is then
//!   `float(int product) · reciprocal[n]` from the same table, one
//!   correctly rounded float multiply (`precise`), the maximum exact;
//! - pooling: the top-k multiset is unique, so the quickselect becomes a
//!   radix select on the float bits (c-values are non-negative, so their
//!   bits order like their values): a histogram of the high 16 bits finds
//!   the bin of the k-th largest value, a second pass sums the values
//!   above it and histograms the low 16 bits inside it, and a last step
//!   takes that bin's values from the top, ties included. Every non-zero
//!   c-value is a float of at least 0.5 (`p0, p ≥ 1`), so a multiple of
//!   2^-24 below 2^14, and the sum is an exact 64-bit integer in units of
//!   2^-24. The host turns it into a double (one rounding) and divides by
//!   k; libvmaf adds the same floats in double in quickselect order, which
//!   is exact too while the sum stays below 2^29, so the two agree bit for
//!   bit below that (checked on random frames against this twin and on
//!   the shared clips against libvmaf). The five scale means and the
//!   weighting stay on the host.

pub mod cvalues;
pub mod feature;
pub mod gpu;
pub mod heatmap;
pub mod luminance;
pub mod mask;
pub mod pooling;
pub mod preprocess;
pub mod scale;

use crate::MetricsError;
use crate::plane::PlaneView;

pub use luminance::Eotf;

use cvalues::{Contrast, RECIPROCAL_LEN};

/// The name libvmaf's extractor goes by.
pub const FEATURE: &str = "cambi";
/// Scales CAMBI pools over.
pub const NUM_SCALES: usize = 5;
/// Working sides below which libvmaf refuses (both sides below it).
pub const MIN_WIDTH_HEIGHT: u32 = 216;

/// A 10-bit working plane, row-major and tightly packed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    pub width: usize,
    pub height: usize,
    pub data: Vec<u16>,
}

/// libvmaf's `cambi` options, by their libvmaf names, with libvmaf's
/// defaults ([`Default`]). The size and depth options use 0 for "take the
/// input's", as libvmaf does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CambiOptions {
    /// `cambi_max_val` (`cmxv`): cap of every output, in `[0, 1000]`.
    pub cambi_max_val: f64,
    /// `enc_width` (`encw`), in `[180, 7680]` or 0.
    pub enc_width: u32,
    /// `enc_height` (`ench`), in `[150, 7680]` or 0.
    pub enc_height: u32,
    /// `enc_bitdepth` (`encbd`), in `[6, 16]` or 0.
    pub enc_bitdepth: u32,
    /// `src_width` (`srcw`), in `[320, 7680]` or 0; `full_ref` only.
    pub src_width: u32,
    /// `src_height` (`srch`), in `[200, 4320]` or 0; `full_ref` only.
    pub src_height: u32,
    /// `window_size` (`ws`), in `[15, 127]`: the window at 4K.
    pub window_size: u16,
    /// `topk`, in `[0.0001, 1]`: used when not at its default 0.6.
    pub topk: f64,
    /// `cambi_topk` (`ctpk`), in `[0.0001, 1]`: used when `topk` is 0.6.
    pub cambi_topk: f64,
    /// `tvi_threshold` (`tvit`), in `[0.0001, 1]`.
    pub tvi_threshold: f64,
    /// `cambi_vis_lum_threshold` (`vlt`), in `[0, 300]` cd/m².
    pub cambi_vis_lum_threshold: f64,
    /// `max_log_contrast` (`mlc`), in `[0, 5]`.
    pub max_log_contrast: u32,
    /// `full_ref`: also score the reference.
    pub full_ref: bool,
    /// `eotf`: used when `cambi_eotf` is at its default.
    pub eotf: Eotf,
    /// `cambi_eotf` (`ceot`): wins when not `bt1886`.
    pub cambi_eotf: Eotf,
    /// `cambi_high_res_speedup` (`hrs`): 1080, 1440 or 2160 decimates
    /// right after the mask for encodes of at least that many pixels; any
    /// other value (default 0) is off. In `[0, 2160]`.
    pub cambi_high_res_speedup: u32,
}

impl Default for CambiOptions {
    fn default() -> Self {
        Self {
            cambi_max_val: 1000.0,
            enc_width: 0,
            enc_height: 0,
            enc_bitdepth: 0,
            src_width: 0,
            src_height: 0,
            window_size: 65,
            topk: DEFAULT_TOPK,
            cambi_topk: DEFAULT_TOPK,
            tvi_threshold: 0.019,
            cambi_vis_lum_threshold: 0.0,
            max_log_contrast: 2,
            full_ref: false,
            eotf: Eotf::Bt1886,
            cambi_eotf: Eotf::Bt1886,
            cambi_high_res_speedup: 0,
        }
    }
}

/// Default of both top-k options.
const DEFAULT_TOPK: f64 = 0.6;

impl CambiOptions {
    /// Refuses a value outside libvmaf's option range (the size and depth
    /// options may also be 0, "unset").
    pub fn validate(&self) -> Result<(), MetricsError> {
        let int = |option: &'static str, value: u32, lo: u32, hi: u32, zero: bool| {
            if (zero && value == 0) || (lo..=hi).contains(&value) {
                return Ok(());
            }
            let allowed = match option {
                "enc_width" => "180 to 7680, or 0 for the input's",
                "enc_height" => "150 to 7680, or 0 for the input's",
                "enc_bitdepth" => "6 to 16, or 0 for the input's",
                "src_width" => "320 to 7680, or 0 for the input's",
                "src_height" => "200 to 4320, or 0 for the input's",
                "window_size" => "15 to 127",
                "max_log_contrast" => "0 to 5",
                _ => "0 to 2160",
            };
            Err(MetricsError::OptionOutOfRange {
                feature: FEATURE,
                option,
                value: i64::from(value),
                allowed,
            })
        };
        int("enc_width", self.enc_width, 180, 7680, true)?;
        int("enc_height", self.enc_height, 150, 7680, true)?;
        int("enc_bitdepth", self.enc_bitdepth, 6, 16, true)?;
        int("src_width", self.src_width, 320, 7680, true)?;
        int("src_height", self.src_height, 200, 4320, true)?;
        int("window_size", u32::from(self.window_size), 15, 127, false)?;
        int("max_log_contrast", self.max_log_contrast, 0, 5, false)?;
        int("cambi_high_res_speedup", self.cambi_high_res_speedup, 0, 2160, false)?;
        let double = |option: &'static str, value: f64, lo: f64, hi: f64, allowed| {
            if (lo..=hi).contains(&value) {
                Ok(())
            } else {
                Err(MetricsError::FloatOptionOutOfRange {
                    feature: FEATURE,
                    option,
                    value,
                    allowed,
                })
            }
        };
        double("cambi_max_val", self.cambi_max_val, 0.0, 1000.0, "0 to 1000")?;
        double("topk", self.topk, 0.0001, 1.0, "0.0001 to 1")?;
        double("cambi_topk", self.cambi_topk, 0.0001, 1.0, "0.0001 to 1")?;
        double("tvi_threshold", self.tvi_threshold, 0.0001, 1.0, "0.0001 to 1")?;
        double("cambi_vis_lum_threshold", self.cambi_vis_lum_threshold, 0.0, 300.0, "0 to 300")
    }
}

/// libvmaf's `adjust_window_size`: the 4K window scaled by
/// `(width + height) / (3840 + 2160)` in integers (`·(w+h)/375 >> 4`),
/// halved (rounding up) with the speed-up, made odd.
pub fn adjust_window(window: u16, width: u32, height: u32, speedup: bool) -> u16 {
    let mut w = (((u32::from(window) * (width + height)) / 375) >> 4) as u16;
    if speedup {
        w = (w + 1) >> 1;
    }
    w | 1
}

/// One side's working size and window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Working {
    pub width: usize,
    pub height: usize,
    pub window: u16,
}

/// A CAMBI extractor set up for inputs of one size and depth: libvmaf's
/// `init` (sizes resolved, thresholds tabulated), ready to score frames.
#[derive(Debug, Clone)]
pub struct Cambi {
    input: (usize, usize, u32),
    encode: Working,
    source: Working,
    enc_bitdepth: u32,
    speedup: bool,
    topk: f64,
    max_val: f64,
    full_ref: bool,
    contrast: Contrast,
}

/// A frame's outputs; `source` and `full_reference` only with `full_ref`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CambiScore {
    pub cambi: f64,
    pub source: Option<f64>,
    pub full_reference: Option<f64>,
}

/// libvmaf's `MIN(x, cap)`: `x` unless it is at least the cap.
fn cap(x: f64, max: f64) -> f64 {
    if x < max { x } else { max }
}

impl Cambi {
    /// Sets CAMBI up for `width`x`height` inputs of `bpc` bits, refusing
    /// what libvmaf's `init` refuses.
    pub fn new(
        options: &CambiOptions,
        width: usize,
        height: usize,
        bpc: u32,
    ) -> Result<Self, MetricsError> {
        options.validate()?;
        if !(8..=16).contains(&bpc) {
            return Err(MetricsError::OptionOutOfRange {
                feature: FEATURE,
                option: "bpc",
                value: i64::from(bpc),
                allowed: "8 to 16",
            });
        }
        let too_small =
            |reason| Err(MetricsError::FrameTooSmall { feature: FEATURE, width, height, reason });
        if width == 0 || height == 0 || width > 1 << 16 || height > 1 << 16 {
            return too_small("CAMBI needs a frame of 1 to 65536 samples a side");
        }
        let (w, h) = (width as u32, height as u32);
        let enc_bitdepth = if options.enc_bitdepth == 0 { bpc } else { options.enc_bitdepth };
        let (mut enc_w, mut enc_h) = match (options.enc_width, options.enc_height) {
            (0, _) | (_, 0) => (w, h),
            size => size,
        };
        let (src_w, src_h) = match (options.src_width, options.src_height) {
            (0, _) | (_, 0) => (w, h),
            size => size,
        };
        // An encode downscaled before coding is scored at the input size.
        if enc_h > h || enc_w > w {
            (enc_w, enc_h) = (w, h);
        }
        if enc_w < MIN_WIDTH_HEIGHT && enc_h < MIN_WIDTH_HEIGHT {
            return too_small(
                "CAMBI's working size (enc_width x enc_height) needs a side of 216 or more",
            );
        }
        if src_w < MIN_WIDTH_HEIGHT && src_h < MIN_WIDTH_HEIGHT {
            return too_small(
                "CAMBI's source size (src_width x src_height) needs a side of 216 or more",
            );
        }
        if (src_w > enc_w && src_h < enc_h) || (src_w < enc_w && src_h > enc_h) {
            return Err(MetricsError::FeatureOption {
                feature: FEATURE.to_owned(),
                option: "src_width/src_height".to_owned(),
                reason: format!(
                    "the source {src_w}x{src_h} must not be wider but shorter (or narrower but \
                     taller) than the encode {enc_w}x{enc_h}"
                ),
            });
        }
        let threshold = match options.cambi_high_res_speedup {
            1080 => Some(1920 * 1080),
            1440 => Some(2560 * 1440),
            2160 => Some(3840 * 2160),
            _ => None,
        };
        let speedup = threshold.is_some_and(|t| enc_w * enc_h >= t);
        let encode = Working {
            width: enc_w as usize,
            height: enc_h as usize,
            window: adjust_window(options.window_size, enc_w, enc_h, speedup),
        };
        let source = Working {
            width: src_w as usize,
            height: src_h as usize,
            window: adjust_window(options.window_size, src_w, src_h, speedup),
        };
        let max_window = usize::from(encode.window.max(source.window));
        if max_window * max_window >= RECIPROCAL_LEN {
            return Err(MetricsError::FeatureOption {
                feature: FEATURE.to_owned(),
                option: "window_size".to_owned(),
                reason: format!(
                    "the window of {max_window} pixels at this size is too large for libvmaf's \
                     reciprocal table (at most 65)"
                ),
            });
        }
        for side in [Some(encode), options.full_ref.then_some(source)].into_iter().flatten() {
            check_scales(side, speedup)?;
        }
        let eotf =
            if options.cambi_eotf != Eotf::Bt1886 { options.cambi_eotf } else { options.eotf };
        let num_diffs = 1u16 << options.max_log_contrast;
        let tvi = (1..=num_diffs)
            .map(|d| {
                luminance::tvi_for_diff(i32::from(d), options.tvi_threshold, eotf) as u16
                    + num_diffs
            })
            .collect();
        let vlt_luma = luminance::vlt_luma(options.cambi_vis_lum_threshold, eotf);
        let contrast = Contrast { num_diffs, tvi, vlt_luma };
        if contrast.band().is_none() {
            return Err(MetricsError::FeatureOption {
                feature: FEATURE.to_owned(),
                option: "cambi_vis_lum_threshold".to_owned(),
                reason: format!(
                    "{} cd/m² lies too far above the visibility thresholds of max_log_contrast={} \
                     (libvmaf 3.2.0 crashes on this combination)",
                    options.cambi_vis_lum_threshold, options.max_log_contrast
                ),
            });
        }
        let topk = if options.topk != DEFAULT_TOPK { options.topk } else { options.cambi_topk };
        Ok(Self {
            input: (width, height, bpc),
            encode,
            source,
            enc_bitdepth,
            speedup,
            topk,
            max_val: options.cambi_max_val,
            full_ref: options.full_ref,
            contrast,
        })
    }

    /// The window (pixels a side) the distorted picture is scored with.
    pub fn window(&self) -> u16 {
        self.encode.window
    }

    /// The contrast steps and thresholds in use.
    pub fn contrast(&self) -> &Contrast {
        &self.contrast
    }

    /// The input size and depth it was set up for.
    pub fn input(&self) -> (usize, usize, u32) {
        self.input
    }

    /// The working size and window of the distorted picture (`source`
    /// false) or of the reference.
    pub fn working(&self, source: bool) -> Working {
        if source { self.source } else { self.encode }
    }

    /// Whether the reference is scored too.
    pub fn full_ref(&self) -> bool {
        self.full_ref
    }

    /// Whether the encode is smoothed against dithering (below 10 bits).
    pub fn anti_dither(&self) -> bool {
        self.enc_bitdepth < 10
    }

    /// Whether the first scale is already decimated (the speed-up).
    pub fn speedup(&self) -> bool {
        self.speedup
    }

    /// The sizes of a side's five scales.
    pub fn scale_sizes(&self, source: bool) -> [(usize, usize); NUM_SCALES] {
        scale_sizes(self.working(source), self.speedup)
    }

    /// How many c-values each scale of a side pools.
    pub fn topk_counts(&self, source: bool) -> [usize; NUM_SCALES] {
        self.scale_sizes(source).map(|(w, h)| pooling::topk_count(self.topk, w * h))
    }

    /// A side's uncapped score from its five per-scale pooled means.
    pub fn weigh(&self, scales: &[f64; NUM_SCALES], source: bool) -> f64 {
        pooling::weight_scales(scales, self.working(source).window)
    }

    /// The outputs from the uncapped scores of the distorted picture and,
    /// with `full_ref`, of the reference: capped at `cambi_max_val`, the
    /// reference's excess floored at 0.
    pub fn combine(&self, dist: f64, src: Option<f64>) -> CambiScore {
        let cambi = cap(dist, self.max_val);
        let Some(src) = src.filter(|_| self.full_ref) else {
            return CambiScore { cambi, source: None, full_reference: None };
        };
        let added = dist - src;
        let added = if 0.0 > added { 0.0 } else { added };
        CambiScore {
            cambi,
            source: Some(cap(src, self.max_val)),
            full_reference: Some(cap(added, self.max_val)),
        }
    }

    /// A frame's outputs from the distorted luma and, with `full_ref`, the
    /// reference luma (ignored otherwise).
    pub fn score(
        &self,
        distorted: &PlaneView<'_>,
        reference: &PlaneView<'_>,
    ) -> Result<CambiScore, MetricsError> {
        in_range(distorted, "distorted")?;
        let dist = self.picture_score(distorted, self.encode)?;
        let src = if self.full_ref {
            in_range(reference, "reference")?;
            Some(self.picture_score(reference, self.source)?)
        } else {
            None
        };
        Ok(self.combine(dist, src))
    }

    /// The distorted picture's c-value map at each of the five scales
    /// (row-major, at [`Cambi::scale_sizes`]): what libvmaf's
    /// `heatmaps_path` dumps ([`heatmap`]) before pooling.
    pub fn c_value_maps(&self, distorted: &PlaneView<'_>) -> Result<Vec<Vec<f32>>, MetricsError> {
        in_range(distorted, "distorted")?;
        let mut maps = Vec::with_capacity(NUM_SCALES);
        self.picture_c_values(distorted, self.encode, |c| maps.push(c.to_vec()))?;
        Ok(maps)
    }

    /// One picture's uncapped score at working size `side` (libvmaf's
    /// `preprocess_and_extract_cambi`).
    fn picture_score(&self, plane: &PlaneView<'_>, side: Working) -> Result<f64, MetricsError> {
        let mut scores = [0f64; NUM_SCALES];
        let mut s = 0;
        self.picture_c_values(plane, side, |c| {
            scores[s] = pooling::spatial_pooling(c, self.topk);
            s += 1;
        })?;
        Ok(pooling::weight_scales(&scores, side.window))
    }

    /// Hands each scale's c-values of one picture at working size `side`
    /// to `each`, in scale order (libvmaf's `cambi_score` up to pooling).
    fn picture_c_values(
        &self,
        plane: &PlaneView<'_>,
        side: Working,
        mut each: impl FnMut(&mut Vec<f32>),
    ) -> Result<(), MetricsError> {
        let (width, height, bpc) = self.input;
        if (plane.width, plane.height, plane.bpc) != (width, height, bpc) {
            return Err(MetricsError::Usage(format!(
                "cambi: set up for {width}x{height} at {bpc} bits, given a {}x{} plane at {} bits",
                plane.width, plane.height, plane.bpc
            )));
        }
        let max = u16::MAX >> (16 - bpc);
        if let Some(v) = (0..height).flat_map(|y| plane.row(y)).find(|&&v| v > max) {
            return Err(MetricsError::Usage(format!(
                "cambi: sample value {v} exceeds the maximum {max} of {bpc}-bit input"
            )));
        }
        let mut image = preprocess::decimate_to_10_bit(plane, side.width, side.height);
        if self.enc_bitdepth < 10 {
            preprocess::anti_dither(&mut image);
        }
        let mut mask = mask::spatial_mask(&image);
        for s in 0..NUM_SCALES {
            if s > 0 || self.speedup {
                image = scale::decimate(&image);
                mask = scale::decimate(&mask);
            }
            scale::filter_mode(&mut image);
            let mut c = cvalues::c_values(&image, &mask, usize::from(side.window), &self.contrast);
            each(&mut c);
        }
        Ok(())
    }
}

/// The sizes of the five scales of a `side` picture.
fn scale_sizes(side: Working, speedup: bool) -> [(usize, usize); NUM_SCALES] {
    let (mut w, mut h) = (side.width, side.height);
    std::array::from_fn(|s| {
        if s > 0 || speedup {
            (w, h) = ((w + 1) >> 1, (h + 1) >> 1);
        }
        (w, h)
    })
}

/// Refuses a size whose smallest scale is shorter than half the window on
/// a side: libvmaf's histogram loops then read outside the picture.
/// libvmaf's refusal of a `picture` with samples past its bit depth.
fn in_range(plane: &PlaneView<'_>, picture: &'static str) -> Result<(), MetricsError> {
    if preprocess::exceeds_bit_depth(plane) {
        return Err(out_of_range(picture, None, plane.bpc));
    }
    Ok(())
}

/// The error for a `picture` (of `frame`, where known) with samples past
/// bit depth `bpc`.
pub fn out_of_range(picture: &'static str, frame: Option<u64>, bpc: u32) -> MetricsError {
    MetricsError::SampleOutOfRange { feature: "cambi", picture, frame, bpc }
}

fn check_scales(side: Working, speedup: bool) -> Result<(), MetricsError> {
    let pad = usize::from(side.window >> 1);
    let (w, h) = scale_sizes(side, speedup)[NUM_SCALES - 1];
    if w < pad || h < pad {
        return Err(MetricsError::FrameTooSmall {
            feature: FEATURE,
            width: side.width,
            height: side.height,
            reason: "at CAMBI's coarsest scale a side is shorter than half its window, where \
                     libvmaf's result is undefined",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window at the shared clips' sizes: 576x324: 65·900/375 = 156,
    /// shifted down 4: 9; 1920x1080: 520, 32, odd 33; with the speed-up
    /// halved rounding up: 16, odd 17; 3840x2160: 1040, 65.
    #[test]
    fn window_sizes() {
        assert_eq!(adjust_window(65, 576, 324, false), 9);
        assert_eq!(adjust_window(65, 1920, 1080, false), 33);
        assert_eq!(adjust_window(65, 1920, 1080, true), 17);
        assert_eq!(adjust_window(65, 3840, 2160, false), 65);
    }

    #[test]
    fn speedup_only_for_large_encodes() {
        let opts = CambiOptions { cambi_high_res_speedup: 1080, ..Default::default() };
        assert_eq!(Cambi::new(&opts, 1920, 1080, 8).unwrap().window(), 17);
        assert_eq!(Cambi::new(&opts, 1920, 1078, 8).unwrap().window(), 33);
        let opts = CambiOptions { cambi_high_res_speedup: 1440, ..Default::default() };
        assert_eq!(Cambi::new(&opts, 1920, 1080, 8).unwrap().window(), 33);
        // An encode size larger than the input falls back to the input's.
        let opts = CambiOptions { enc_width: 3840, enc_height: 2160, ..Default::default() };
        assert_eq!(Cambi::new(&opts, 576, 324, 8).unwrap().window(), 9);
    }

    /// libvmaf's defaults: 4 contrast steps, no luminance floor, and with
    /// BT.1886 at 0.019 thresholds that rise with the step.
    #[test]
    fn default_contrast() {
        let c = Cambi::new(&CambiOptions::default(), 576, 324, 10).unwrap();
        let contrast = c.contrast();
        assert_eq!(contrast.num_diffs, 4);
        assert_eq!(contrast.vlt_luma, 0);
        assert!(contrast.tvi.windows(2).all(|t| t[0] <= t[1]), "{:?}", contrast.tvi);
        for (d, &t) in contrast.tvi.iter().enumerate() {
            assert_eq!(
                i32::from(t) - 4,
                luminance::tvi_for_diff(d as i32 + 1, 0.019, Eotf::Bt1886)
            );
        }
    }

    #[test]
    fn refuses_what_libvmaf_refuses() {
        let d = CambiOptions::default();
        assert!(Cambi::new(&d, 200, 200, 8).is_err());
        assert!(Cambi::new(&d, 216, 100, 8).is_ok());
        assert!(Cambi::new(&d, 576, 324, 7).is_err());
        let bad = CambiOptions { window_size: 14, ..d };
        assert!(Cambi::new(&bad, 576, 324, 8).is_err());
        let bad = CambiOptions { topk: 0.0, ..d };
        assert!(Cambi::new(&bad, 576, 324, 8).is_err());
        let crossed = CambiOptions { src_width: 640, src_height: 300, full_ref: true, ..d };
        assert!(Cambi::new(&crossed, 576, 324, 8).is_err());
        // libvmaf 3.2.0 segfaults on this pair (its histogram band turns
        // negative): refused.
        let crash = CambiOptions { max_log_contrast: 0, cambi_vis_lum_threshold: 5.0, ..d };
        assert!(Cambi::new(&crash, 576, 324, 8).is_err());
        // 8K exceeds the reciprocal table's window.
        assert!(Cambi::new(&d, 7680, 4320, 8).is_err());
        let c = Cambi::new(&d, 576, 324, 8).unwrap();
        let s = vec![300u16; 576 * 324];
        let p = PlaneView::packed(576, 324, 8, &s);
        assert!(c.score(&p, &p).is_err(), "a sample above 255 at 8 bits");
    }

    /// A flat frame has no banding; a frame of two flat dark halves one
    /// 10-bit code apart has a visible step.
    #[test]
    fn flat_and_step_frames() {
        let c = Cambi::new(&CambiOptions::default(), 256, 216, 10).unwrap();
        let flat = vec![500u16; 256 * 216];
        let p = PlaneView::packed(256, 216, 10, &flat);
        assert_eq!(c.score(&p, &p).unwrap().cambi, 0.0);
        let step: Vec<u16> =
            (0..256 * 216).map(|i| if i % 256 < 128 { 100 } else { 101 }).collect();
        let p = PlaneView::packed(256, 216, 10, &step);
        assert!(c.score(&p, &p).unwrap().cambi > 0.0);
    }

    /// `full_ref`: the reference's score and the distorted's excess over it.
    #[test]
    fn full_reference_outputs() {
        let opts = CambiOptions { full_ref: true, ..Default::default() };
        let c = Cambi::new(&opts, 256, 216, 10).unwrap();
        let flat = vec![500u16; 256 * 216];
        let step: Vec<u16> =
            (0..256 * 216).map(|i| if i % 256 < 128 { 100 } else { 101 }).collect();
        let (f, s) =
            (PlaneView::packed(256, 216, 10, &flat), PlaneView::packed(256, 216, 10, &step));
        let banded = c.score(&s, &f).unwrap();
        assert_eq!(banded.source, Some(0.0));
        assert_eq!(banded.full_reference, Some(banded.cambi));
        let cleaner = c.score(&f, &s).unwrap();
        assert_eq!(cleaner.full_reference, Some(0.0));
        assert_eq!(cleaner.source, Some(banded.cambi));
    }
}
