//! The CPU twins of integer motion and PSNR against libvmaf 3.2.0's printed
//! output: every per-frame `integer_motion`, `integer_motion2`,
//! `integer_motion3`, `VMAF_integer_feature_motion_sad_score` and
//! `psnr_y/cb/cr` of every shared clip pair and upstream fixture must equal
//! libvmaf's `%.6f` digits exactly, and so must the motion values with the
//! v1.0.16 models' options. The comparison lives in
//! `vqscope_tests::motion_psnr`, shared with the GPU kernels' test.

use vqscope_metrics::features::motion::motion_sad;
use vqscope_metrics::features::psnr::{ChromaLayout, plane_sse};
use vqscope_tests::motion_psnr::{
    Backend, Fixture, Plane, check_fixture, check_shared_clips, check_v1_options,
};

/// The sums from the CPU twins.
struct Cpu;

impl Backend for Cpu {
    fn sad(&mut self, prev: &Plane, cur: &Plane) -> u64 {
        motion_sad(&prev.view(), &cur.view()).expect("motion SAD")
    }

    fn sse(&mut self, _layout: ChromaLayout, reference: &[Plane], distorted: &[Plane]) -> [u64; 3] {
        let mut out = [0; 3];
        for (i, (r, d)) in reference.iter().zip(distorted).enumerate() {
            out[i] = plane_sse(&r.view(), &d.view()).expect("plane SSE");
        }
        out
    }
}

#[test]
fn shared_clips_match_libvmaf() {
    check_shared_clips(&mut Cpu);
}

#[test]
fn upstream_src01_10bit_matches_libvmaf() {
    check_fixture(&mut Cpu, Fixture::Src01TenBit);
}

#[test]
fn upstream_sparks_10bit_matches_libvmaf() {
    check_fixture(&mut Cpu, Fixture::SparksTenBit);
}

#[test]
fn upstream_q160x90_8bit_matches_libvmaf() {
    check_fixture(&mut Cpu, Fixture::Q160x90EightBit);
}

#[test]
fn v1_motion_options_match_libvmaf() {
    check_v1_options(&mut Cpu);
}
