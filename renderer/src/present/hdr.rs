//! Whether a window shows SDR or HDR10, and in which surface format: pure
//! functions of what the surface offers and what the device can do with a
//! format, so the rules are tested without a display.
//!
//! HDR10 here is the surface colour space `HDR10_ST2084` (PQ-coded BT.2020,
//! `VK_EXT_swapchain_colorspace`) in a 10-bit UNORM format the presenter
//! can blit into. The fused pass then writes `A2B10G10R10` storage images
//! ([`Output::Hdr10`]'s format), so the device must offer storage and blit
//! sources in it; swapchains' usual BGRA order costs nothing, the blit
//! swizzles.

use vqscope_gpu::vk;

use crate::color::SOURCE_PEAK_NITS;
use crate::fused::Output;

/// The user's choice (`--hdr-output`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HdrOutput {
    /// HDR10 when the shown pictures are HDR (PQ or HLG) and the display
    /// offers it; SDR otherwise.
    #[default]
    Auto,
    /// HDR10 whenever the display offers it, SDR pictures too (their white
    /// at the reference white); SDR, said once, where it does not.
    On,
    /// Always SDR: HDR pictures tone-mapped to the display peak.
    Off,
}

/// What a window shows and why, in words for `-v`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputChoice {
    pub output: Output,
    pub reason: String,
    /// HDR10 was asked for ([`HdrOutput::On`]) but cannot be had: the
    /// reason deserves a line even without `-v`.
    pub refused: bool,
}

/// Decides the window's output from the user's `choice`, whether the shown
/// pictures are HDR, and the display's HDR10 format (or why there is none).
pub fn choose_output(
    choice: HdrOutput,
    hdr_content: bool,
    hdr10: &Result<vk::SurfaceFormatKHR, String>,
) -> OutputChoice {
    let sdr = |reason: String, refused| OutputChoice { output: Output::Sdr, reason, refused };
    let hdr10_for = |why: &str, f: &vk::SurfaceFormatKHR| OutputChoice {
        output: Output::Hdr10,
        reason: format!("HDR10: {why} (surface format {:?}, colour space HDR10_ST2084)", f.format),
        refused: false,
    };
    match (choice, hdr_content, hdr10) {
        (HdrOutput::Off, ..) => sdr("SDR: HDR10 output is off (--hdr-output off)".into(), false),
        (HdrOutput::On, _, Ok(f)) => hdr10_for("asked for (--hdr-output on)", f),
        (HdrOutput::On, _, Err(why)) => {
            sdr(format!("--hdr-output on, but {why}: showing SDR instead"), true)
        }
        (HdrOutput::Auto, false, _) => {
            sdr("SDR: the pictures are SDR (--hdr-output on shows HDR10 anyway)".into(), false)
        }
        (HdrOutput::Auto, true, Ok(f)) => {
            hdr10_for("the pictures are HDR and the display offers HDR10", f)
        }
        (HdrOutput::Auto, true, Err(why)) => {
            sdr(format!("SDR: the pictures are HDR but {why}; tone-mapped to --peak-nits"), false)
        }
    }
}

/// The surface format of an SDR window: 8-bit UNORM, BGRA or RGBA, in the
/// sRGB colour space. UNORM because the renderer writes display-ready
/// values, so the blit must copy bytes unchanged (an sRGB format would
/// encode twice); any other sRGB-space format the device can blit into
/// when those are missing. `features` gives a format's optimal-tiling
/// features.
pub fn sdr_format(
    formats: &[vk::SurfaceFormatKHR],
    features: impl Fn(vk::Format) -> vk::FormatFeatureFlags,
) -> Result<vk::SurfaceFormatKHR, String> {
    let usable: Vec<vk::SurfaceFormatKHR> = formats
        .iter()
        .copied()
        .filter(|f| f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR)
        .filter(|f| features(f.format).contains(vk::FormatFeatureFlags::BLIT_DST))
        .collect();
    [vk::Format::B8G8R8A8_UNORM, vk::Format::R8G8B8A8_UNORM]
        .iter()
        .find_map(|&want| usable.iter().copied().find(|f| f.format == want))
        .or_else(|| usable.first().copied())
        .ok_or_else(|| format!("no sRGB surface format can be blitted into (offered: {formats:?})"))
}

/// The surface format of an HDR10 window, or why there is none: the
/// `HDR10_ST2084` colour space in `A2B10G10R10` (what the fused pass
/// writes, preferred) or `A2R10G10B10`, blittable into; and the device
/// must offer storage and blit sources in `A2B10G10R10`.
pub fn hdr10_format(
    formats: &[vk::SurfaceFormatKHR],
    features: impl Fn(vk::Format) -> vk::FormatFeatureFlags,
) -> Result<vk::SurfaceFormatKHR, String> {
    let drawn = Output::Hdr10.format();
    let needed = vk::FormatFeatureFlags::STORAGE_IMAGE | vk::FormatFeatureFlags::BLIT_SRC;
    if !features(drawn).contains(needed) {
        return Err(format!("the device cannot draw into {drawn:?} images (storage and blit)"));
    }
    let hdr10: Vec<vk::SurfaceFormatKHR> = formats
        .iter()
        .copied()
        .filter(|f| f.color_space == vk::ColorSpaceKHR::HDR10_ST2084_EXT)
        .collect();
    if hdr10.is_empty() {
        return Err("the display offers no HDR10 colour space".into());
    }
    [drawn, vk::Format::A2R10G10B10_UNORM_PACK32]
        .iter()
        .find_map(|&want| {
            hdr10.iter().copied().find(|f| {
                f.format == want && features(f.format).contains(vk::FormatFeatureFlags::BLIT_DST)
            })
        })
        .ok_or_else(|| {
            let offered: Vec<_> = hdr10.iter().map(|f| f.format).collect();
            format!("the display offers HDR10 only in formats vqscope cannot use ({offered:?})")
        })
}

/// The static HDR metadata (SMPTE ST 2086 and CTA-861.3's light levels)
/// an HDR10 swapchain announces. vqscope reads no mastering metadata from
/// its inputs, so this states what the SDR tone mapper assumes too: a
/// BT.2020 (primaries, D65 white) master of [`SOURCE_PEAK_NITS`] peak with
/// a typical 1000-nit mastering monitor's black, content up to that peak;
/// the frame-average level is 0, CTA-861.3's "unknown".
pub fn hdr10_metadata() -> vk::HdrMetadataEXT<'static> {
    let xy = |x, y| vk::XYColorEXT { x, y };
    vk::HdrMetadataEXT::default()
        .display_primary_red(xy(0.708, 0.292))
        .display_primary_green(xy(0.170, 0.797))
        .display_primary_blue(xy(0.131, 0.046))
        .white_point(xy(0.3127, 0.3290))
        .max_luminance(SOURCE_PEAK_NITS)
        .min_luminance(0.005)
        .max_content_light_level(SOURCE_PEAK_NITS)
        .max_frame_average_light_level(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    use vk::ColorSpaceKHR as Cs;
    use vk::Format as F;
    use vk::FormatFeatureFlags as Ff;

    fn sf(format: F, color_space: Cs) -> vk::SurfaceFormatKHR {
        vk::SurfaceFormatKHR { format, color_space }
    }

    /// A device that can do everything with every format.
    fn all(_: F) -> Ff {
        Ff::STORAGE_IMAGE | Ff::BLIT_SRC | Ff::BLIT_DST
    }

    /// What an HDR-capable desktop typically lists (NVIDIA and Mesa on
    /// Wayland list much the same).
    fn desktop() -> Vec<vk::SurfaceFormatKHR> {
        vec![
            sf(F::B8G8R8A8_SRGB, Cs::SRGB_NONLINEAR),
            sf(F::B8G8R8A8_UNORM, Cs::SRGB_NONLINEAR),
            sf(F::A2R10G10B10_UNORM_PACK32, Cs::SRGB_NONLINEAR),
            sf(F::A2B10G10R10_UNORM_PACK32, Cs::HDR10_ST2084_EXT),
            sf(F::A2R10G10B10_UNORM_PACK32, Cs::HDR10_ST2084_EXT),
            sf(F::R16G16B16A16_SFLOAT, Cs::EXTENDED_SRGB_LINEAR_EXT),
        ]
    }

    #[test]
    fn sdr_keeps_8_bit_unorm_srgb_whatever_else_is_offered() {
        assert_eq!(sdr_format(&desktop(), all), Ok(sf(F::B8G8R8A8_UNORM, Cs::SRGB_NONLINEAR)));
        // Only HDR colour spaces besides an sRGB-encoded format: never an
        // HDR one for SDR pixels.
        let odd = [
            sf(F::A2B10G10R10_UNORM_PACK32, Cs::HDR10_ST2084_EXT),
            sf(F::B8G8R8A8_SRGB, Cs::SRGB_NONLINEAR),
        ];
        assert_eq!(sdr_format(&odd, all), Ok(sf(F::B8G8R8A8_SRGB, Cs::SRGB_NONLINEAR)));
        let hdr_only = [sf(F::A2B10G10R10_UNORM_PACK32, Cs::HDR10_ST2084_EXT)];
        assert!(sdr_format(&hdr_only, all).is_err());
    }

    #[test]
    fn hdr10_prefers_the_drawn_order_then_takes_bgr() {
        let want = sf(F::A2B10G10R10_UNORM_PACK32, Cs::HDR10_ST2084_EXT);
        assert_eq!(hdr10_format(&desktop(), all), Ok(want));
        let bgr = sf(F::A2R10G10B10_UNORM_PACK32, Cs::HDR10_ST2084_EXT);
        let formats: Vec<_> = desktop().into_iter().filter(|f| *f != want).collect();
        assert_eq!(hdr10_format(&formats, all), Ok(bgr));
        // The 10-bit RGB order offered but not blittable: the BGR one.
        let no_rgb_blit =
            |f: F| if f == F::A2B10G10R10_UNORM_PACK32 { all(f) & !Ff::BLIT_DST } else { all(f) };
        assert_eq!(hdr10_format(&desktop(), no_rgb_blit), Ok(bgr));
    }

    #[test]
    fn hdr10_says_why_not() {
        let sdr_only = [sf(F::B8G8R8A8_UNORM, Cs::SRGB_NONLINEAR)];
        let e = hdr10_format(&sdr_only, all).unwrap_err();
        assert!(e.contains("no HDR10 colour space"), "{e}");
        // HDR10 only as a float format the blit path does not take.
        let float = [sf(F::R16G16B16A16_SFLOAT, Cs::HDR10_ST2084_EXT)];
        let e = hdr10_format(&float, all).unwrap_err();
        assert!(e.contains("R16G16B16A16_SFLOAT"), "{e}");
        // No 10-bit storage images: HDR10 cannot be drawn however offered.
        let no_storage = |f: F| all(f) & !Ff::STORAGE_IMAGE;
        let e = hdr10_format(&desktop(), no_storage).unwrap_err();
        assert!(e.contains("cannot draw into"), "{e}");
    }

    #[test]
    fn auto_on_off_rules() {
        let yes = Ok(sf(F::A2B10G10R10_UNORM_PACK32, Cs::HDR10_ST2084_EXT));
        let no: Result<vk::SurfaceFormatKHR, String> = Err("no HDR10 here".into());
        let out = |choice, content, hdr10: &Result<_, _>| {
            let c = choose_output(choice, content, hdr10);
            (c.output, c.refused)
        };
        // auto: HDR10 only for HDR pictures on a display that has it.
        assert_eq!(out(HdrOutput::Auto, true, &yes), (Output::Hdr10, false));
        assert_eq!(out(HdrOutput::Auto, false, &yes), (Output::Sdr, false));
        assert_eq!(out(HdrOutput::Auto, true, &no), (Output::Sdr, false));
        assert_eq!(out(HdrOutput::Auto, false, &no), (Output::Sdr, false));
        // on: HDR10 whenever possible; refused (and said) where not.
        assert_eq!(out(HdrOutput::On, false, &yes), (Output::Hdr10, false));
        assert_eq!(out(HdrOutput::On, true, &yes), (Output::Hdr10, false));
        assert_eq!(out(HdrOutput::On, true, &no), (Output::Sdr, true));
        // off: never.
        for content in [false, true] {
            for hdr10 in [&yes, &no] {
                assert_eq!(out(HdrOutput::Off, content, hdr10), (Output::Sdr, false));
            }
        }
        // The reason names the display's answer.
        let refused = choose_output(HdrOutput::On, true, &no);
        assert!(refused.reason.contains("no HDR10 here"), "{}", refused.reason);
        let auto = choose_output(HdrOutput::Auto, true, &no);
        assert!(auto.reason.contains("no HDR10 here"), "{}", auto.reason);
    }
}
