//! The CPU twins of integer motion and PSNR against libvmaf 3.2.0's printed
//! output: every per-frame `integer_motion`, `integer_motion2`,
//! `integer_motion3`, `VMAF_integer_feature_motion_sad_score` and
//! `psnr_y/cb/cr` of every shared clip pair and upstream fixture must equal
//! libvmaf's `%.6f` digits exactly.

use std::path::Path;

use vqscope_metrics::PlaneView;
use vqscope_metrics::motion::{MotionFrame, MotionParams, MotionScorer, motion_sad};
use vqscope_metrics::psnr::{ChromaLayout, PsnrParams, PsnrSetup, plane_sse};
use vqscope_tests::clips::{self, PAIRS, libvmaf_frames, libvmaf_json, printed};
use vqscope_video::frame::{ChromaFormat, Frame};
use vqscope_video::raw::{RawFile, RawGeometry};
use vqscope_video::y4m::Y4mFile;

/// Our per-frame values, in frame order.
#[derive(Default)]
struct Ours {
    motion: Vec<MotionFrame>,
    psnr: [Vec<f64>; 3],
}

fn layout(chroma: ChromaFormat) -> ChromaLayout {
    match chroma {
        ChromaFormat::Mono => ChromaLayout::Mono,
        ChromaFormat::Yuv420 => ChromaLayout::Yuv420,
        ChromaFormat::Yuv422 => ChromaLayout::Yuv422,
        ChromaFormat::Yuv444 => ChromaLayout::Yuv444,
    }
}

/// Plane `i` of a frame as owned samples plus its size and depth.
struct Plane {
    w: usize,
    h: usize,
    bpc: u32,
    samples: Vec<u16>,
}

impl Plane {
    fn of(frame: &Frame, i: usize) -> Self {
        let (w, h) = frame.geometry.plane_size(i);
        Plane {
            w: w as usize,
            h: h as usize,
            bpc: frame.geometry.format.bit_depth,
            samples: frame.plane_samples(i),
        }
    }

    fn view(&self) -> PlaneView<'_> {
        PlaneView::packed(self.w, self.h, self.bpc, &self.samples)
    }
}

/// Scores a sequence of (reference, distorted) frames the way a pipeline
/// would: motion streams through [`MotionScorer`], one frame late.
fn score(pairs: impl Iterator<Item = (Frame, Frame)>) -> Ours {
    let mut ours = Ours::default();
    let mut scorer: Option<MotionScorer> = None;
    let mut setup: Option<PsnrSetup> = None;
    let mut history: Vec<Plane> = Vec::new();
    for (reference, distorted) in pairs {
        let g = reference.geometry;
        assert_eq!(g, distorted.geometry, "reference and distorted geometry");
        let scorer = scorer
            .get_or_insert_with(|| MotionScorer::new(g.width, g.height, MotionParams::default()));
        let setup = setup.get_or_insert_with(|| {
            let bpc = g.format.bit_depth;
            let layout = layout(g.format.chroma);
            PsnrSetup::new(&PsnrParams::default(), bpc, g.width, g.height, layout)
        });

        let luma = Plane::of(&reference, 0);
        let index = scorer.pushed();
        let sad = scorer.sad_partner().map(|partner| {
            let back = (index - partner) as usize;
            let prev = &history[history.len() - back];
            motion_sad(&prev.view(), &luma.view()).expect("motion SAD")
        });
        ours.motion.extend(scorer.push(sad));
        history.push(luma);
        if history.len() > 2 {
            history.remove(0);
        }

        for p in 0..setup.planes {
            let (r, d) = (Plane::of(&reference, p), Plane::of(&distorted, p));
            let sse = plane_sse(&r.view(), &d.view()).expect("plane SSE");
            let db = setup.psnr(p, sse, r.w as u32, r.h as u32);
            ours.psnr[p].push(db);
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
fn compare(
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

fn y4m_frames(path: &Path) -> impl Iterator<Item = Frame> + use<> {
    let mut file = Y4mFile::open(path).expect("open y4m");
    std::iter::from_fn(move || file.next_frame().expect("read y4m frame"))
}

fn raw_frames(path: &Path, raw: RawGeometry) -> impl Iterator<Item = Frame> + use<> {
    let mut file = RawFile::open(path, raw).expect("open raw yuv");
    std::iter::from_fn(move || file.next_frame().expect("read raw frame"))
}

#[test]
fn shared_clips_match_libvmaf() {
    let mut total = 0;
    for pair in PAIRS {
        let frames =
            y4m_frames(&clips::reference_y4m(pair)).zip(y4m_frames(&clips::distorted_y4m(pair)));
        let ours = score(frames);
        let count = libvmaf_frames(&libvmaf_json(pair, "vmaf"), "psnr_y").len();
        assert_eq!(ours.motion.len(), count, "{pair}: frames read");
        total += compare(pair, &ours, &libvmaf_json(pair, "vmaf"), &libvmaf_json(pair, "features"));
    }
    assert_eq!(total, 0, "printed values differing from libvmaf 3.2.0");
}

/// libvmaf's output for an upstream fixture pair.
fn fixture_json(stem: &str, kind: &str) -> serde_json::Value {
    let path = clips::shared_dir().join("upstream_fixtures").join(format!("{stem}.{kind}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).expect("fixture JSON")
}

fn check_fixture(stem: &str, reference: &str, distorted: &str, raw: RawGeometry) {
    let r = clips::unpacked("upstream_fixtures", reference);
    let d = clips::unpacked("upstream_fixtures", distorted);
    let ours = score(raw_frames(&r, raw).zip(raw_frames(&d, raw)));
    let bad = compare(stem, &ours, &fixture_json(stem, "vmaf"), &fixture_json(stem, "features"));
    assert_eq!(bad, 0, "{stem}: printed values differing from libvmaf 3.2.0");
}

fn yuv420(width: u32, height: u32, bit_depth: u32) -> RawGeometry {
    RawGeometry { width, height, chroma: ChromaFormat::Yuv420, bit_depth }
}

#[test]
fn upstream_src01_10bit_matches_libvmaf() {
    check_fixture(
        "src01_576x324_420p10",
        "src01_hrc00_576x324.yuv420p10le.yuv",
        "src01_hrc01_576x324.yuv420p10le.yuv",
        yuv420(576, 324, 10),
    );
}

#[test]
fn upstream_sparks_10bit_matches_libvmaf() {
    check_fixture(
        "sparks_480x270_420p10",
        "sparks_ref_480x270.yuv42010le.yuv",
        "sparks_dis_480x270.yuv42010le.yuv",
        yuv420(480, 270, 10),
    );
}

#[test]
fn upstream_q160x90_8bit_matches_libvmaf() {
    let q = "test_0_1_src01_hrc00_576x324_576x324_vs_src01_hrc01_576x324_576x324_q_160x90.yuv";
    check_fixture(
        "src01_q160x90_420p8",
        &format!("ref_{q}"),
        &format!("dis_{q}"),
        yuv420(160, 90, 8),
    );
}
