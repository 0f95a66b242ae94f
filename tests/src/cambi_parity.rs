//! The libvmaf parity check of `cambi`: score frames of every shared clip
//! pair under each CAMBI option set libvmaf's reference reports use, and
//! require every value to print (`%.6f`) exactly as libvmaf 3.2.0 printed
//! it in `refs/NAME.{extra,aomctc,models}.json`.
//!
//! The option sets: `full_ref=true` (`extra`: `cambi`, `cambi_source`,
//! `cambi_full_reference`), the defaults (`aomctc`: `cambi`) and the v1
//! models' `cambi_high_res_speedup=1080:cambi_max_val=17:
//! cambi_vis_lum_threshold=0.06` (`models`:
//! `cambi_hrs_1080_cmxv_17_vlt_0.06`). [`check_pinned`] adds five more
//! option sets, with libvmaf's full doubles for two frames of each clip.

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

/// libvmaf values pinned for one frame: `(pair, frame, [(column, output,
/// value)])`, each value libvmaf's double written as the shortest decimal
/// that reads back to it.
pub type PinnedFrame = (&'static str, usize, &'static [(&'static str, Output, &'static str)]);

/// An option set the shared reports lack, with libvmaf 3.2.0's values for
/// the first and last frame of every clip pair.
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
/// outputs. The values come from libvmaf 3.2.0's `vmaf` tool (tag `v3.2.0`
/// built with meson, `-Denable_asm=false`, which reproduces
/// `refs/*.extra.json`'s cambi values exactly), run as
/// `vmaf -r NAME.ref.y4m -d NAME.dis.y4m -n --feature cambi=OPTIONS --json`
/// with its JSON writer's per-frame `%.6f` changed to `%.17g`, so that the
/// twin is held to libvmaf's doubles, not only to their printed digits.
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
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "2.2772878736426714")],
                ),
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    7,
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "2.0102317999265")],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    0,
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "1.9005581256016741")],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    7,
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "1.8450959756082115")],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    0,
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "18.38422438981486")],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    11,
                    &[("cambi_ceot_pq_mlc_5_tvit_0.01", Output::Cambi, "16.07523818688105")],
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
                    &[(
                        "cambi_eotf_pq_mlc_0_topk_0.25_ws_127",
                        Output::Cambi,
                        "0.0005255595983148192",
                    )],
                ),
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    7,
                    &[(
                        "cambi_eotf_pq_mlc_0_topk_0.25_ws_127",
                        Output::Cambi,
                        "0.0006893200835476463",
                    )],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    0,
                    &[(
                        "cambi_eotf_pq_mlc_0_topk_0.25_ws_127",
                        Output::Cambi,
                        "0.0022010306502561394",
                    )],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    7,
                    &[("cambi_eotf_pq_mlc_0_topk_0.25_ws_127", Output::Cambi, "0")],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    0,
                    &[(
                        "cambi_eotf_pq_mlc_0_topk_0.25_ws_127",
                        Output::Cambi,
                        "0.007378377081293115",
                    )],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    11,
                    &[(
                        "cambi_eotf_pq_mlc_0_topk_0.25_ws_127",
                        Output::Cambi,
                        "0.018908556231705047",
                    )],
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
                            "0.5053865152670051",
                        ),
                        ("cambi_source", Output::Source, "0.062114940120038854"),
                        ("cambi_full_reference", Output::FullReference, "0.4432715751469662"),
                    ],
                ),
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    7,
                    &[
                        (
                            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640",
                            Output::Cambi,
                            "0.3954447450590535",
                        ),
                        ("cambi_source", Output::Source, "0.03484627485051774"),
                        ("cambi_full_reference", Output::FullReference, "0.3605984702085358"),
                    ],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    0,
                    &[
                        (
                            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640",
                            Output::Cambi,
                            "0.6151691485433011",
                        ),
                        ("cambi_source", Output::Source, "0.013031221982713118"),
                        ("cambi_full_reference", Output::FullReference, "0.602137926560588"),
                    ],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    7,
                    &[
                        (
                            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640",
                            Output::Cambi,
                            "0.5735048460616987",
                        ),
                        ("cambi_source", Output::Source, "0.0001463498649956219"),
                        ("cambi_full_reference", Output::FullReference, "0.5733584961967031"),
                    ],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    0,
                    &[
                        (
                            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640",
                            Output::Cambi,
                            "18.420055941524566",
                        ),
                        ("cambi_source", Output::Source, "14.448192976420978"),
                        ("cambi_full_reference", Output::FullReference, "3.971862965103588"),
                    ],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    11,
                    &[
                        (
                            "cambi_encbd_10_ench_270_encw_480_srch_360_srcw_640",
                            Output::Cambi,
                            "18.55619486075952",
                        ),
                        ("cambi_source", Output::Source, "13.577986406784305"),
                        ("cambi_full_reference", Output::FullReference, "4.978208453975213"),
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
                    &[(
                        "cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15",
                        Output::Cambi,
                        "0.22886679395944584",
                    )],
                ),
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    7,
                    &[(
                        "cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15",
                        Output::Cambi,
                        "0.16459075580233581",
                    )],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    0,
                    &[("cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15", Output::Cambi, "0")],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    7,
                    &[("cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15", Output::Cambi, "0")],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    0,
                    &[(
                        "cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15",
                        Output::Cambi,
                        "1.9404094718007765",
                    )],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    11,
                    &[(
                        "cambi_ctpk_0.9_vlt_5_encbd_8_tvit_0.05_ws_15",
                        Output::Cambi,
                        "1.5063281917068005",
                    )],
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
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.5"),
                        ("cambi_source", Output::Source, "0.014282555351690485"),
                        ("cambi_full_reference", Output::FullReference, "0.5"),
                    ],
                ),
                (
                    "collage_1920x1080_420p8_scaled960x540_x264crf23",
                    7,
                    &[
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.5"),
                        ("cambi_source", Output::Source, "0.003242828788363889"),
                        ("cambi_full_reference", Output::FullReference, "0.5"),
                    ],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    0,
                    &[
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.5"),
                        ("cambi_source", Output::Source, "0.013122303650834069"),
                        ("cambi_full_reference", Output::FullReference, "0.5"),
                    ],
                ),
                (
                    "retina_576x324_420p10_x264crf35",
                    7,
                    &[
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.5"),
                        ("cambi_source", Output::Source, "1.058446769058161e-05"),
                        ("cambi_full_reference", Output::FullReference, "0.5"),
                    ],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    0,
                    &[
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.5"),
                        ("cambi_source", Output::Source, "0.5"),
                        ("cambi_full_reference", Output::FullReference, "0.5"),
                    ],
                ),
                (
                    "rocket_576x324_420p8_x264crf35",
                    11,
                    &[
                        ("cambi_hrs_1080_cmxv_0.5", Output::Cambi, "0.5"),
                        ("cambi_source", Output::Source, "0.5"),
                        ("cambi_full_reference", Output::FullReference, "0.5"),
                    ],
                ),
            ],
        },
    ]
}

/// Checks every [`pinned`] value with `backend`: the double must be
/// libvmaf's, bit for bit (so also its printed `%.6f`); panics listing
/// every mismatch.
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
                    let ours = output.of(&score);
                    let theirs: f64 = theirs.parse().expect("pinned value");
                    if ours.to_bits() != theirs.to_bits() {
                        failures.push(format!(
                            "{pair} frame {i} cambi={}: {key}: ours {ours:?} libvmaf {theirs:?} \
                             (printed {} vs {})",
                            set.libvmaf,
                            printed(ours),
                            printed(theirs)
                        ));
                    }
                }
            }
        }
    }
    println!("{compared} pinned values compared");
    assert!(compared > 0, "nothing compared");
    assert!(failures.is_empty(), "values differing from libvmaf 3.2.0:\n{failures:#?}");
}
