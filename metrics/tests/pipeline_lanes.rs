//! A pipeline of lanes (an encoding ladder's renditions against one
//! reference) gives each lane exactly the values a pipeline of its own
//! gives; features that read only the reference run once for all lanes
//! when the lanes see the same frames, and a lane that then ends apart
//! from the others is refused rather than given values a run of its own
//! would not have. The reference-only terms of the features that read both
//! frames (VIF's decimated reference, ADM's reference bands and
//! denominator) are made once for the lanes that ask for the feature alike,
//! whatever frames they see, and change no value.

use vqscope_gpu::testing::{Rng, assert_no_validation_messages, test_context};
use vqscope_metrics::MetricsError;
use vqscope_metrics::pipeline::{FeatureSet, FrameScores, ScorePipeline, Sharing};
use vqscope_video::frame::{ChromaFormat, ColorInfo, Frame, Geometry, PixelFormat};
use vqscope_video::{FrameGroup, FramePair};

const FRAMES: u64 = 6;
const LANES: usize = 3;

fn geometry() -> Geometry {
    geometry_of(96, 64, 8)
}

fn geometry_of(width: u32, height: u32, bit_depth: u32) -> Geometry {
    Geometry { width, height, format: PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth } }
}

/// Samples as the frame's bytes hold them: one byte each, or two (little
/// endian) above 8 bits.
fn samples(frame: &Frame) -> Vec<u32> {
    match frame.geometry.format.bit_depth {
        8 => frame.data.iter().map(|&b| u32::from(b)).collect(),
        _ => frame
            .data
            .chunks_exact(2)
            .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
    }
}

/// A copy of `frame` holding `samples`.
fn with_samples(frame: &Frame, samples: impl Iterator<Item = u32>) -> Frame {
    let mut copy = frame.clone();
    let width = frame.geometry.format.bytes_per_sample();
    for (bytes, s) in copy.data.chunks_exact_mut(width).zip(samples) {
        bytes.copy_from_slice(&(s as u16).to_le_bytes()[..width]);
    }
    copy
}

fn random_frame(rng: &mut Rng, g: Geometry, index: u64) -> Frame {
    let bytes: usize = (0..3).map(|p| g.plane_bytes(p)).sum();
    let mut blank =
        Frame { geometry: g, color: ColorInfo::default(), index, data: Default::default() };
    blank.data.extend_from_slice(&vec![0; bytes]);
    let max = 1u64 << g.format.bit_depth;
    let count = samples(&blank).len();
    with_samples(&blank, (0..count).map(|_| rng.below(max) as u32))
}

/// A distorted copy of `frame`: every sample moved by up to ±`by`.
fn distorted(rng: &mut Rng, frame: &Frame, by: u32) -> Frame {
    let max = (1i64 << frame.geometry.format.bit_depth) - 1;
    let moved = samples(frame).into_iter().map(|s| {
        let step = rng.below(u64::from(2 * by + 1)) as i64 - i64::from(by);
        (i64::from(s) + step).clamp(0, max) as u32
    });
    with_samples(frame, moved)
}

fn features() -> FeatureSet {
    set_of(&["vif", "adm", "motion", "float_motion"])
}

fn set_of(specs: &[&str]) -> FeatureSet {
    let mut set = FeatureSet::new();
    for spec in specs {
        set.add_spec(spec).unwrap();
    }
    set
}

/// A reference clip and `LANES` distorted ones, each distorted more.
fn clips() -> (Vec<Frame>, Vec<Vec<Frame>>) {
    clips_of(geometry(), FRAMES)
}

fn clips_of(g: Geometry, frames: u64) -> (Vec<Frame>, Vec<Vec<Frame>>) {
    let mut rng = Rng(0x1A7E_5B3D_9C21_4F07);
    let reference: Vec<Frame> = (0..frames).map(|i| random_frame(&mut rng, g, i)).collect();
    let lanes = (0..LANES)
        .map(|k| reference.iter().map(|f| distorted(&mut rng, f, 4 + 8 * k as u32)).collect())
        .collect();
    (reference, lanes)
}

/// Every row of `frames` pairs scored by a pipeline of its own.
fn alone(reference: &[Frame], distorted: &[Frame]) -> Vec<FrameScores> {
    alone_with(&features(), reference, distorted)
}

/// [`alone`] with the features of `set`.
fn alone_with(set: &FeatureSet, reference: &[Frame], distorted: &[Frame]) -> Vec<FrameScores> {
    let ctx = test_context();
    let mut pipeline = ScorePipeline::new(&ctx, reference[0].geometry, set).unwrap();
    assert_eq!(pipeline.terms_count(), 0, "a pipeline of one lane shares nothing");
    let mut rows = Vec::new();
    for (i, d) in distorted.iter().enumerate() {
        let pair =
            FramePair { index: i as u64, reference: reference[i].clone(), distorted: d.clone() };
        rows.extend(pipeline.push(&pair).unwrap());
    }
    rows.extend(pipeline.finish().unwrap());
    rows
}

/// How a test builds its pipeline of lanes.
#[derive(Clone, Copy)]
enum Build {
    Shared { same_frames: bool },
    Unshared,
}

/// Per lane, the rows of a pipeline of `LANES` lanes of `features()`; lane
/// `k` is given its first `lengths[k]` frames. Also the instance and terms
/// counts.
fn together(
    reference: &[Frame],
    lanes: &[Vec<Frame>],
    lengths: [usize; LANES],
    same_frames: bool,
) -> (usize, Vec<Result<Vec<FrameScores>, MetricsError>>) {
    let set = features();
    let (instances, terms, rows) =
        together_with(&[&set; LANES], reference, lanes, lengths, Build::Shared { same_frames });
    assert_eq!(terms, 2, "vif's and adm's reference terms, each shared by every lane");
    (instances, rows)
}

/// [`together`] with lane `k` asking for `sets[k]`, built as `build` says.
fn together_with(
    sets: &[&FeatureSet; LANES],
    reference: &[Frame],
    lanes: &[Vec<Frame>],
    lengths: [usize; LANES],
    build: Build,
) -> (usize, usize, Vec<Result<Vec<FrameScores>, MetricsError>>) {
    let ctx = test_context();
    let g = reference[0].geometry;
    let mut pipeline = match build {
        Build::Shared { same_frames } => ScorePipeline::with_lanes(&ctx, g, sets, same_frames),
        Build::Unshared => {
            let nothing = Sharing { reference_only: false, terms: false };
            ScorePipeline::with_lanes_sharing(&ctx, g, sets, nothing)
        }
    }
    .unwrap();
    let mut rows: Vec<Vec<FrameScores>> = vec![Vec::new(); LANES];
    for (i, r) in reference.iter().enumerate() {
        let group = FrameGroup {
            index: i as u64,
            reference: r.clone(),
            distorted: (0..LANES).map(|k| (i < lengths[k]).then(|| lanes[k][i].clone())).collect(),
        };
        for (k, done) in pipeline.push_group(&group).unwrap().into_iter().enumerate() {
            rows[k].extend(done);
        }
    }
    for (k, done) in pipeline.finish_lanes().unwrap().into_iter().enumerate() {
        rows[k].extend(done);
    }
    let results = rows
        .into_iter()
        .enumerate()
        .map(|(k, rows)| match pipeline.take_failure(k) {
            Some(e) => Err(e),
            None => Ok(rows),
        })
        .collect();
    (pipeline.instance_count(), pipeline.terms_count(), results)
}

#[test]
fn lanes_equal_pipelines_of_their_own_and_share_what_reads_only_the_reference() {
    let (reference, lanes) = clips();
    for same_frames in [false, true] {
        let (instances, results) = together(&reference, &lanes, [6; LANES], same_frames);
        // vif and adm per lane; motion and float_motion once when shared.
        assert_eq!(instances, if same_frames { 2 * LANES + 2 } else { 4 * LANES });
        for (k, rows) in results.into_iter().enumerate() {
            let rows = rows.unwrap();
            assert_eq!(rows.len(), FRAMES as usize);
            assert_eq!(rows, alone(&reference, &lanes[k]), "lane {k}, same_frames {same_frames}");
        }
    }
    assert_no_validation_messages();
}

#[test]
fn a_lane_that_ends_early_is_refused_when_shared_and_right_when_not() {
    let (reference, lanes) = clips();
    let lengths = [6, 4, 6];
    let (_, shared) = together(&reference, &lanes, lengths, true);
    for (k, result) in shared.into_iter().enumerate() {
        assert!(matches!(result, Err(MetricsError::LanesDiverged)), "lane {k}: {result:?}");
    }
    let (_, own) = together(&reference, &lanes, lengths, false);
    for (k, rows) in own.into_iter().enumerate() {
        let rows = rows.unwrap();
        assert_eq!(rows.len(), lengths[k]);
        assert_eq!(rows, alone(&reference[..lengths[k]], &lanes[k][..lengths[k]]), "lane {k}");
    }
    assert_no_validation_messages();
}

/// Lanes whose requests differ share only with lanes that ask alike: lanes
/// 0 and 1 ask for VIF the same way and share its decimated reference,
/// lane 2 asks with another gain limit and decimates its own; lanes 1 and 2
/// share ADM's reference terms, lane 0 (another gain limit) makes its own.
/// Nothing shared changes a value, and a pipeline that shares nothing
/// gives the same values.
#[test]
fn lanes_share_terms_only_when_asked_alike_and_values_never_change() {
    let (reference, lanes) = clips();
    let sets = [
        set_of(&["vif", "adm", "motion"]),
        set_of(&["vif", "adm=adm_enhn_gain_limit=1.0", "motion"]),
        set_of(&["vif=vif_enhn_gain_limit=1.0", "adm=adm_enhn_gain_limit=1.0", "motion"]),
    ];
    let sets_ref = [&sets[0], &sets[1], &sets[2]];
    for build in [Build::Shared { same_frames: true }, Build::Unshared] {
        let (instances, terms, results) =
            together_with(&sets_ref, &reference, &lanes, [6; LANES], build);
        match build {
            // vif ×3, adm ×3, motion once; a vif and an adm terms.
            Build::Shared { .. } => assert_eq!((instances, terms), (7, 2)),
            Build::Unshared => assert_eq!((instances, terms), (9, 0)),
        }
        for (k, rows) in results.into_iter().enumerate() {
            let rows = rows.unwrap();
            assert_eq!(rows.len(), FRAMES as usize);
            assert_eq!(rows, alone_with(&sets[k], &reference, &lanes[k]), "lane {k}");
        }
    }
    // Alone among the lanes in asking for VIF: nothing to share.
    let none = set_of(&["motion"]);
    let (_, terms, _) = together_with(
        &[&features(), &none, &none],
        &reference[..1],
        &lanes,
        [1; LANES],
        Build::Shared { same_frames: true },
    );
    assert_eq!(terms, 0);
    assert_no_validation_messages();
}

/// 10-bit samples and a size whose bands end mid-tile at every level
/// (ADM's 32×16 and 32×8 tiles, VIF's decimation tiles): the shared terms
/// still change no value, with the default options and with scale 0
/// skipped.
#[test]
fn ten_bit_lanes_of_an_odd_size_equal_pipelines_of_their_own() {
    let (reference, lanes) = clips_of(geometry_of(150, 78, 10), 2);
    for specs in [["vif", "adm"], ["vif=vif_skip_scale0=true", "adm=adm_skip_scale0=true"]] {
        let set = set_of(&specs);
        let (_, terms, results) = together_with(
            &[&set; LANES],
            &reference,
            &lanes,
            [2; LANES],
            Build::Shared { same_frames: true },
        );
        assert_eq!(terms, 2);
        for (k, rows) in results.into_iter().enumerate() {
            assert_eq!(
                rows.unwrap(),
                alone_with(&set, &reference, &lanes[k]),
                "lane {k} {specs:?}"
            );
        }
    }
    assert_no_validation_messages();
}
