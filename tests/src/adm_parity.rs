//! The libvmaf parity checks of integer ADM, shared by the CPU twin's test
//! (`cpu_adm_parity`) and the GPU kernels' test (`gpu_adm_parity`): every
//! ADM value libvmaf printed for every frame of the shared clips and of
//! Netflix's fixtures (`vmaf.json`: `integer_adm2`, `integer_adm_scale0..3`;
//! the debug run's `features.json` also `integer_aim`, `integer_adm3`,
//! `integer_adm`, `integer_adm_num/den` and their per-scale values) must
//! print the same with `%.6f`. Expected values come only from libvmaf's JSON.
//!
//! [`check_v1_options`] does the same for the options of libvmaf's v1.0.16
//! models (`adm_csf_mode=2` and the rest, at their four viewing
//! geometries) against `refs/NAME.models.json`, reading each value under the
//! option-suffixed name the registry gives it; [`check_csf_modes`] the other
//! CSF modes against libvmaf's output kept in `tests/data`.

use std::collections::BTreeMap;
use std::path::Path;

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::adm::feature::{Adm, adm_options};
use vqscope_metrics::features::adm::{AdmOptions, AdmScores};
use vqscope_metrics::features::{Feature, FeatureOptions};
use vqscope_video::{ChromaFormat, RawGeometry, open_input};

use crate::clips::{
    PAIRS, distorted_y4m, libvmaf_frames, libvmaf_json, libvmaf_ref_json, printed, reference_y4m,
    shared_dir, unpacked, workspace_root,
};

/// What computes a frame pair's ADM values: the CPU twin or the GPU kernels.
pub trait Backend {
    fn adm(
        &mut self,
        reference: &PlaneView,
        distorted: &PlaneView,
        options: &AdmOptions,
    ) -> AdmScores;
}

/// Per key: (values compared, mismatches), plus the first few mismatches.
#[derive(Default)]
struct Tally {
    keys: BTreeMap<&'static str, (usize, usize)>,
    examples: Vec<String>,
}

impl Tally {
    fn check(&mut self, label: &str, frame: usize, key: &'static str, ours: f64, theirs: f64) {
        let e = self.keys.entry(key).or_default();
        e.0 += 1;
        if printed(ours) != printed(theirs) {
            e.1 += 1;
            if self.examples.len() < 20 {
                self.examples
                    .push(format!("{label} frame {frame} {key}: ours {ours:.9} libvmaf {theirs}"));
            }
        }
    }

    fn report_and_assert(&self, what: &str) {
        let mut total = 0;
        println!("{what}: per-key comparisons (values, mismatches)");
        for (k, (n, bad)) in &self.keys {
            println!("  {k:28} {n:4} {bad:4}");
            total += bad;
        }
        for e in &self.examples {
            println!("  MISMATCH {e}");
        }
        assert!(!self.keys.is_empty(), "{what}: nothing was compared");
        assert_eq!(total, 0, "{what}: {total} ADM values differ from libvmaf");
    }
}

/// Scores every frame pair of two inputs and compares with the JSON files.
fn compare(
    backend: &mut dyn Backend,
    label: &str,
    reference: &Path,
    distorted: &Path,
    raw: Option<RawGeometry>,
    jsons: &[serde_json::Value],
    tally: &mut Tally,
) {
    let mut r = open_input(reference, raw).expect("open reference");
    let mut d = open_input(distorted, raw).expect("open distorted");
    let opts = AdmOptions::default();
    let mut frame = 0;
    while let Some(rf) = r.next_frame().expect("read reference") {
        let df = d.next_frame().expect("read distorted").expect("distorted ends early");
        let (w, h) = (rf.geometry.width as usize, rf.geometry.height as usize);
        let bpc = rf.geometry.format.bit_depth;
        let (rs, ds) = (rf.plane_samples(0), df.plane_samples(0));
        let scores = backend.adm(
            &PlaneView::packed(w, h, bpc, &rs),
            &PlaneView::packed(w, h, bpc, &ds),
            &opts,
        );
        for json in jsons {
            let metrics = &json["frames"][frame]["metrics"];
            assert!(metrics.is_object(), "{label}: libvmaf has no frame {frame}");
            for (key, ours) in scores.named() {
                if let Some(theirs) = metrics[key].as_f64() {
                    tally.check(label, frame, key, ours, theirs);
                }
            }
        }
        frame += 1;
    }
    for json in jsons {
        assert_eq!(
            libvmaf_frames(json, "integer_adm2").len(),
            frame,
            "{label}: frame count differs from libvmaf"
        );
    }
}

/// Every frame of the three shared clip pairs against libvmaf's JSON.
pub fn check_shared_clips(backend: &mut dyn Backend) {
    let mut tally = Tally::default();
    for pair in PAIRS {
        let jsons = [libvmaf_json(pair, "vmaf"), libvmaf_json(pair, "features")];
        let (r, d) = (reference_y4m(pair), distorted_y4m(pair));
        compare(backend, pair, &r, &d, None, &jsons, &mut tally);
    }
    tally.report_and_assert("shared clips");
}

fn fixture_json(name: &str) -> serde_json::Value {
    let path = shared_dir().join("upstream_fixtures").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Netflix's own fixtures (raw yuv), with libvmaf 3.2.0 CLI output.
pub fn check_upstream_fixtures(backend: &mut dyn Backend) {
    let q160 = "src01_hrc00_576x324_576x324_vs_src01_hrc01_576x324_576x324_q_160x90.yuv";
    let cases: [(&str, String, String, u32, u32, u32); 3] = [
        (
            "src01_576x324_420p10",
            "src01_hrc00_576x324.yuv420p10le.yuv".into(),
            "src01_hrc01_576x324.yuv420p10le.yuv".into(),
            576,
            324,
            10,
        ),
        (
            "sparks_480x270_420p10",
            "sparks_ref_480x270.yuv42010le.yuv".into(),
            "sparks_dis_480x270.yuv42010le.yuv".into(),
            480,
            270,
            10,
        ),
        (
            "src01_q160x90_420p8",
            format!("ref_test_0_1_{q160}"),
            format!("dis_test_0_1_{q160}"),
            160,
            90,
            8,
        ),
    ];
    let mut tally = Tally::default();
    for (label, r, d, width, height, bit_depth) in cases {
        let raw = RawGeometry { width, height, chroma: ChromaFormat::Yuv420, bit_depth };
        let jsons = [
            fixture_json(&format!("{label}.vmaf.json")),
            fixture_json(&format!("{label}.features.json")),
        ];
        let (r, d) = (unpacked("upstream_fixtures", &r), unpacked("upstream_fixtures", &d));
        compare(backend, label, &r, &d, Some(raw), &jsons, &mut tally);
    }
    tally.report_and_assert("upstream fixtures");
}

/// The integer ADM options of libvmaf's v1.0.16 models, as their JSON sets
/// them: `vmaf_v1.0.16_3d0h` (and `_hfr_3d0h`), `_3d0h_2160`, `_5d0h` and
/// `_1d5h_2160`.
pub const V1_ADM_OPTIONS: [&str; 4] = [
    "adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:adm_norm_view_dist=3.0:\
     adm_ref_display_height=1080:adm_min_val=0.5:adm_csf_mode=2",
    "adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:adm_norm_view_dist=3.0:\
     adm_ref_display_height=2160:adm_min_val=0.5:adm_csf_mode=2",
    "adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:adm_norm_view_dist=5.0:\
     adm_ref_display_height=1080:adm_min_val=0.5:adm_csf_mode=2",
    "adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:adm_norm_view_dist=1.5:\
     adm_ref_display_height=2160:adm_min_val=0.5:adm_csf_mode=2",
];

/// The registry's options for one `k=v:k=v` list.
fn registry_options(list: &str) -> FeatureOptions {
    let mut options = Adm.default_options();
    options.parse_list("adm", list).expect("v1 ADM options");
    options
}

/// Every frame of the shared clips with each of [`V1_ADM_OPTIONS`]: the
/// seven values libvmaf prints without `debug` must exist in
/// `refs/NAME.models.json` under our suffixed names and print the same.
pub fn check_v1_options(backend: &mut dyn Backend) {
    let frames = |pair: &str| {
        let json = libvmaf_ref_json(pair, "models");
        let frames = json["frames"].as_array().expect("frames array");
        frames.iter().map(|f| f["metrics"].clone()).collect()
    };
    check_option_sets(backend, &PAIRS, &V1_ADM_OPTIONS, frames, "v1 model options");
}

/// The CSF modes and options no model uses — Barten (mode 1) with its
/// `adm_csf_scale` / `adm_csf_diag_scale`, the MAE blend (mode 3) and
/// another blend geometry — on the two 576x324 clips (8- and 10-bit)
/// against `tests/data/adm_csf_modes.json`: libvmaf 3.2.0's per-frame
/// values from the runs that file records. Barten's weights overflow
/// libvmaf's fixed-point pipeline, where its SIMD and plain C paths part
/// ways (even printing NaN), so mode 1 is checked against the plain C run.
pub fn check_csf_modes(backend: &mut dyn Backend) {
    let path = workspace_root().join("tests/data/adm_csf_modes.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value = serde_json::from_str(&text).expect("adm_csf_modes.json");
    let runs = json["runs"].as_array().expect("runs");
    assert!(!runs.is_empty(), "no libvmaf runs recorded");
    for run in runs {
        let lists: Vec<&str> =
            run["options"].as_array().expect("options").iter().filter_map(|o| o.as_str()).collect();
        let pairs: Vec<&str> =
            run["pairs"].as_object().expect("pairs").keys().map(|k| k.as_str()).collect();
        let frames = |pair: &str| run["pairs"][pair].as_array().expect("pair's frames").clone();
        let what =
            format!("CSF modes, libvmaf's {} paths", run["cpu_paths"].as_str().unwrap_or("?"));
        check_option_sets(backend, &pairs, &lists, frames, &what);
    }
}

/// Every frame of `pairs` with each option list: the seven values libvmaf
/// prints without `debug` must exist in that frame's libvmaf metrics
/// (`frames(pair)`) under the registry's suffixed names and print the same.
fn check_option_sets(
    backend: &mut dyn Backend,
    pairs: &[&str],
    lists: &[&str],
    frames: impl Fn(&str) -> Vec<serde_json::Value>,
    what: &str,
) {
    let mut tally = Tally::default();
    for &pair in pairs {
        let theirs = frames(pair);
        let mut r = open_input(&reference_y4m(pair), None).expect("open reference");
        let mut d = open_input(&distorted_y4m(pair), None).expect("open distorted");
        let mut frame = 0;
        while let Some(rf) = r.next_frame().expect("read reference") {
            let df = d.next_frame().expect("read distorted").expect("distorted ends early");
            let (w, h) = (rf.geometry.width as usize, rf.geometry.height as usize);
            let bpc = rf.geometry.format.bit_depth;
            let (rs, ds) = (rf.plane_samples(0), df.plane_samples(0));
            let (rp, dp) = (PlaneView::packed(w, h, bpc, &rs), PlaneView::packed(w, h, bpc, &ds));
            let metrics = theirs.get(frame).unwrap_or_else(|| panic!("{pair}: no frame {frame}"));
            for list in lists {
                let names = registry_options(list);
                let options = adm_options(&names).expect("valid ADM options");
                let scores = backend.adm(&rp, &dp, &options);
                // The seven values printed without `debug` come first.
                for (key, ours) in scores.named().into_iter().take(7) {
                    let name = names.output_name(key);
                    // libvmaf's JSON writes NaN as null.
                    let value = match &metrics[&name] {
                        serde_json::Value::Null if metrics.get(&name).is_some() => f64::NAN,
                        v => v
                            .as_f64()
                            .unwrap_or_else(|| panic!("{pair}: libvmaf printed no {name}")),
                    };
                    tally.check(pair, frame, key, ours, value);
                }
            }
            frame += 1;
        }
        assert_eq!(frame, theirs.len(), "{pair}: frame count differs from libvmaf");
    }
    tally.report_and_assert(what);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_names_are_libvmafs() {
        let names: Vec<String> = V1_ADM_OPTIONS
            .iter()
            .map(|l| registry_options(l).output_name("integer_adm2"))
            .collect();
        assert_eq!(
            names,
            [
                "integer_adm2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02",
                "integer_adm2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_rdh_2160",
                "integer_adm2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_5",
                "integer_adm2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_1.5_rdh_2160",
            ]
        );
    }
}
