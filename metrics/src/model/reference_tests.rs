//! libvmaf 3.2.0's own per-frame model outputs (`shared/clips/refs/
//! NAME.models.json`, see its README), reproduced from libvmaf's per-frame
//! feature values in the same file: the bootstrap collection
//! `vmaf_b_v0.6.3` (main score, 20 members, bagging, stddev, 95 % interval),
//! `vmaf_4k_v0.6.1neg` (from the `_egl_1` features), and `vmaf_v0.6.1`
//! loaded as `vmaf_phone` (`enable_transform`) and `vmaf_noclip`
//! (`disable_clip`).
//!
//! Tolerance: the file prints every value with six decimals, so our inputs
//! may be up to 5e-7 away from the ones libvmaf used, and the printed
//! outputs are themselves rounded by up to 5e-7. For each frame and output
//! the test measures how far that input rounding can move the output: the
//! first-order bound Σᵢ |∂f/∂xᵢ|·5e-7, with each partial taken as the
//! larger one-sided difference over a 5e-7 step, doubled to cover
//! curvature and the kinks of the sorted interval ends, plus 5e-7 for the
//! printed output. That is about 1e-4 for these models (the phone
//! transform's slope of about 1.7 widens it); the test checks it stays
//! below 1e-3 so the comparison cannot become vacuous, and a second test
//! checks that plausible mistakes (the sample stddev, a nearest-rank
//! interval, the bagging mean as the main score, a normal-approximation
//! interval) land outside it on most frames. The exact, digit-for-digit comparison
//! happens in the CLI test on the GPU, where the inputs are exact.

use std::path::PathBuf;

use serde_json::Value;

use super::{Model, ModelConfig};
use crate::pool::pool;

/// The clip pairs with a `refs/NAME.models.json`.
const PAIRS: [&str; 3] = [
    "collage_1920x1080_420p8_scaled960x540_x264crf23",
    "retina_576x324_420p10_x264crf35",
    "rocket_576x324_420p8_x264crf35",
];

/// libvmaf's report names of the v0.6.1-family inputs at default options.
const PLAIN_INPUTS: [&str; 6] = [
    "integer_adm2",
    "integer_motion2",
    "integer_vif_scale0",
    "integer_vif_scale1",
    "integer_vif_scale2",
    "integer_vif_scale3",
];

/// The same inputs with the NEG models' enhancement-gain limit of 1
/// (motion has no such option).
const NEG_INPUTS: [&str; 6] = [
    "integer_adm2_egl_1",
    "integer_motion2",
    "integer_vif_scale0_egl_1",
    "integer_vif_scale1_egl_1",
    "integer_vif_scale2_egl_1",
    "integer_vif_scale3_egl_1",
];

/// libvmaf's feature names of those inputs, in model order.
const MODEL_INPUTS: [&str; 6] = [
    "VMAF_integer_feature_adm2_score",
    "VMAF_integer_feature_motion2_score",
    "VMAF_integer_feature_vif_scale0_score",
    "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score",
    "VMAF_integer_feature_vif_scale3_score",
];

const HALF_ULP6: f64 = 5e-7;

/// `../shared` beside the checkout (`metrics/../../shared`), or
/// `VQSCOPE_SHARED`, as the workspace's test crate finds it.
fn shared_dir() -> PathBuf {
    std::env::var_os("VQSCOPE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"))
}

struct Reference {
    pair: &'static str,
    json: Value,
    /// The metric names of frame 0, in the file's order (serde_json's map
    /// sorts them).
    order: Vec<String>,
}

impl Reference {
    fn load(pair: &'static str) -> Self {
        let path = shared_dir().join("clips/refs").join(format!("{pair}.models.json"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let json: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()));
        let start = text.find("\"metrics\": {").expect("a frame") + 12;
        let order = text[start..]
            .lines()
            .map(str::trim)
            .take_while(|l| *l != "}")
            .filter_map(|l| l.strip_prefix('"').and_then(|l| l.split_once('"')))
            .map(|(key, _)| key.to_owned())
            .collect();
        Self { pair, json, order }
    }

    fn frames(&self) -> &[Value] {
        self.json["frames"].as_array().expect("frames")
    }

    fn value(&self, frame: usize, key: &str) -> f64 {
        self.frames()[frame]["metrics"][key]
            .as_f64()
            .unwrap_or_else(|| panic!("{} frame {frame} lacks {key}", self.pair))
    }

    fn pooled(&self, key: &str, method: &str) -> f64 {
        self.json["pooled_metrics"][key][method]
            .as_f64()
            .unwrap_or_else(|| panic!("{}: no pooled {key} {method}", self.pair))
    }
}

fn all_references() -> Vec<Reference> {
    PAIRS.iter().map(|p| Reference::load(p)).collect()
}

/// Per output, how far the printed inputs and the printed output may put
/// libvmaf's value from ours (see the module comment).
fn tolerances(model: &Model, x: &[f64], base: &[f64]) -> Vec<f64> {
    let mut spread = vec![0.0; base.len()];
    for i in 0..x.len() {
        // A value printed as exactly 0 is exact: motion2 of frame 0 is 0 by
        // definition, not by rounding.
        if x[i] == 0.0 {
            continue;
        }
        let mut largest = vec![0.0f64; base.len()];
        for step in [HALF_ULP6, -HALF_ULP6] {
            let mut y = x.to_vec();
            y[i] += step;
            for (k, v) in model.predict_values(&y).iter().enumerate() {
                largest[k] = largest[k].max((v - base[k]).abs());
            }
        }
        for (s, l) in spread.iter_mut().zip(largest) {
            *s += l;
        }
    }
    spread.into_iter().map(|s| 2.0 * s + HALF_ULP6 + 1e-12).collect()
}

/// One model's outputs of one frame next to libvmaf's.
struct FrameCheck {
    ours: Vec<f64>,
    theirs: Vec<f64>,
    tolerance: Vec<f64>,
}

fn frame_check(model: &Model, reference: &Reference, frame: usize, inputs: &[&str]) -> FrameCheck {
    let x: Vec<f64> = inputs.iter().map(|k| reference.value(frame, k)).collect();
    let ours = model.predict_values(&x);
    let theirs = model.output_names().iter().map(|k| reference.value(frame, k)).collect();
    let tolerance = tolerances(model, &x, &ours);
    FrameCheck { ours, theirs, tolerance }
}

/// Loads `version` as libvmaf's CLI did for the reference file, checks its
/// inputs and output names, then every frame's outputs and their pooled
/// values.
fn check(version: &str, config: ModelConfig, inputs: &[&str], model_inputs: &[&str]) {
    let model = Model::builtin_with(version, &config).unwrap();
    let names: Vec<&str> = model.features().iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, model_inputs, "{version}: input order");
    for (f, key) in model.features().iter().zip(inputs) {
        let egl = f.option_f64("adm_enhn_gain_limit").or(f.option_f64("vif_enhn_gain_limit"));
        assert_eq!(egl.is_some(), key.contains("_egl_1"), "{version}: {key}");
        assert!(egl.is_none_or(|v| v == 1.0));
    }

    let (mut frames, mut widest, mut largest, mut used) = (0, 0.0f64, 0.0f64, 0.0f64);
    let mut failures = Vec::new();
    for reference in all_references() {
        // The outputs, named and ordered as libvmaf's report has them.
        let prefix = format!("{}_", config.name);
        let theirs: Vec<&str> = reference
            .order
            .iter()
            .map(String::as_str)
            .filter(|k| {
                *k == config.name
                    || k.strip_prefix(&prefix).is_some_and(|rest| {
                        model.is_collection()
                            && (rest.bytes().all(|b| b.is_ascii_digit())
                                || ["bagging", "stddev", "ci_p95_lo", "ci_p95_hi"].contains(&rest))
                    })
            })
            .collect();
        assert_eq!(model.output_names(), theirs, "{}: output names", reference.pair);

        let n = reference.frames().len();
        let mut columns = vec![Vec::with_capacity(n); model.output_names().len()];
        let mut column_tol = vec![0.0f64; model.output_names().len()];
        for frame in 0..n {
            let c = frame_check(&model, &reference, frame, inputs);
            frames += 1;
            for (k, name) in model.output_names().iter().enumerate() {
                let diff = (c.ours[k] - c.theirs[k]).abs();
                widest = widest.max(c.tolerance[k]);
                largest = largest.max(diff);
                used = used.max(diff / c.tolerance[k]);
                column_tol[k] = column_tol[k].max(c.tolerance[k]);
                columns[k].push(c.ours[k]);
                if diff > c.tolerance[k] {
                    failures.push(format!(
                        "{} frame {frame} {name}: ours {:.6} libvmaf {:.6} (|diff| {diff:.2e} > {:.2e})",
                        reference.pair, c.ours[k], c.theirs[k], c.tolerance[k]
                    ));
                }
            }
            // The named form carries the same values under the same names.
            let x: Vec<f64> = inputs.iter().map(|k| reference.value(frame, k)).collect();
            let named = model.predict_named(&x);
            assert!(named.iter().map(|(n, _)| n).eq(model.output_names()));
            assert!(named.iter().map(|(_, v)| v).eq(&c.ours));
            assert_eq!(named[0].1, model.predict(&x));
        }

        // Pooled: libvmaf pools every output like any feature, over its
        // per-frame values (output.c L236-245), so pooling ours must land
        // within the per-frame tolerance (each method moves by at most
        // about the largest per-frame change; doubled for the harmonic
        // mean's weights).
        for (k, name) in model.output_names().iter().enumerate() {
            let ours = pool(&columns[k]).unwrap();
            for (method, got) in [
                ("min", ours.min),
                ("max", ours.max),
                ("mean", ours.mean),
                ("harmonic_mean", ours.harmonic_mean),
            ] {
                let want = reference.pooled(name, method);
                if (got - want).abs() > 2.0 * column_tol[k] {
                    failures.push(format!(
                        "{} pooled {name} {method}: ours {got:.6} libvmaf {want:.6}",
                        reference.pair
                    ));
                }
            }
        }
    }
    eprintln!(
        "{version} as {}: {frames} frames x {} outputs; largest |ours - libvmaf| {largest:.2e}, \
         widest tolerance {widest:.2e}, at most {:.0}% of a frame's tolerance used",
        config.name,
        model.output_names().len(),
        100.0 * used
    );
    assert!(failures.is_empty(), "outside input rounding:\n{}", failures.join("\n"));
    assert!(widest < 1e-3, "a tolerance of {widest} would check nothing");
    assert!(frames >= 28, "{frames} frames");
}

/// A model loaded under its own name, as the reference run loaded them.
fn named(name: &str) -> ModelConfig {
    ModelConfig { name: name.to_owned(), ..ModelConfig::default() }
}

/// The v1.0.16 models' inputs, in model order.
const V1_MODEL_INPUTS: [&str; 4] = [
    "Cambi_feature_cambi_score",
    "Speed_chroma_feature_speed_chroma_uv_score",
    "VMAF_integer_feature_adm3_score",
    "VMAF_integer_feature_motion3_score",
];

/// Each v1 model in the reference file with libvmaf's report names of its
/// inputs (the option suffixes say which options each model sets).
#[test]
fn v1_models_match_libvmaf() {
    const CAMBI: &str = "cambi_hrs_1080_cmxv_17_vlt_0.06";
    const ADM3: &str = "integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02";
    const MOTION3: &str = "integer_motion3_mmxv_18";
    let speed = |prescale: &str| format!("speed_chroma_uv_mxv_45_nnf_0.1{prescale}_snn_0.19_wvm_5");
    let cases = [
        ("vmaf_v1.0.16_3d0h", speed(""), ADM3.to_owned(), MOTION3),
        (
            "vmaf_v1.0.16_3d0h_2160",
            speed("_ps_0.5_psm_bilinear"),
            format!("{ADM3}_rdh_2160"),
            MOTION3,
        ),
        ("vmaf_v1.0.16_5d0h", speed("_ps_0.6_psm_bilinear"), format!("{ADM3}_nvd_5"), MOTION3),
        ("vmaf_v1.0.16_1d5h_2160", speed(""), format!("{ADM3}_nvd_1.5_rdh_2160"), MOTION3),
        ("vmaf_v1.0.16_hfr_3d0h", speed(""), ADM3.to_owned(), "integer_motion3_mffw_mmxv_18_mma"),
    ];
    for (version, speed, adm3, motion3) in &cases {
        check(version, named(version), &[CAMBI, speed, adm3, motion3], &V1_MODEL_INPUTS);
    }
}

/// The chroma-from-luma correction takes over only when the chroma input is
/// exactly 0, with the value libvmaf's formula gives (checked against the
/// model's own prediction with that value put in by hand). libvmaf compares
/// after rescaling there and back, so a value too small to survive the
/// rescale (1e-300) counts as 0 too; 1e-3 does not.
#[test]
fn v1_chroma_correction_replaces_only_a_zero_chroma_input() {
    let model = Model::builtin("vmaf_v1.0.16_3d0h").unwrap();
    let (cambi, adm3, motion3) = (2.5, 0.93, 4.0);
    let grey = model.predict(&[cambi, 0.0, adm3, motion3]);
    let by_hand = model.predict(&[cambi, -120.0 * adm3 + 120.0, adm3, motion3]);
    assert_eq!(grey, by_hand);
    assert_eq!(grey, model.predict(&[cambi, 1e-300, adm3, motion3]));
    let small = model.predict(&[cambi, 1e-3, adm3, motion3]);
    assert_ne!(grey, small, "a chroma input that is not 0 is kept");
}

#[test]
fn bootstrap_collection_matches_libvmaf() {
    let name = "vmaf_b_v0.6.3";
    check(name, named(name), &PLAIN_INPUTS, &MODEL_INPUTS);
}

#[test]
fn neg_4k_model_matches_libvmaf() {
    let name = "vmaf_4k_v0.6.1neg";
    check(name, named(name), &NEG_INPUTS, &MODEL_INPUTS);
}

#[test]
fn transform_and_noclip_configs_match_libvmaf() {
    let phone =
        ModelConfig { name: "vmaf_phone".to_owned(), enable_transform: true, ..Default::default() };
    check("vmaf_v0.6.1", phone, &PLAIN_INPUTS, &MODEL_INPUTS);
    let noclip =
        ModelConfig { name: "vmaf_noclip".to_owned(), disable_clip: true, ..Default::default() };
    check("vmaf_v0.6.1", noclip, &PLAIN_INPUTS, &MODEL_INPUTS);
}

/// libvmaf's report pools the collection's outputs like any feature, and
/// its CLI's summary line uses the pooled means of the same keys: checked
/// on libvmaf's own numbers (pooling its printed per-frame values gives its
/// printed pooled values, to the 1e-6 that printing twice allows).
#[test]
fn collection_pooling_is_plain_pooling() {
    let model = Model::builtin_with(
        "vmaf_b_v0.6.3",
        &ModelConfig { name: "vmaf_b_v0.6.3".to_owned(), ..Default::default() },
    )
    .unwrap();
    for reference in all_references() {
        let n = reference.frames().len();
        for name in model.output_names() {
            let values: Vec<f64> = (0..n).map(|i| reference.value(i, name)).collect();
            let p = pool(&values).unwrap();
            for (method, got) in [
                ("min", p.min),
                ("max", p.max),
                ("mean", p.mean),
                ("harmonic_mean", p.harmonic_mean),
            ] {
                let want = reference.pooled(name, method);
                assert!(
                    (got - want).abs() <= 1e-6 + 1e-12,
                    "{} {name} {method}: pooled frames {got} vs libvmaf {want}",
                    reference.pair
                );
            }
        }
        let summary = model.bootstrap_summary(|name| Some(reference.pooled(name, "mean"))).unwrap();
        assert_eq!(summary.bagging, reference.pooled("vmaf_b_v0.6.3_bagging", "mean"));
        assert_eq!(summary.stddev, reference.pooled("vmaf_b_v0.6.3_stddev", "mean"));
        assert!(summary.cli_line("vmaf_b_v0.6.3").starts_with("vmaf_b_v0.6.3: "));
    }
}

/// The tolerance is narrow enough to catch plausible mistakes in the
/// collection's statistics: each alternative below must miss libvmaf's
/// value by more than the tolerance on most frames.
#[test]
fn wrong_statistics_would_fail() {
    let config = ModelConfig { name: "vmaf_b_v0.6.3".to_owned(), ..Default::default() };
    let model = Model::builtin_with("vmaf_b_v0.6.3", &config).unwrap();
    let m = 20; // members; outputs 1..=20, then bagging 21, stddev 22, lo 23, hi 24.
    assert_eq!(model.output_names().len(), m + 5);
    let (mut frames, mut caught) = (0, [0usize; 4]);
    for reference in all_references() {
        for frame in 0..reference.frames().len() {
            let c = frame_check(&model, &reference, frame, &PLAIN_INPUTS);
            frames += 1;
            let members = &c.ours[1..=m];
            let mean = members.iter().sum::<f64>() / m as f64;
            let ssd: f64 = members.iter().map(|s| (s - mean) * (s - mean)).sum();
            let mut sorted = members.to_vec();
            sorted.sort_by(f64::total_cmp);
            let misses = |k: usize, v: f64| (v - c.theirs[k]).abs() > c.tolerance[k];
            // The sample standard deviation.
            caught[0] += usize::from(misses(m + 2, (ssd / (m - 1) as f64).sqrt()));
            // Nearest-rank percentiles instead of interpolation.
            caught[1] += usize::from(misses(m + 3, sorted[0]) && misses(m + 4, sorted[m - 1]));
            // The bagging mean reported as the main score.
            caught[2] += usize::from(misses(0, c.ours[m + 1]));
            // The interval taken over the main score ± 1.96 stddev.
            let normal = c.ours[0] - 1.96 * c.ours[m + 2];
            caught[3] += usize::from(misses(m + 3, normal));
        }
    }
    for (what, n) in
        ["sample stddev", "nearest rank", "bagging as main", "normal CI"].iter().zip(caught)
    {
        assert!(2 * n > frames, "{what}: caught on only {n} of {frames} frames");
    }
}
