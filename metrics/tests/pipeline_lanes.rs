//! A pipeline of lanes (an encoding ladder's renditions against one
//! reference) gives each lane exactly the values a pipeline of its own
//! gives; features that read only the reference run once for all lanes
//! when the lanes see the same frames, and a lane that then ends apart
//! from the others is refused rather than given values a run of its own
//! would not have.

use vqscope_gpu::testing::{Rng, assert_no_validation_messages, test_context};
use vqscope_metrics::MetricsError;
use vqscope_metrics::pipeline::{FeatureSet, FrameScores, ScorePipeline};
use vqscope_video::frame::{ChromaFormat, ColorInfo, Frame, Geometry, PixelFormat};
use vqscope_video::{FrameGroup, FramePair};

const FRAMES: u64 = 6;
const LANES: usize = 3;

fn geometry() -> Geometry {
    Geometry {
        width: 96,
        height: 64,
        format: PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth: 8 },
    }
}

fn random_frame(rng: &mut Rng, index: u64) -> Frame {
    let g = geometry();
    let bytes: usize = (0..3).map(|p| g.plane_bytes(p)).sum();
    let data: Vec<u8> = (0..bytes).map(|_| rng.below(256) as u8).collect();
    Frame { geometry: g, color: ColorInfo::default(), index, data: data.into() }
}

/// A distorted copy of `frame`: every sample moved by up to ±`by`.
fn distorted(rng: &mut Rng, frame: &Frame, by: u32) -> Frame {
    let data: Vec<u8> = frame
        .data
        .iter()
        .map(|&s| {
            (i32::from(s) + rng.below(u64::from(2 * by + 1)) as i32 - by as i32).clamp(0, 255) as u8
        })
        .collect();
    Frame { data: data.into(), ..frame.clone() }
}

fn features() -> FeatureSet {
    let mut set = FeatureSet::new();
    for spec in ["vif", "adm", "motion", "float_motion"] {
        set.add_spec(spec).unwrap();
    }
    set
}

/// A reference clip and `LANES` distorted ones, each distorted more.
fn clips() -> (Vec<Frame>, Vec<Vec<Frame>>) {
    let mut rng = Rng(0x1A7E_5B3D_9C21_4F07);
    let reference: Vec<Frame> = (0..FRAMES).map(|i| random_frame(&mut rng, i)).collect();
    let lanes = (0..LANES)
        .map(|k| reference.iter().map(|f| distorted(&mut rng, f, 4 + 8 * k as u32)).collect())
        .collect();
    (reference, lanes)
}

/// Every row of `frames` pairs scored by a pipeline of its own.
fn alone(reference: &[Frame], distorted: &[Frame]) -> Vec<FrameScores> {
    let ctx = test_context();
    let mut pipeline = ScorePipeline::new(&ctx, geometry(), &features()).unwrap();
    let mut rows = Vec::new();
    for (i, d) in distorted.iter().enumerate() {
        let pair =
            FramePair { index: i as u64, reference: reference[i].clone(), distorted: d.clone() };
        rows.extend(pipeline.push(&pair).unwrap());
    }
    rows.extend(pipeline.finish().unwrap());
    rows
}

/// Per lane, the rows of a pipeline of `LANES` lanes; lane `k` is given
/// its first `lengths[k]` frames.
fn together(
    reference: &[Frame],
    lanes: &[Vec<Frame>],
    lengths: [usize; LANES],
    same_frames: bool,
) -> (usize, Vec<Result<Vec<FrameScores>, MetricsError>>) {
    let ctx = test_context();
    let set = features();
    let mut pipeline =
        ScorePipeline::with_lanes(&ctx, geometry(), &[&set; LANES], same_frames).unwrap();
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
    (pipeline.instance_count(), results)
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
