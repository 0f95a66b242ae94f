//! The libvmaf parity check of `cambi`: score frames of every shared clip
//! pair under each CAMBI option set libvmaf's reference reports use, and
//! require every value to print (`%.6f`) exactly as libvmaf 3.2.0 printed
//! it in `refs/NAME.{extra,aomctc,models}.json`.
//!
//! The option sets: `full_ref=true` (`extra`: `cambi`, `cambi_source`,
//! `cambi_full_reference`), the defaults (`aomctc`: `cambi`) and the v1
//! models' `cambi_high_res_speedup=1080:cambi_max_val=17:
//! cambi_vis_lum_threshold=0.06` (`models`:
//! `cambi_hrs_1080_cmxv_17_vlt_0.06`).

use vqscope_metrics::features::cambi::{CambiOptions, CambiScore, Eotf};

use crate::clips::{
    PAIRS, distorted_y4m, libvmaf_frames, libvmaf_ref_json, printed, reference_y4m,
};
use crate::motion_psnr::{Plane, y4m_frames};

/// Which output of a [`CambiScore`] a report column holds.
#[derive(Debug, Clone, Copy)]
pub enum Output {
    Cambi,
    Source,
    FullReference,
}

impl Output {
    fn of(self, score: &CambiScore) -> f64 {
        match self {
            Self::Cambi => score.cambi,
            Self::Source => score.source.expect("cambi_source needs full_ref"),
            Self::FullReference => {
                score.full_reference.expect("cambi_full_reference needs full_ref")
            }
        }
    }
}

/// One option set and the report columns libvmaf wrote for it.
pub struct Case {
    pub options: CambiOptions,
    /// `(report kind, column name, output)`.
    pub columns: &'static [(&'static str, &'static str, Output)],
}

/// Every CAMBI option set in the reference reports.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            options: CambiOptions { full_ref: true, ..Default::default() },
            columns: &[
                ("extra", "cambi", Output::Cambi),
                ("extra", "cambi_source", Output::Source),
                ("extra", "cambi_full_reference", Output::FullReference),
            ],
        },
        Case { options: CambiOptions::default(), columns: &[("aomctc", "cambi", Output::Cambi)] },
        Case {
            options: CambiOptions {
                cambi_high_res_speedup: 1080,
                cambi_max_val: 17.0,
                cambi_vis_lum_threshold: 0.06,
                ..Default::default()
            },
            columns: &[("models", "cambi_hrs_1080_cmxv_17_vlt_0.06", Output::Cambi)],
        },
    ]
}

/// What scores a frame: the CPU twin (or, later, a GPU kernel).
pub trait Backend {
    /// The outputs for the luma planes of one frame pair under `options`.
    fn score(&mut self, options: &CambiOptions, reference: &Plane, distorted: &Plane)
    -> CambiScore;
}

/// Scores every `stride`-th frame (and always the last) of every shared
/// clip pair under every [`cases`] option set, prints per clip and column
/// the values compared and the largest |Δ|, and panics listing every value
/// whose printed form differs from libvmaf's.
pub fn check_shared_clips(backend: &mut impl Backend, stride: usize) {
    let mut failures = Vec::new();
    let mut compared = 0;
    for pair in PAIRS {
        let frames: Vec<(Plane, Plane)> = y4m_frames(&reference_y4m(pair))
            .zip(y4m_frames(&distorted_y4m(pair)))
            .map(|(r, d)| (Plane::of(&r, 0), Plane::of(&d, 0)))
            .collect();
        let last = frames.len() - 1;
        let picked: Vec<usize> =
            (0..frames.len()).filter(|&i| i % stride == 0 || i == last).collect();
        for case in cases() {
            let want: Vec<Vec<f64>> = case
                .columns
                .iter()
                .map(|(kind, key, _)| libvmaf_frames(&libvmaf_ref_json(pair, kind), key))
                .collect();
            for w in &want {
                assert_eq!(w.len(), frames.len(), "{pair}: libvmaf scored a different frame count");
            }
            let mut max_diff = vec![0f64; case.columns.len()];
            for &i in &picked {
                let (r, d) = &frames[i];
                let score = backend.score(&case.options, r, d);
                for (c, (kind, key, output)) in case.columns.iter().enumerate() {
                    let (ours, theirs) = (output.of(&score), want[c][i]);
                    max_diff[c] = max_diff[c].max((ours - theirs).abs());
                    compared += 1;
                    if printed(ours) != printed(theirs) {
                        failures.push(format!(
                            "{pair} frame {i} {kind}.{key}: ours {ours:.9} libvmaf {theirs:.6}"
                        ));
                    }
                }
            }
            for (c, (kind, key, _)) in case.columns.iter().enumerate() {
                println!(
                    "{pair}: {kind}.{key}: {} frames, max |Δ| {:.3e}",
                    picked.len(),
                    max_diff[c]
                );
            }
        }
    }
    assert!(compared > 0, "nothing compared");
    assert!(failures.is_empty(), "printed values differing from libvmaf 3.2.0:\n{failures:#?}");
}

/// A libvmaf value pinned for one frame: `(pair, frame, [(column, output,
/// printed value)])`.
pub type PinnedFrame = (&'static str, usize, &'static [(&'static str, Output, &'static str)]);

/// An option set the shared reports lack, with libvmaf 3.2.0's printed
/// values for the first and last frame of every clip pair.
pub struct Pinned {
    /// The option string as `--feature cambi=…` took it.
    pub libvmaf: &'static str,
    pub options: CambiOptions,
    pub values: &'static [PinnedFrame],
}

/// Option sets beyond the reference reports, covering the options those
/// leave at their defaults: PQ through both `eotf` options, every
/// `max_log_contrast` extreme, `tvi_threshold`, `topk` and `cambi_topk`,
/// `window_size` at both ends of its range, `cambi_vis_lum_threshold`, the
/// working-size decimation of the encode and (upscaling the 576x324 clips)
/// of the source, `enc_bitdepth` switching the anti-dithering off for 8-bit
/// input and on for 10-bit input, and the cap on all three `full_ref`
/// outputs. The values were printed by libvmaf 3.2.0's `vmaf` tool (tag
/// `v3.2.0` built with meson, `-Denable_asm=false`, which reproduces
/// `refs/*.extra.json`'s cambi values exactly), run as
/// `vmaf -r NAME.ref.y4m -d NAME.dis.y4m -n --feature cambi=OPTIONS --json`.
pub fn pinned() -> Vec<Pinned> {
    let d = CambiOptions::default();
    vec![
        Pinned {
            libvmaf: "cambi_eotf=pq:max_log_contrast=5:tvi_threshold=0.01",
            options: CambiOptions {
                cambi_eotf: Eotf::Pq,
                max_log_contrast: 5,
                tvi_threshold: 0.01,
                ..d
            },
            values: &[
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    0,
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "2.277288")],
                ),
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    7,
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "2.010232")],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    0,
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "1.900558")],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    7,
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "1.845096")],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    0,
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "18.384224")],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    11,
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "16.075238")],
                ),
            ],
        },
        Pinned {
            libvmaf: "eotf=pq:max_log_contrast=0:topk=0.25:window_size=127",
            options: CambiOptions {
                eotf: Eotf::Pq,
                max_log_contrast: 0,
                topk: 0.25,
                window_size: 127,
                ..d
            },
            values: &[
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    0,
                    &[("cambi_eotf_pq_mlc_0_topk_0.25_ws_127", Output::Cambi, "0.000526")],
                ),
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    7,
                    &[("cambi_eotf_pq_mlc_0_topk_0.25_ws_127", Output::Cambi, "0.000689")],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    0,
                    &[("cambi_eotf_pq_mlc_0_topk_0.25_ws_127", Output::Cambi, "0.002201")],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    7,
                    &[("cambi_eotf_pq_mlc_0_topk_0.25_ws_127", Output::Cambi, "0.000000")],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    0,
                    &[("cambi_eotf_pq_mlc_0_topk_0.25_ws_127", Output::Cambi, "0.007378")],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    11,
                    &[("cambi_eotf_pq_mlc_0_topk_0.25_ws_127", Output::Cambi, "0.018909")],
                ),
            ],
        },
        Pinned {
            libvmaf: "full_ref=true:enc_width=480:enc_height=270:src_width=640:src_height=360:enc_bitdepth=10",
            options: CambiOptions {
                full_ref: true,
                enc_width: 480,
                enc_height: 270,
                src_width: 640,
                src_height: 360,
                enc_bitdepth: 10,
                ..d
            },
            values: &[
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    0,
                    &[
                        (
                            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640",
                            Output::Cambi,
                            "0.505387",
                        ),
                        ("cambi_source", Output::Source, "0.062115"),
                        ("cambi_full_reference", Output::FullReference, "0.443272"),
                    ],
                ),
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    7,
                    &[
                        (
                            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640",
                            Output::Cambi,
                            "0.395445",
                        ),
                        ("cambi_source", Output::Source, "0.034846"),
                        ("cambi_full_reference", Output::FullReference, "0.360598"),
                    ],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    0,
                    &[
                        (
                            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640",
                            Output::Cambi,
                            "0.615169",
                        ),
                        ("cambi_source", Output::Source, "0.013031"),
                        ("cambi_full_reference", Output::FullReference, "0.602138"),
                    ],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    7,
                    &[
                        (
                            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640",
                            Output::Cambi,
                            "0.573505",
                        ),
                        ("cambi_source", Output::Source, "0.000146"),
                        ("cambi_full_reference", Output::FullReference, "0.573358"),
                    ],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    0,
                    &[
                        (
                            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640",
                            Output::Cambi,
                            "18.420056",
                        ),
                        ("cambi_source", Output::Source, "14.448193"),
                        ("cambi_full_reference", Output::FullReference, "3.971863"),
                    ],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    11,
                    &[
                        (
                            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640",
                            Output::Cambi,
                            "18.556195",
                        ),
                        ("cambi_source", Output::Source, "13.577986"),
                        ("cambi_full_reference", Output::FullReference, "4.978208"),
                    ],
                ),
            ],
        },
        Pinned {
            libvmaf: "enc_bitdepth=8:cambi_topk=0.9:window_size=15:tvi_threshold=0.05:cambi_vis_lum_threshold=5",
            options: CambiOptions {
                enc_bitdepth: 8,
                cambi_topk: 0.9,
                window_size: 15,
                tvi_threshold: 0.05,
                cambi_vis_lum_threshold: 5.0,
                ..d
            },
            values: &[
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    0,
                    &[("cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15", Output::Cambi, "0.228867")],
                ),
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    7,
                    &[("cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15", Output::Cambi, "0.164591")],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    0,
                    &[("cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15", Output::Cambi, "0.000000")],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    7,
                    &[("cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15", Output::Cambi, "0.000000")],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    0,
                    &[("cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15", Output::Cambi, "1.940409")],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    11,
                    &[("cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15", Output::Cambi, "1.506328")],
                ),
            ],
        },
        Pinned {
            libvmaf: "full_ref=true:cambi_high_res_speedup=1080:cambi_max_val=0.5",
            options: CambiOptions {
                full_ref: true,
                cambi_high_res_speedup: 1080,
                cambi_max_val: 0.5,
                ..d
            },
            values: &[
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    0,
                    &[
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.500000"),
                        ("cambi_source", Output::Source, "0.014283"),
                        ("cambi_full_reference", Output::FullReference, "0.500000"),
                    ],
                ),
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    7,
                    &[
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.500000"),
                        ("cambi_source", Output::Source, "0.003243"),
                        ("cambi_full_reference", Output::FullReference, "0.500000"),
                    ],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    0,
                    &[
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.500000"),
                        ("cambi_source", Output::Source, "0.013122"),
                        ("cambi_full_reference", Output::FullReference, "0.500000"),
                    ],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    7,
                    &[
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.500000"),
                        ("cambi_source", Output::Source, "0.000011"),
                        ("cambi_full_reference", Output::FullReference, "0.500000"),
                    ],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    0,
                    &[
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.500000"),
                        ("cambi_source", Output::Source, "0.500000"),
                        ("cambi_full_reference", Output::FullReference, "0.500000"),
                    ],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    11,
                    &[
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.500000"),
                        ("cambi_source", Output::Source, "0.500000"),
                        ("cambi_full_reference", Output::FullReference, "0.500000"),
                    ],
                ),
            ],
        },
    ]
}

/// Checks every [`pinned`] value with `backend`, panicking with every
/// printed mismatch.
pub fn check_pinned(backend: &mut impl Backend) {
    let mut failures = Vec::new();
    let mut compared = 0;
    for pair in PAIRS {
        let frames: Vec<(Plane, Plane)> = y4m_frames(&reference_y4m(pair))
            .zip(y4m_frames(&distorted_y4m(pair)))
            .map(|(r, d)| (Plane::of(&r, 0), Plane::of(&d, 0)))
            .collect();
        for set in pinned() {
            for &(_, i, columns) in set.values.iter().filter(|v| v.0 == pair) {
                let (r, d) = &frames[i];
                let score = backend.score(&set.options, r, d);
                for &(key, output, theirs) in columns {
                    compared += 1;
                    let ours = printed(output.of(&score));
                    if ours != theirs {
                        failures.push(format!(
                            "{pair} frame {i} cambi={}: {key}: ours {ours} libvmaf {theirs}",
                            set.libvmaf
                        ));
                    }
                }
            }
        }
    }
    println!("{compared} pinned values compared");
    assert!(compared > 0, "nothing compared");
    assert!(failures.is_empty(), "printed values differing from libvmaf 3.2.0:\n{failures:#?}");
}
