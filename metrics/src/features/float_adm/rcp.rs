//! The reciprocal libvmaf's float ADM divides with.
//!
//! `adm_tools.c` divides `th / (oh + eps)` in the decoupling step not with a
//! division but with the x86 `rcpss` estimate refined by one Newton step,
//! `n · (r + r·(1 − x·r))`, all in float. `rcpss` is not specified to the
//! bit (Intel only bounds its relative error by 1.5·2⁻¹²) and differs
//! between vendors, so libvmaf's float ADM depends on the CPU it runs on.
//! This module models the estimate of the AMD Zen cores the reference
//! numbers were checked against (see `tests/src/float_adm_parity.rs`):
//! the result keeps the sign, takes exponent `253 − e` for input exponent
//! `e`, and a 12-bit mantissa looked up from the input's top 12 mantissa
//! bits ([`TABLE`], read off the hardware for all 2²³ mantissas at every
//! exponent: nothing else influences it). Zero and subnormal inputs give
//! ±∞, inputs from 2¹²⁶ up give ±0, NaN stays NaN.

/// Top 12 bits of the estimate's mantissa per top 12 bits of the input's
/// mantissa, little-endian u16 (8 KiB). The GPU kernels upload the same
/// bytes.
pub static TABLE_BYTES: &[u8; 8192] = include_bytes!("rcp12.bin");

/// Entry `i` of the table.
#[inline]
fn table(i: usize) -> u32 {
    u32::from(u16::from_le_bytes([TABLE_BYTES[2 * i], TABLE_BYTES[2 * i + 1]]))
}

/// The `rcpss` estimate of `1/x`.
pub fn rcp_estimate(x: f32) -> f32 {
    let b = x.to_bits();
    let sign = b & 0x8000_0000;
    let e = (b >> 23) & 0xff;
    let m = b & 0x7f_ffff;
    let out = match e {
        0 => sign | 0x7f80_0000,
        255 if m != 0 => b | 0x40_0000,
        255 => sign,
        253.. => sign,
        _ => sign | (253 - e) << 23 | table((m >> 11) as usize) << 11,
    };
    f32::from_bits(out)
}

/// libvmaf's float quotient `n / d`: the estimate refined once, then
/// multiplied (`n · (r + r·(1 − d·r))`, each step rounded to float).
#[inline]
pub fn divide(n: f32, d: f32) -> f32 {
    let r = rcp_estimate(d);
    n * (r + r * (1.0 - d * r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_is_close_and_exponent_independent() {
        for i in 0..4096u32 {
            let x = f32::from_bits(0x3f80_0000 | i << 11 | 0x3ff);
            let r = rcp_estimate(x);
            assert!((f64::from(r) * f64::from(x) - 1.0).abs() < 1.5 / 4096.0, "{x}");
            assert_eq!(rcp_estimate(x * 1024.0), r / 1024.0);
            assert_eq!(rcp_estimate(-x), -r);
        }
        assert_eq!(rcp_estimate(0.0), f32::INFINITY);
        assert_eq!(rcp_estimate(-0.0), f32::NEG_INFINITY);
        assert_eq!(rcp_estimate(f32::from_bits(1)), f32::INFINITY);
        assert_eq!(rcp_estimate(2f32.powi(126)), 0.0);
        assert!(rcp_estimate(f32::NAN).is_nan());
        // One Newton step brings the quotient within a few ulps.
        assert!((divide(1.0, 3.0) - 1.0 / 3.0).abs() <= 2.0 * f32::EPSILON);
    }

    /// On an x86 host with an AMD Zen core the model is the instruction
    /// (elsewhere, Intel included, the test has nothing to compare with).
    #[test]
    fn matches_this_cpu_where_it_is_amd_zen() {
        let hw = vqscope_gpu::testing::x86_rcp_estimate;
        // AMD's table gives 0x3f7ff000 for 1.0; other vendors' do not.
        let (Some(one), Some(one_and_half)) = (hw(1.0), hw(1.5)) else {
            return;
        };
        if one.to_bits() != 0x3f7f_f000 || one_and_half.to_bits() != rcp_estimate(1.5).to_bits() {
            return;
        }
        let mut x = 0x0080_0000u32;
        while x < 0x7f80_0000 {
            let f = f32::from_bits(x);
            assert_eq!(hw(f).map(f32::to_bits), Some(rcp_estimate(f).to_bits()), "{f:e}");
            x += 4099;
        }
    }
}
