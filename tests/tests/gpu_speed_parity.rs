//! `speed_chroma` and `speed_temporal` through the scoring pipeline (the
//! registry entries, `--feature NAME=…` option strings, libvmaf's
//! option-suffixed output names): the same libvmaf values as the CPU
//! twin's test (`vqscope_tests::speed_parity`). The entries still compute
//! on the host from the planes the pipeline copies back (see the
//! `speed` module docs), so this checks the copy, the decoding of the
//! planes and the naming.

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_metrics::pipeline::{FeatureSet, ScorePipeline};
use vqscope_tests::speed_parity::{Backend, check_shared_clips, check_temporal, temporal_clip};
use vqscope_video::{Frame, FramePair};

/// Every frame's values of `spec` through the pipeline, with its names.
fn pipeline_values(spec: &str, frames: &[(Frame, Frame)]) -> (Vec<String>, Vec<Vec<f64>>) {
    let ctx = test_context();
    let mut set = FeatureSet::new();
    set.add_spec(spec).unwrap();
    let mut pipeline = ScorePipeline::new(&ctx, frames[0].0.geometry, &set).unwrap();
    let mut rows = Vec::new();
    for (i, (r, d)) in frames.iter().enumerate() {
        let pair = FramePair { index: i as u64, reference: r.clone(), distorted: d.clone() };
        rows.extend(pipeline.push(&pair).unwrap());
    }
    rows.extend(pipeline.finish().unwrap());
    rows.sort_by_key(|r| r.index);
    (pipeline.columns().to_vec(), rows.into_iter().map(|r| r.values).collect())
}

struct Pipeline;

impl Backend for Pipeline {
    fn score(
        &mut self,
        options: &str,
        frames: &[(Frame, Frame)],
    ) -> (Option<Vec<String>>, Vec<[f64; 3]>) {
        let (names, rows) = pipeline_values(&format!("speed_chroma={options}"), frames);
        (Some(names), rows.iter().map(|r| [r[0], r[1], r[2]]).collect())
    }
}

#[test]
fn pipeline_speed_chroma_matches_libvmaf_on_every_clip() {
    check_shared_clips(&mut Pipeline);
    assert_no_validation_messages();
}

#[test]
fn pipeline_speed_temporal_matches_libvmaf_on_a_synthetic_clip() {
    check_temporal(&mut |bits, options| {
        let spec = if options.is_empty() {
            "speed_temporal".to_owned()
        } else {
            format!("speed_temporal={options}")
        };
        let (names, rows) = pipeline_values(&spec, &temporal_clip(bits));
        assert_eq!(names.len(), 1);
        (Some(names[0].clone()), rows.iter().map(|r| r[0]).collect())
    });
    assert_no_validation_messages();
}
