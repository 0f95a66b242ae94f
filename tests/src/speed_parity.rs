//! The libvmaf parity check of `speed_chroma`, shared by the CPU twin's
//! test and the scoring pipeline's: every shared clip pair, with each of the
//! three option sets the v1 models run it with, against libvmaf 3.2.0's
//! float build (`clips/refs/*.models.json`, whose names carry the option
//! suffixes): per frame |ours − libvmaf| ≤ 1e-6 for `speed_chroma_u`, `_v`
//! and `_uv`, with the largest |Δ| and the printed (`%.6f`) mismatches
//! reported.

use vqscope_video::Frame;

use crate::clips::{PAIRS, distorted_y4m, libvmaf_frames, libvmaf_ref_json, reference_y4m};
use crate::motion_psnr::y4m_frames;
use crate::ssim_parity::{TOLERANCE, Tally};

/// The option sets of the v1 models (`vmaf_v1.0.16_*`; the 2160 ones add
/// a prescale), as `--feature speed_chroma=…` takes them, and the suffix
/// libvmaf prints after `speed_chroma_u` / `_v` / `_uv`.
pub const OPTION_SETS: [(&str, &str); 3] = [
    (
        "speed_kernelscale=1.0:speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:\
         speed_max_val=45.0",
        "_mxv_45_nnf_0.1_snn_0.19_wvm_5",
    ),
    (
        "speed_kernelscale=1.0:speed_prescale=0.5:speed_prescale_method=bilinear:\
         speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45.0",
        "_mxv_45_nnf_0.1_ps_0.5_psm_bilinear_snn_0.19_wvm_5",
    ),
    (
        "speed_kernelscale=1.0:speed_prescale=0.6:speed_prescale_method=bilinear:\
         speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45.0",
        "_mxv_45_nnf_0.1_ps_0.6_psm_bilinear_snn_0.19_wvm_5",
    ),
];

/// What scores a clip: the CPU twin or the scoring pipeline.
pub trait Backend {
    /// `[u, v, uv]` per frame of a clip with option set `options`
    /// ([`OPTION_SETS`]); `names` are the output names it reports, where
    /// it reports names (checked against libvmaf's).
    fn score(
        &mut self,
        options: &str,
        frames: &[(Frame, Frame)],
    ) -> (Option<Vec<String>>, Vec<[f64; 3]>);
}

/// Scores every shared clip pair with every option set, prints the
/// tallies and panics when a value lies beyond [`TOLERANCE`] or a name
/// differs from libvmaf's.
pub fn check_shared_clips(backend: &mut impl Backend) {
    let mut failures = Vec::new();
    for pair in PAIRS {
        let json = libvmaf_ref_json(pair, "models");
        let frames: Vec<(Frame, Frame)> =
            y4m_frames(&reference_y4m(pair)).zip(y4m_frames(&distorted_y4m(pair))).collect();
        for (options, suffix) in OPTION_SETS {
            let names: Vec<String> =
                ["u", "v", "uv"].iter().map(|c| format!("speed_chroma_{c}{suffix}")).collect();
            let (ours_names, ours) = backend.score(options, &frames);
            if let Some(n) = ours_names {
                assert_eq!(n, names, "{pair}: output names");
            }
            assert_eq!(ours.len(), frames.len(), "{pair}: frames scored");
            for (c, name) in names.iter().enumerate() {
                let want = libvmaf_frames(&json, name);
                assert_eq!(want.len(), frames.len(), "{pair}: libvmaf's frame count");
                let mut t = Tally::default();
                for (i, (o, w)) in ours.iter().zip(&want).enumerate() {
                    t.add(&format!("{pair} frame {i} {name}"), o[c], *w);
                }
                println!(
                    "{pair} {name}: {} values, max |Δ| {:.3e} ({}), printed mismatches {}",
                    t.values, t.max_diff, t.max_at, t.printed_mismatches
                );
                failures.append(&mut t.failures);
            }
        }
    }
    assert!(failures.is_empty(), "beyond {TOLERANCE:e}:\n{failures:#?}");
}
