//! `vqscope score` with libvmaf 3.2's other models, model options and
//! feature options, against libvmaf's own reports in `clips/refs/`: every
//! value libvmaf printed for what vqscope computes must be identical at six
//! decimals, under libvmaf's names (option suffixes, model names). Plus the
//! model and option defects found when vqscope was tried as a new user.

use std::path::PathBuf;

use serde_json::Value;
use vqscope_tests::clips::{PAIRS, distorted_y4m, libvmaf_ref_json, reference_y4m};
use vqscope_tests::report_diff::{compare, frame_keys};

mod common;
use common::vqscope;

fn out_dir() -> PathBuf {
    common::out_dir("score-options")
}

/// Scores `pair` with `args` into a JSON report; returns it and stdout.
fn score(pair: &str, tag: &str, args: &[&str]) -> (Value, String) {
    let (r, d) = (reference_y4m(pair), distorted_y4m(pair));
    let mut all = vec!["-r", r.to_str().unwrap(), "-d", d.to_str().unwrap()];
    all.extend_from_slice(args);
    score_report(&format!("{pair}.{tag}"), &all)
}

/// `vqscope score ARGS` into the JSON report `NAME.json`, which must
/// succeed without validation messages; returns the report and stdout.
fn score_report(name: &str, args: &[&str]) -> (Value, String) {
    let out = out_dir().join(format!("{name}.json"));
    let _ = std::fs::remove_file(&out);
    let mut all = vec!["score"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "-q", "-o", out.to_str().unwrap()]);
    let output = vqscope(&all);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "vqscope {all:?} failed: {stderr}");
    assert!(!stderr.contains("[vulkan"), "validation messages:\n{stderr}");
    let report = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (report, String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Names ours prints that libvmaf's report does not have: a compatible
/// report spells every name as libvmaf does.
fn foreign_names(ours: &Value, theirs: &Value) -> Vec<String> {
    let theirs = frame_keys(theirs);
    frame_keys(ours).into_iter().filter(|k| !theirs.contains(k)).collect()
}

/// The bootstrap model (with its 20 members, bagging, stddev and CI), the
/// 4K NEG model (ADM and VIF with `_egl_1` names), the float model (on the
/// float VIF, ADM and motion), the phone transform and `disable_clip`, all
/// in one run with `name=`, as in `models.json`.
#[test]
fn models_match_libvmaf() {
    for pair in PAIRS {
        let (ours, _) = score(
            pair,
            "models",
            &[
                "--model",
                "version=vmaf_b_v0.6.3:name=vmaf_b_v0.6.3",
                "--model",
                "version=vmaf_4k_v0.6.1neg:name=vmaf_4k_v0.6.1neg",
                "--model",
                "version=vmaf_float_v0.6.1:name=vmaf_float_v0.6.1",
                "--model",
                "version=vmaf_v0.6.1:name=vmaf_phone:enable_transform",
                "--model",
                "version=vmaf_v0.6.1:name=vmaf_noclip:disable_clip",
            ],
        );
        let theirs = libvmaf_ref_json(pair, "models");
        let keys = frame_keys(&ours);
        for key in [
            "vmaf_b_v0.6.3_0020",
            "vmaf_b_v0.6.3_ci_p95_hi",
            "integer_adm2_egl_1",
            "vmaf_float_v0.6.1",
            "adm2",
            "vif_scale3",
        ] {
            assert!(keys.iter().any(|k| k == key), "{pair}: no {key} in {keys:?}");
        }
        assert_eq!(foreign_names(&ours, &theirs), Vec::<String>::new(), "{pair}");
        let wanted = |k: &str| keys.iter().any(|o| o == k);
        compare(&ours, &theirs, wanted).assert_clean(pair, 500);
    }
}

/// `extra.json`'s run: `-n` with psnr's `enable_mse` / `enable_apsnr`,
/// float_ssim's `enable_lcs`, cambi's `full_ref` and every other feature
/// it holds — the float features, psnr_hvs and ciede: every value libvmaf
/// printed, as it printed it.
#[test]
fn feature_options_match_libvmaf() {
    let mut args = vec![
        "-n",
        "--feature",
        "float_ssim=enable_lcs=true",
        "--feature",
        "psnr=enable_mse=true:enable_apsnr=true",
        "--feature",
        "cambi=full_ref=true",
    ];
    for feature in EXTRA_FEATURES {
        args.extend(["--feature", feature]);
    }
    for pair in PAIRS {
        let (ours, _) = score(pair, "extra", &args);
        let theirs = libvmaf_ref_json(pair, "extra");
        assert_eq!(foreign_names(&ours, &theirs), Vec::<String>::new(), "{pair}");
        let keys = frame_keys(&ours);
        let missing: Vec<String> =
            frame_keys(&theirs).into_iter().filter(|k| !keys.contains(k)).collect();
        assert_eq!(missing, Vec::<String>::new(), "{pair}");
        let wanted = |k: &str| keys.iter().any(|o| o == k) || k.starts_with("apsnr");
        compare(&ours, &theirs, wanted).assert_clean(pair, 100);
        assert!(ours["aggregate_metrics"]["apsnr_cr"].is_number(), "{pair}: no apsnr_cr");
    }
}

/// The integer ADM and motion options of libvmaf's v1.0.16 models
/// (`adm_csf_mode=2` at the four viewing geometries; `motion_max_val`, and
/// the HFR models' five-frame window and moving average) given as
/// `--feature` options: every value must be in `models.json` under the
/// same suffixed name (`integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_rdh_2160`,
/// `integer_motion3_mffw_mmxv_18_mma`) and print the same. The two
/// 576x324 clips (8- and 10-bit) keep it short; the library tests cover
/// the 1080p clip.
#[test]
fn v1_model_feature_options_match_libvmaf() {
    const V1: [&str; 6] = [
        "adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:\
         adm_norm_view_dist=3.0:adm_ref_display_height=1080:adm_min_val=0.5:adm_csf_mode=2",
        "adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:\
         adm_norm_view_dist=3.0:adm_ref_display_height=2160:adm_min_val=0.5:adm_csf_mode=2",
        "adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:\
         adm_norm_view_dist=5.0:adm_ref_display_height=1080:adm_min_val=0.5:adm_csf_mode=2",
        "adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:\
         adm_norm_view_dist=1.5:adm_ref_display_height=2160:adm_min_val=0.5:adm_csf_mode=2",
        "motion=motion_max_val=18.0",
        "motion=motion_max_val=18.0:motion_five_frame_window=true:motion_moving_average=true",
    ];
    let mut args = vec!["-n"];
    for feature in V1 {
        args.extend(["--feature", feature]);
    }
    for pair in &PAIRS[1..] {
        let (ours, _) = score(pair, "v1-options", &args);
        let theirs = libvmaf_ref_json(pair, "models");
        assert_eq!(foreign_names(&ours, &theirs), Vec::<String>::new(), "{pair}");
        let keys = frame_keys(&ours);
        assert_eq!(keys.len(), 4 * 7 + 2 * 3, "{pair}: {keys:?}");
        for key in [
            "integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_1.5_rdh_2160",
            "integer_motion3_mffw_mmxv_18_mma",
            "VMAF_integer_feature_motion_sad_score_mmxv_18",
        ] {
            assert!(keys.iter().any(|k| k == key), "{pair}: no {key} in {keys:?}");
        }
        let wanted = |k: &str| keys.iter().any(|o| o == k);
        compare(&ours, &theirs, wanted).assert_clean(pair, 300);
    }
}

/// The v1.0.16 models of `models.json`, each under its own name as the
/// reference run loaded them: every score, and every input feature under
/// its option-suffixed name, as libvmaf printed them.
#[test]
fn v1_models_match_libvmaf() {
    const V1: [&str; 5] = [
        "vmaf_v1.0.16_3d0h",
        "vmaf_v1.0.16_3d0h_2160",
        "vmaf_v1.0.16_5d0h",
        "vmaf_v1.0.16_1d5h_2160",
        "vmaf_v1.0.16_hfr_3d0h",
    ];
    let specs: Vec<String> = V1.iter().map(|m| format!("version={m}:name={m}")).collect();
    let mut args = Vec::new();
    for spec in &specs {
        args.extend(["--model", spec.as_str()]);
    }
    for pair in &PAIRS[1..] {
        let (ours, _) = score(pair, "v1-models", &args);
        let theirs = libvmaf_ref_json(pair, "models");
        assert_eq!(foreign_names(&ours, &theirs), Vec::<String>::new(), "{pair}");
        let keys = frame_keys(&ours);
        for model in V1 {
            assert!(keys.iter().any(|k| k == model), "{pair}: no {model} in {keys:?}");
        }
        let wanted = |k: &str| keys.iter().any(|o| o == k);
        compare(&ours, &theirs, wanted).assert_clean(pair, 400);
    }
}

/// The features of `extra.json` given without options.
const EXTRA_FEATURES: [&str; 8] = [
    "float_moment",
    "float_psnr",
    "float_ansnr",
    "float_motion",
    "float_vif",
    "float_adm",
    "psnr_hvs",
    "ciede",
];

/// `--aom_ctc v6.0` against libvmaf's: every value, vmaf and vmaf_neg,
/// psnr with `reduced_hbd_peak`, `enable_apsnr` and `min_sse`, float_ssim /
/// float_ms_ssim in dB, psnr_hvs, ciede2000 and cambi.
#[test]
fn aom_ctc_matches_libvmaf() {
    for pair in PAIRS {
        let (ours, _) = score(pair, "aomctc", &["--aom_ctc", "v6.0"]);
        let theirs = libvmaf_ref_json(pair, "aomctc");
        assert_eq!(foreign_names(&ours, &theirs), Vec::<String>::new(), "{pair}");
        let keys = frame_keys(&ours);
        let missing: Vec<String> =
            frame_keys(&theirs).into_iter().filter(|k| !keys.contains(k)).collect();
        assert_eq!(missing, Vec::<String>::new(), "{pair}");
        let wanted = |k: &str| keys.iter().any(|o| o == k) || k.starts_with("apsnr");
        compare(&ours, &theirs, wanted).assert_clean(pair, 300);
    }
}

/// libvmaf's `-n` with models (here a preset's two) still extracts their
/// features and only skips the prediction: every value of libvmaf's
/// `aomctc` report but the two scores, as libvmaf printed it, and no
/// pooled score line. Before, vqscope dropped the models' features.
#[test]
fn no_prediction_keeps_the_models_features() {
    let pair = PAIRS[1];
    let (ours, stdout) = score(pair, "aomctc-n", &["-n", "--aom_ctc", "v6.0"]);
    let theirs = libvmaf_ref_json(pair, "aomctc");
    assert_eq!(foreign_names(&ours, &theirs), Vec::<String>::new(), "{pair}");
    let keys = frame_keys(&ours);
    let missing: Vec<String> =
        frame_keys(&theirs).into_iter().filter(|k| !keys.contains(k)).collect();
    assert_eq!(missing, ["vmaf", "vmaf_neg"], "{pair}");
    for key in ["integer_adm2_egl_1", "integer_vif_scale3", "integer_motion2", "cambi"] {
        assert!(keys.iter().any(|k| k == key), "{pair}: no {key} in {keys:?}");
    }
    let wanted = |k: &str| keys.iter().any(|o| o == k) || k.starts_with("apsnr");
    compare(&ours, &theirs, wanted).assert_clean(pair, 300);
    assert_eq!(stdout.trim(), "", "a score printed with -n");
}

/// libvmaf reads `--frame_cnt 0` as no limit and `--subsample 0` as every
/// frame; vqscope refused both.
#[test]
fn zero_frame_count_and_subsample_mean_what_they_mean_in_libvmaf() {
    let pair = PAIRS[0];
    let (all, _) = score(pair, "zero-base", &["-n", "--feature", "psnr"]);
    let frames = all["frames"].as_array().unwrap().len();
    assert!(frames > 2, "{frames} frames");
    for (tag, option) in [("zero-cnt", "--frame_cnt"), ("zero-sub", "--subsample")] {
        let (report, _) = score(pair, tag, &["-n", "--feature", "psnr", option, "0"]);
        assert_eq!(report["frames"], all["frames"], "{option} 0");
    }
    let (two, _) = score(pair, "cnt-2", &["-n", "--feature", "psnr", "--frame_cnt", "2"]);
    assert_eq!(two["frames"].as_array().unwrap().len(), 2);
}

/// The report's pooled mean of `key`.
fn pooled_mean(report: &Value, key: &str) -> f64 {
    report["pooled_metrics"][key]["mean"].as_f64().unwrap_or_else(|| panic!("no pooled {key}"))
}

/// `--subsample 2` printed a pooled VMAF over every frame while the report
/// (like libvmaf's) pools every second one: both must say the same.
#[test]
fn subsampled_pooled_score_is_the_reports() {
    let pair = PAIRS[0];
    let (report, stdout) = score(pair, "subsample", &["--subsample", "2"]);
    let printed = stdout.trim().strip_prefix("vmaf_v0.6.1: ").expect(&stdout).to_owned();
    assert_eq!(printed, format!("{:.6}", pooled_mean(&report, "vmaf")));
    let (all, _) = score(pair, "all", &[]);
    assert_ne!(printed, format!("{:.6}", pooled_mean(&all, "vmaf")), "subsampling changed nothing");
}

/// An option in the model string must act: `motion_force_zero` makes
/// every motion value 0 under libvmaf's `_force_0` names, and the score is
/// the model's prediction from those inputs.
#[test]
fn model_feature_overrides_act_and_rename() {
    let pair = PAIRS[0];
    let spec = "version=vmaf_v0.6.1:name=forced:motion.motion_force_zero=true";
    let (forced, _) = score(pair, "force-zero", &["--model", spec]);
    let model = vqscope_metrics::model::Model::from_spec("version=vmaf_v0.6.1").unwrap();
    for frame in forced["frames"].as_array().unwrap() {
        let m = &frame["metrics"];
        assert_eq!(m["integer_motion2_force_0"].as_f64(), Some(0.0), "{m}");
        let inputs: Vec<f64> = [
            "integer_adm2",
            "integer_motion2_force_0",
            "integer_vif_scale0",
            "integer_vif_scale1",
            "integer_vif_scale2",
            "integer_vif_scale3",
        ]
        .iter()
        .map(|k| m[*k].as_f64().unwrap())
        .collect();
        // Inputs are read back at six decimals: agree to 1e-3.
        let expected = model.predict(&inputs);
        let got = m["forced"].as_f64().unwrap();
        assert!((got - expected).abs() < 1e-3, "forced {got} vs {expected}");
    }
    let (plain, _) = score(pair, "plain", &[]);
    assert_ne!(pooled_mean(&plain, "vmaf"), pooled_mean(&forced, "forced"));

    // VIF's gain limit in the model string names the values as libvmaf
    // does, and gives libvmaf's values for them.
    let spec = "version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0:adm.adm_enhn_gain_limit=1.0";
    let (egl, _) = score(pair, "egl", &["--model", spec]);
    let theirs = libvmaf_ref_json(pair, "models");
    let wanted = |k: &str| k.ends_with("_egl_1");
    compare(&egl, &theirs, wanted).assert_clean("egl", 100);
}

fn fails_with(args: &[&str], message: &str) {
    let output = vqscope(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(stderr.contains(message), "{args:?}: expected `{message}` in:\n{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: not one line:\n{stderr}");
}

/// Unknown models, extractors and options are refused in one line that
/// names what exists; models needing features vqscope lacks are not
/// offered.
#[test]
fn unknown_models_and_options_are_refused() {
    let r = reference_y4m(PAIRS[0]);
    let r = r.to_str().unwrap();
    let base = ["score", "-r", r, "-d", r, "-q"];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let run = |extra: &[&str], message: &str| {
        let args = with(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails_with(&args, message);
    };
    run(&["--model", "version=nope"], "vmaf_b_v0.6.3");
    let unknown =
        vqscope(&with(&["--model", "version=nope"]).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("vmaf_v1.0.16_hfr_1d5h_2160"),
        "does not offer the v1.0.16 models"
    );
    run(&["--model", "version=vmaf_v0.6.1:motion.nope=1"], "motion_force_zero");
    run(&["--model", "version=vmaf_v0.6.1:nope.x=1"], "nope");
    run(&["--model", "version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=0.5"], "adm_enhn_gain_limit");
    run(&["--feature", "psnr=nope=1"], "enable_chroma");
    run(&["--feature", "psnr=enable_mse=yes"], "enable_mse");
    run(&["--feature", "nope"], "unknown feature `nope`");
    run(&["--model", "version=vmaf_v0.6.1", "--model", "version=vmaf_v0.6.1neg"], "name=");
    run(&["--aom_ctc", "v9.0"], "v1.0 to v7.0");
}

/// `--feature vif=debug=true` adds VIF's debug values and no one else's.
#[test]
fn debug_is_per_feature() {
    let (report, _) =
        score(PAIRS[0], "vif-debug", &["-n", "--feature", "vif=debug=true", "--feature", "adm"]);
    let keys = frame_keys(&report);
    assert!(keys.iter().any(|k| k == "integer_vif_num_scale0"), "{keys:?}");
    assert!(!keys.iter().any(|k| k.starts_with("integer_adm_num")), "{keys:?}");
}

/// The options of every feature, as `--feature NAME=help` lists them,
/// with or without inputs; without them any other feature is refused.
#[test]
fn feature_help_lists_options() {
    for args in [&["-r", "x", "-d", "y"][..], &[]] {
        let output = vqscope(&[&["score", "--feature", "adm=help"][..], args].concat());
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert!(stdout.contains("adm_enhn_gain_limit=100") && stdout.contains("_egl"), "{stdout}");
    }
    let output = vqscope(&["score", "--feature", "adm"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("score needs -r/--reference"), "{stderr}");
    let output = vqscope(&["score", "-r", "x.y4m", "--feature", "adm"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("score needs -d/--distorted"));
}

/// libvmaf 3.2.0's default-model values on the pair [`sixteen_bit_pair`]
/// makes, recorded with `vmaf -r ref.yuv -d dis.yuv -w 176 -h 144 -p 420
/// -b 16 --json` (its AVX-512 path; `--cpumask 65535`, the C path, printed
/// the same). libvmaf reads 16-bit input only as raw yuv.
const SIXTEEN_BIT_LIBVMAF: [(&str, [&str; 3]); 15] = [
    ("integer_adm2", ["0.925399", "0.923751", "0.923628"]),
    ("integer_aim", ["0.004789", "0.005000", "0.004790"]),
    ("integer_adm3", ["0.960305", "0.959375", "0.959419"]),
    ("integer_adm_scale0", ["0.761312", "0.760134", "0.761492"]),
    ("integer_adm_scale1", ["0.840796", "0.839748", "0.840935"]),
    ("integer_adm_scale2", ["0.943522", "0.941414", "0.939909"]),
    ("integer_adm_scale3", ["0.983719", "0.984011", "0.984520"]),
    ("VMAF_integer_feature_motion_sad_score", ["0.000000", "9.890542", "10.070872"]),
    ("integer_vif_scale0", ["0.445039", "0.439575", "0.443100"]),
    ("integer_vif_scale1", ["0.979547", "0.979362", "0.978382"]),
    ("integer_vif_scale2", ["0.993611", "0.993712", "0.993247"]),
    ("integer_vif_scale3", ["0.997157", "0.997458", "0.997152"]),
    ("integer_motion2", ["0.000000", "9.890542", "10.070872"]),
    ("integer_motion3", ["9.890542", "9.890542", "10.070872"]),
    ("vmaf", ["81.418421", "92.178906", "92.290413"]),
];

/// Three 176x144 4:2:0 16-bit frames as raw yuv, reference and distorted:
/// a diagonal sawtooth with noise from a 32-bit LCG, and a horizontal
/// [1 2 1]/4 blur of it with more noise. Samples reach 57,000, so integer
/// ADM's int32 level-0 sums wrap, as they do in libvmaf.
fn sixteen_bit_pair() -> (Vec<u8>, Vec<u8>) {
    let mut state: u32 = 1;
    let mut noise = |m: u32| {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        i64::from((state >> 16) % m)
    };
    let (mut reference, mut distorted) = (Vec::new(), Vec::new());
    for f in 0..3i64 {
        for (p, (w, h)) in [(176i64, 144i64), (88, 72), (88, 72)].into_iter().enumerate() {
            for y in 0..h {
                let row: Vec<i64> = (0..w)
                    .map(|x| {
                        let saw = (x * 397 + y * 233 + f * 1500 + p as i64 * 9000) % 50_000;
                        (saw + 7000 + noise(4096) - 2048).clamp(0, 65_535)
                    })
                    .collect();
                for x in 0..w as usize {
                    let (a, c) = (row[x.saturating_sub(1)], row[(x + 1).min(w as usize - 1)]);
                    let d = ((a + 2 * row[x] + c) / 4 + noise(1024) - 512).clamp(0, 65_535);
                    reference.extend_from_slice(&(row[x] as u16).to_le_bytes());
                    distorted.extend_from_slice(&(d as u16).to_le_bytes());
                }
            }
        }
    }
    (reference, distorted)
}

/// 16-bit input scores as libvmaf scores it. vqscope refused integer ADM
/// above 12 bits, so the default model too, where libvmaf prints a score.
#[test]
fn sixteen_bit_input_scores_as_libvmaf() {
    let dir = out_dir();
    let (reference, distorted) = sixteen_bit_pair();
    let (r, d) = (dir.join("ref16.yuv"), dir.join("dis16.yuv"));
    std::fs::write(&r, reference).unwrap();
    std::fs::write(&d, distorted).unwrap();
    let mut args = vec!["-r", r.to_str().unwrap(), "-d", d.to_str().unwrap()];
    args.extend("--width 176 --height 144 --pixel_format 420 --bitdepth 16".split(' '));
    let (report, _) = score_report("sixteen", &args);
    let frames = report["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3);
    let mut differ = Vec::new();
    for (name, want) in SIXTEEN_BIT_LIBVMAF {
        for (i, w) in want.iter().enumerate() {
            let got = frames[i]["metrics"][name].as_f64().map(|v| format!("{v:.6}"));
            if got.as_deref() != Some(*w) {
                differ.push(format!("frame {i} {name}: {got:?}, libvmaf {w}"));
            }
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// A 10-bit y4m pair of 256x224 frames (mid-grey chroma, luma a ramp) whose
/// distorted frame 1 holds the luma sample `bad` at (50, 100).
fn ten_bit_pair_with(bad: u16) -> (PathBuf, PathBuf) {
    let (w, h) = (256usize, 224usize);
    let frame = |bad_at: Option<u16>| {
        let mut luma: Vec<u16> = (0..w * h).map(|i| (200 + (i % w) + (i / w)) as u16).collect();
        if let Some(v) = bad_at {
            luma[100 * w + 50] = v;
        }
        let chroma = vec![512u16; w * h / 2];
        let mut bytes = b"FRAME\n".to_vec();
        bytes.extend(luma.iter().chain(&chroma).flat_map(|v| v.to_le_bytes()));
        bytes
    };
    let header = format!("YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C420p10\n").into_bytes();
    let (r, d) = (
        out_dir().join(format!("ramp10.{bad}.ref.y4m")),
        out_dir().join(format!("ramp10.{bad}.dis.y4m")),
    );
    let mut reference = header.clone();
    let mut distorted = header;
    for i in 0..3 {
        reference.extend(frame(None));
        distorted.extend(frame((i == 1).then_some(bad)));
    }
    std::fs::write(&r, reference).unwrap();
    std::fs::write(&d, distorted).unwrap();
    (r, d)
}

/// libvmaf's CAMBI refuses a frame whose luma holds a sample past the
/// file's bit depth ("Invalid input. The input contains values greater
/// than 1023 …", exit status 234, no report); so does vqscope, naming the
/// frame, with `cambi` alone and in a v1 model. Up to the largest value
/// the frame scores.
#[test]
fn cambi_refuses_samples_past_the_bit_depth() {
    let (r, d) = ten_bit_pair_with(1500);
    let out = out_dir().join("refused.json");
    let _ = std::fs::remove_file(&out);
    let message = "cambi: distorted frame 1 has luma samples above 1023";
    let (r, d, o) = (r.to_str().unwrap(), d.to_str().unwrap(), out.to_str().unwrap());
    fails_with(&["score", "-r", r, "-d", d, "--feature", "cambi", "--json", "-o", o], message);
    assert!(!out.exists(), "a report of a refused clip");
    fails_with(&["score", "-r", r, "-d", d, "--model", "version=vmaf_v1.0.16_3d0h"], message);
    // The reference is checked with full_ref only.
    fails_with(
        &["score", "-r", d, "-d", r, "--feature", "cambi=full_ref=true"],
        "cambi: reference frame 1 has luma samples above 1023",
    );
    let (report, _) =
        score_report("cambi-reference-unchecked", &["-r", d, "-d", r, "-n", "--feature", "cambi"]);
    assert_eq!(frame_keys(&report), ["cambi"]);
    assert_eq!(report["frames"].as_array().unwrap().len(), 3);
    let (r, d) = ten_bit_pair_with(1023);
    let (report, _) = score_report(
        "cambi-at-max",
        &["-r", r.to_str().unwrap(), "-d", d.to_str().unwrap(), "-n", "--feature", "cambi"],
    );
    assert_eq!(frame_keys(&report), ["cambi"]);
    assert_eq!(report["frames"].as_array().unwrap().len(), 3);
}
