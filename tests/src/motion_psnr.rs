//! The libvmaf parity check of integer motion and PSNR, shared by the CPU
//! twin's test and the GPU kernels' test: read the clip or fixture frames,
//! get the SADs and SSEs from a [`Backend`], turn them into scores with the
//! host code ([`MotionScorer`], [`PsnrSetup`]) and compare every per-frame
//! `integer_motion`, `integer_motion2`, `integer_motion3`,
//! `VMAF_integer_feature_motion_sad_score` and `psnr_y/cb/cr` with
//! libvmaf's `%.6f` digits. [`check_v1_options`] does the motion values
//! again with the options of libvmaf's v1.0.16 models (`motion_max_val`,
//! and the HFR models' five-frame window and moving average) against
//! `refs/NAME.models.json`, under the registry's option-suffixed names.

use std::path::Path;

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::Feature;
use vqscope_metrics::features::motion::feature::{Motion, motion_params};
use vqscope_metrics::features::motion::{MotionFrame, MotionParams, MotionScorer};
use vqscope_metrics::features::psnr::{ChromaLayout, PsnrParams, PsnrSetup};
use vqscope_video::frame::{ChromaFormat, Frame};
use vqscope_video::raw::{RawFile, RawGeometry};
use vqscope_video::y4m::Y4mFile;

use crate::clips::{self, PAIRS, libvmaf_frames, libvmaf_json, libvmaf_ref_json, printed};

/// What computes the integer sums: the CPU twin or a GPU kernel.
pub trait Backend {
    /// The motion SAD of `prev − cur` (reference luma planes).
    fn sad(&mut self, prev: &Plane, cur: &Plane) -> u64;
    /// The SSE of each scored plane pair (1 or 3 of them), 0 for the rest.
    fn sse(&mut self, layout: ChromaLayout, reference: &[Plane], distorted: &[Plane]) -> [u64; 3];
}

/// Plane `i` of a frame as owned samples plus its size and depth.
pub struct Plane {
    pub w: usize,
    pub h: usize,
    pub bpc: u32,
    pub samples: Vec<u16>,
}

impl Plane {
    pub fn of(frame: &Frame, i: usize) -> Self {
        let (w, h) = frame.geometry.plane_size(i);
        Plane {
            w: w as usize,
            h: h as usize,
            bpc: frame.geometry.format.bit_depth,
            samples: frame.plane_samples(i),
        }
    }

    pub fn view(&self) -> PlaneView<'_> {
        PlaneView::packed(self.w, self.h, self.bpc, &self.samples)
    }
}

/// Our per-frame values, in frame order.
#[derive(Default)]
pub struct Ours {
    pub motion: Vec<MotionFrame>,
    pub psnr: [Vec<f64>; 3],
}

/// Scores a sequence of (reference, distorted) frames the way a pipeline
/// would: motion streams through [`MotionScorer`] (with `params`), one or
/// more frames late.
pub fn score(
    backend: &mut dyn Backend,
    pairs: impl Iterator<Item = (Frame, Frame)>,
    params: MotionParams,
) -> Ours {
    let mut ours = Ours::default();
    let mut scorer: Option<MotionScorer> = None;
    let mut setup: Option<PsnrSetup> = None;
    let mut history: Vec<Plane> = Vec::new();
    for (reference, distorted) in pairs {
        let g = reference.geometry;
        assert_eq!(g, distorted.geometry, "reference and distorted geometry");
        let layout = ChromaLayout::from(g.format.chroma);
        let scorer = scorer.get_or_insert_with(|| MotionScorer::new(g.width, g.height, params));
        let setup = setup.get_or_insert_with(|| {
            let bpc = g.format.bit_depth;
            PsnrSetup::new(&PsnrParams::default(), bpc, g.width, g.height, layout)
        });

        let luma = Plane::of(&reference, 0);
        let index = scorer.pushed();
        let sad = scorer.sad_partner().map(|partner| {
            let back = (index - partner) as usize;
            backend.sad(&history[history.len() - back], &luma)
        });
        ours.motion.extend(scorer.push(sad));
        history.push(luma);
        if history.len() > 2 {
            history.remove(0);
        }

        let r: Vec<Plane> = (0..setup.planes).map(|p| Plane::of(&reference, p)).collect();
        let d: Vec<Plane> = (0..setup.planes).map(|p| Plane::of(&distorted, p)).collect();
        let sse = backend.sse(layout, &r, &d);
        for (p, plane) in r.iter().enumerate() {
            ours.psnr[p].push(setup.psnr(p, sse[p], plane.w as u32, plane.h as u32));
        }
    }
    if let Some(scorer) = scorer.as_mut() {
        ours.motion.extend(scorer.finish());
    }
    ours
}

/// Counts the frames whose printed value differs from libvmaf's, printing
/// each difference.
fn mismatches(name: &str, key: &str, ours: &[f64], theirs: &[f64]) -> usize {
    assert_eq!(ours.len(), theirs.len(), "{name} {key}: frame count");
    let mut bad = 0;
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        if printed(*a) != printed(*b) {
            eprintln!("{name} {key} frame {i}: ours {} libvmaf {}", printed(*a), printed(*b));
            bad += 1;
        }
    }
    bad
}

/// Compares everything against `vmaf` (model run) and `features` (debug run)
/// JSON; returns the total mismatch count after printing one line per key.
pub fn compare(
    name: &str,
    ours: &Ours,
    vmaf: &serde_json::Value,
    features: &serde_json::Value,
) -> usize {
    let pick = |f: fn(&MotionFrame) -> f64| ours.motion.iter().map(f).collect::<Vec<_>>();
    let indices: Vec<u64> = ours.motion.iter().map(|f| f.index).collect();
    assert_eq!(
        indices,
        (0..indices.len() as u64).collect::<Vec<_>>(),
        "{name}: motion frame order"
    );
    let checks: [(&str, Vec<f64>, &serde_json::Value); 7] = [
        ("integer_motion2", pick(|f| f.motion2), vmaf),
        ("integer_motion3", pick(|f| f.motion3), vmaf),
        ("VMAF_integer_feature_motion_sad_score", pick(|f| f.motion), vmaf),
        ("integer_motion", pick(|f| f.motion), features),
        ("psnr_y", ours.psnr[0].clone(), vmaf),
        ("psnr_cb", ours.psnr[1].clone(), vmaf),
        ("psnr_cr", ours.psnr[2].clone(), vmaf),
    ];
    let mut total = 0;
    for (key, values, json) in &checks {
        let bad = mismatches(name, key, values, &libvmaf_frames(json, key));
        println!("{name}: {key}: {} frames, {bad} mismatches", values.len());
        total += bad;
    }
    total
}

pub fn y4m_frames(path: &Path) -> impl Iterator<Item = Frame> + use<> {
    let mut file = Y4mFile::open(path).expect("open y4m");
    std::iter::from_fn(move || file.next_frame().expect("read y4m frame"))
}

pub fn raw_frames(path: &Path, raw: RawGeometry) -> impl Iterator<Item = Frame> + use<> {
    let mut file = RawFile::open(path, raw).expect("open raw yuv");
    std::iter::from_fn(move || file.next_frame().expect("read raw frame"))
}

/// Every shared clip pair: asserts zero mismatches with libvmaf 3.2.0.
pub fn check_shared_clips(backend: &mut dyn Backend) {
    let mut total = 0;
    for pair in PAIRS {
        let frames =
            y4m_frames(&clips::reference_y4m(pair)).zip(y4m_frames(&clips::distorted_y4m(pair)));
        let ours = score(backend, frames, MotionParams::default());
        let count = libvmaf_frames(&libvmaf_json(pair, "vmaf"), "psnr_y").len();
        assert_eq!(ours.motion.len(), count, "{pair}: frames read");
        total += compare(pair, &ours, &libvmaf_json(pair, "vmaf"), &libvmaf_json(pair, "features"));
    }
    assert_eq!(total, 0, "printed values differing from libvmaf 3.2.0");
}

/// The upstream fixtures (Netflix's own test inputs, raw 4:2:0) whose
/// libvmaf output sits in `../shared/upstream_fixtures`.
#[derive(Debug, Clone, Copy)]
pub enum Fixture {
    Src01TenBit,
    SparksTenBit,
    Q160x90EightBit,
}

impl Fixture {
    /// (JSON stem, reference file, distorted file, width, height, bit depth).
    fn spec(self) -> (&'static str, String, String, u32, u32, u32) {
        const Q: &str =
            "test_0_1_src01_hrc00_576x324_576x324_vs_src01_hrc01_576x324_576x324_q_160x90.yuv";
        match self {
            Fixture::Src01TenBit => (
                "src01_576x324_420p10",
                "src01_hrc00_576x324.yuv420p10le.yuv".into(),
                "src01_hrc01_576x324.yuv420p10le.yuv".into(),
                576,
                324,
                10,
            ),
            Fixture::SparksTenBit => (
                "sparks_480x270_420p10",
                "sparks_ref_480x270.yuv42010le.yuv".into(),
                "sparks_dis_480x270.yuv42010le.yuv".into(),
                480,
                270,
                10,
            ),
            Fixture::Q160x90EightBit => {
                ("src01_q160x90_420p8", format!("ref_{Q}"), format!("dis_{Q}"), 160, 90, 8)
            }
        }
    }
}

/// libvmaf's output for an upstream fixture pair.
fn fixture_json(stem: &str, kind: &str) -> serde_json::Value {
    let path = clips::shared_dir().join("upstream_fixtures").join(format!("{stem}.{kind}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).expect("fixture JSON")
}

/// One upstream fixture: asserts zero mismatches with libvmaf 3.2.0.
pub fn check_fixture(backend: &mut dyn Backend, fixture: Fixture) {
    let (stem, reference, distorted, width, height, bit_depth) = fixture.spec();
    let raw = RawGeometry { width, height, chroma: ChromaFormat::Yuv420, bit_depth };
    let r = clips::unpacked("upstream_fixtures", &reference);
    let d = clips::unpacked("upstream_fixtures", &distorted);
    let frames = raw_frames(&r, raw).zip(raw_frames(&d, raw));
    let ours = score(backend, frames, MotionParams::default());
    let bad = compare(stem, &ours, &fixture_json(stem, "vmaf"), &fixture_json(stem, "features"));
    assert_eq!(bad, 0, "{stem}: printed values differing from libvmaf 3.2.0");
}

/// The integer motion options of libvmaf's v1.0.16 models, as their JSON
/// sets them: the plain models, then the HFR ones.
pub const V1_MOTION_OPTIONS: [&str; 2] = [
    "motion_max_val=18.0",
    "motion_max_val=18.0:motion_five_frame_window=true:motion_moving_average=true",
];

/// Every shared clip pair with each of [`V1_MOTION_OPTIONS`]: the SAD
/// score, `integer_motion2` and `integer_motion3` must exist in
/// `refs/NAME.models.json` under the registry's suffixed names
/// (`integer_motion3_mffw_mmxv_18_mma`) and print the same.
pub fn check_v1_options(backend: &mut dyn Backend) {
    let mut total = 0;
    let mut compared = 0;
    for pair in PAIRS {
        let json = libvmaf_ref_json(pair, "models");
        for list in V1_MOTION_OPTIONS {
            let mut options = Motion.default_options();
            options.parse_list("motion", list).expect("v1 motion options");
            let frames = y4m_frames(&clips::reference_y4m(pair))
                .zip(y4m_frames(&clips::distorted_y4m(pair)));
            let ours = score(backend, frames, motion_params(&options));
            let pick = |f: fn(&MotionFrame) -> f64| ours.motion.iter().map(f).collect::<Vec<_>>();
            let checks: [(&str, Vec<f64>); 3] = [
                ("VMAF_integer_feature_motion_sad_score", pick(|f| f.motion)),
                ("integer_motion2", pick(|f| f.motion2)),
                ("integer_motion3", pick(|f| f.motion3)),
            ];
            for (key, values) in &checks {
                let name = options.output_name(key);
                let bad = mismatches(pair, &name, values, &libvmaf_frames(&json, &name));
                println!("{pair}: {name}: {} frames, {bad} mismatches", values.len());
                total += bad;
                compared += values.len();
            }
        }
    }
    assert!(compared > 0, "nothing compared");
    assert_eq!(total, 0, "v1 motion values differing from libvmaf 3.2.0");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_names_are_libvmafs() {
        let names: Vec<String> = V1_MOTION_OPTIONS
            .iter()
            .map(|list| {
                let mut options = Motion.default_options();
                options.parse_list("motion", list).unwrap();
                options.output_name("integer_motion3")
            })
            .collect();
        assert_eq!(names, ["integer_motion3_mmxv_18", "integer_motion3_mffw_mmxv_18_mma"]);
    }
}
