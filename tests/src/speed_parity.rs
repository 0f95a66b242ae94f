//! The libvmaf parity check of `speed_chroma`, shared by the CPU twin's
//! test and the scoring pipeline's: every shared clip pair, with each of the
//! three option sets the v1 models run it with, against libvmaf 3.2.0's
//! float build (`clips/refs/*.models.json`, whose names carry the option
//! suffixes): per frame |ours − libvmaf| ≤ 1e-6 for `speed_chroma_u`, `_v`
//! and `_uv`, with the largest |Δ| and the printed (`%.6f`) mismatches
//! reported. Every printed digit must agree (it does on all 243 values).

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
    let mut printed_mismatches = 0;
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
                printed_mismatches += t.printed_mismatches;
                failures.append(&mut t.failures);
            }
        }
    }
    assert!(failures.is_empty(), "beyond {TOLERANCE:e}:\n{failures:#?}");
    // Every printed digit agrees on these clips (measured): keep it so.
    assert_eq!(printed_mismatches, 0, "printed values differing from libvmaf");
}

/// A 320x240 4:2:0 clip of 5 frames for `speed_temporal` (libvmaf's
/// reference output has none): integer patterns that move a little each
/// frame plus hashed texture; the distorted side adds hashed noise of ±6.
/// At 10 bits each 8-bit value `v` becomes `4·v + (x·y + t) mod 4`. The same
/// generator, written in Python, made the y4m files the expected values of
/// [`TEMPORAL_CASES`] came from.
pub fn temporal_clip(bits: u32) -> Vec<(Frame, Frame)> {
    use vqscope_video::frame::{ChromaFormat, ColorInfo, Geometry, PixelFormat};
    const W: u64 = 320;
    const H: u64 = 240;
    let luma = |x: u64, y: u64, t: u64| {
        let h = ((x * 73_856_093) ^ (y * 19_349_663) ^ (t * 83_492_791)) & 0xffff_ffff;
        (((x + 3 * t) * (y + 2 * t)) / 29 + h % 61) % 256
    };
    let noisy = |x: u64, y: u64, t: u64, v: u64| {
        let h = ((x * 2_654_435_761) ^ (y * 40_503) ^ (t * 97)) & 0xffff_ffff;
        (v + h % 13).saturating_sub(6).min(255)
    };
    let chroma = |x: u64, y: u64, t: u64| (x * 3 + y * 5 + t * 7) % 256;
    let geometry = Geometry {
        width: W as u32,
        height: H as u32,
        format: PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth: bits },
    };
    let frame = |t: u64, distorted: bool| {
        let mut data = Vec::new();
        let mut put = |v: u64, x: u64, y: u64| {
            if bits == 10 {
                let v = (v * 4 + (x * y + t) % 4) as u16;
                data.extend_from_slice(&v.to_le_bytes());
            } else {
                data.push(v as u8);
            }
        };
        for y in 0..H {
            for x in 0..W {
                let v = luma(x, y, t);
                put(if distorted { noisy(x, y, t, v) } else { v }, x, y);
            }
        }
        for y in 0..H / 2 {
            for x in 0..W / 2 {
                put(chroma(x, y, t), x, y);
            }
        }
        for y in 0..H / 2 {
            for x in 0..W / 2 {
                put(chroma(y, x, t), x, y);
            }
        }
        Frame { geometry, color: ColorInfo::default(), index: t, data: data.into() }
    };
    (0..5).map(|t| (frame(t, false), frame(t, true))).collect()
}

/// `speed_temporal` on [`temporal_clip`]: bit depth, `--feature` options,
/// libvmaf's output name and its printed values. From libvmaf 3.2.0's CLI
/// (float build, AVX-512 host) on the y4m files of the same generator:
/// `vmaf -r ref.y4m -d dis.y4m -n --feature speed_temporal
/// --feature speed_temporal=speed_kernelscale=0.5:speed_sigma_nn=0.19:speed_nn_floor=0.1:speed_max_val=45.0
/// --json -o out.json` at 8 and 10 bits, and at 8 bits
/// `--feature speed_temporal=speed_prescale=0.75:speed_prescale_method=bicubic
/// --feature speed_temporal=speed_prescale=0.9:speed_prescale_method=lanczos4:speed_use_ref_diff=true
/// --feature speed_temporal=speed_prescale=0.7`.
pub const TEMPORAL_CASES: [(u32, &str, &str, [f64; 5]); 7] = [
    (8, "", "speed_temporal", [0.0, 2.285789, 1.834522, 1.210117, 1.488476]),
    (
        8,
        "speed_kernelscale=0.5:speed_sigma_nn=0.19:speed_nn_floor=0.1:speed_max_val=45.0",
        "speed_temporal_ks_0.5_mxv_45_nnf_0.1_snn_0.19",
        [0.0, 2.502961, 3.655038, 2.67753, 2.411221],
    ),
    (10, "", "speed_temporal", [0.0, 2.285796, 1.834564, 1.210155, 1.488421]),
    (
        10,
        "speed_kernelscale=0.5:speed_sigma_nn=0.19:speed_nn_floor=0.1:speed_max_val=45.0",
        "speed_temporal_ks_0.5_mxv_45_nnf_0.1_snn_0.19",
        [0.0, 2.503449, 3.655006, 2.676804, 2.411163],
    ),
    (
        8,
        "speed_prescale=0.75:speed_prescale_method=bicubic",
        "speed_temporal_ps_0.75_psm_bicubic",
        [0.0, 1.152593, 1.223058, 1.525958, 2.270335],
    ),
    (
        8,
        "speed_prescale=0.9:speed_prescale_method=lanczos4:speed_use_ref_diff=true",
        "speed_temporal_ps_0.9_psm_lanczos4_urd",
        [0.0, 1.100723, 2.65555, 0.96679, 1.360043],
    ),
    (
        8,
        "speed_prescale=0.7",
        "speed_temporal_ps_0.7",
        [0.0, 8.947876, 2.036999, 2.005547, 5.095772],
    ),
];

/// Checks `speed_temporal` values of every [`TEMPORAL_CASES`] entry,
/// scored by `score(bits, options)` as `(names, per-frame values)`:
/// identical printed digits.
pub fn check_temporal(score: &mut impl FnMut(u32, &str) -> (Option<String>, Vec<f64>)) {
    let mut mismatches = Vec::new();
    for (bits, options, name, want) in TEMPORAL_CASES {
        let (ours_name, ours) = score(bits, options);
        if let Some(n) = ours_name {
            assert_eq!(n, name, "{bits}-bit {options}");
        }
        assert_eq!(ours.len(), want.len(), "{name}: frames");
        let mut t = Tally::default();
        for (i, (o, w)) in ours.iter().zip(&want).enumerate() {
            t.add(&format!("{bits}-bit {name} frame {i}"), *o, *w);
        }
        println!(
            "{bits}-bit {name}: max |Δ| {:.3e}, printed mismatches {}",
            t.max_diff, t.printed_mismatches
        );
        if t.printed_mismatches > 0 || !t.failures.is_empty() {
            mismatches.push(format!("{bits}-bit {name}: {:?}", t.failures));
        }
    }
    assert!(mismatches.is_empty(), "speed_temporal differs from libvmaf: {mismatches:#?}");
}
