//! The H.265 video and sequence parameter sets (ITU-T H.265, 7.3.2.1 and
//! 7.3.2.2.1 with `profile_tier_level` of 7.3.3), read up to the sub-layer
//! ordering info: the profile and level, sample format, coded and
//! conformance-window size, and the DPB size. Only the base layer
//! (`nuh_layer_id` 0) is read; multi-layer extensions are out of scope.

use super::bits::BitReader;
use super::{Codec, Crop, ParseError, SequenceInfo};
use crate::frame::ChromaFormat;

/// What a decoder takes from the VPS before its sessions are set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VideoParameterSet {
    pub id: u32,
    pub max_sub_layers: u32,
    pub profile_idc: u32,
    pub level_idc: u32,
    /// `vps_max_dec_pic_buffering_minus1 + 1` of the highest sub-layer.
    pub max_dpb_frames: u32,
}

/// Parses a VPS from its RBSP (the two NAL header bytes included).
pub fn parse_vps(rbsp: &[u8]) -> Result<VideoParameterSet, ParseError> {
    let mut r = BitReader::new(rbsp);
    r.skip(16)?;
    let id = r.bits(4)?;
    // vps_base_layer_internal_flag, vps_base_layer_available_flag,
    // vps_max_layers_minus1.
    r.skip(8)?;
    let max_sub_layers = r.bits(3)? + 1;
    r.skip(17)?; // vps_temporal_id_nesting_flag, vps_reserved_0xffff_16bits
    let (profile_idc, level_idc) = profile_tier_level(&mut r, max_sub_layers)?;
    let max_dpb_frames = sub_layer_dpb(&mut r, max_sub_layers)?;
    Ok(VideoParameterSet { id, max_sub_layers, profile_idc, level_idc, max_dpb_frames })
}

/// Parses an SPS of the base layer from its RBSP (header included).
pub fn parse_sps(rbsp: &[u8]) -> Result<SequenceInfo, ParseError> {
    let mut r = BitReader::new(rbsp);
    r.skip(16)?;
    r.skip(4)?; // sps_video_parameter_set_id
    let max_sub_layers = r.bits(3)? + 1;
    r.skip(1)?; // sps_temporal_id_nesting_flag
    let (profile_idc, level_idc) = profile_tier_level(&mut r, max_sub_layers)?;
    r.ue_max(15, "sps_seq_parameter_set_id")?;
    let chroma_format_idc = r.ue_max(3, "chroma_format_idc")?;
    let separate_planes = chroma_format_idc == 3 && r.flag()?;
    let coded_width = r.ue_max(crate::MAX_DIMENSION, "pic_width_in_luma_samples")?;
    let coded_height = r.ue_max(crate::MAX_DIMENSION, "pic_height_in_luma_samples")?;
    let offsets = if r.flag()? { [r.ue()?, r.ue()?, r.ue()?, r.ue()?] } else { [0; 4] };
    let depth_luma = 8 + r.ue_max(8, "bit_depth_luma_minus8")?;
    let depth_chroma = 8 + r.ue_max(8, "bit_depth_chroma_minus8")?;
    r.ue_max(12, "log2_max_pic_order_cnt_lsb_minus4")?;
    let max_dpb_frames = sub_layer_dpb(&mut r, max_sub_layers)?;

    let chroma = match chroma_format_idc {
        0 => ChromaFormat::Mono,
        1 => ChromaFormat::Yuv420,
        2 => ChromaFormat::Yuv422,
        _ => ChromaFormat::Yuv444,
    };
    // Window offsets count in chroma samples (SubWidthC, SubHeightC; 1 for
    // monochrome and separately coded planes), 7.4.3.2.1.
    let (shift_x, shift_y) = if separate_planes { (0, 0) } else { chroma.shifts() };
    let [left, right, top, bottom] = offsets;
    let crop = Crop {
        left: left.saturating_mul(1 << shift_x),
        right: right.saturating_mul(1 << shift_x),
        top: top.saturating_mul(1 << shift_y),
        bottom: bottom.saturating_mul(1 << shift_y),
    };
    if coded_width == 0
        || coded_height == 0
        || crop.left.saturating_add(crop.right) >= coded_width
        || crop.top.saturating_add(crop.bottom) >= coded_height
    {
        return Err(ParseError::new(format!(
            "the conformance window is empty (coded {coded_width}x{coded_height})"
        )));
    }
    Ok(SequenceInfo {
        codec: Codec::H265,
        profile_idc,
        profile: h265_profile_name(profile_idc),
        level_idc,
        chroma,
        bit_depth_luma: depth_luma,
        bit_depth_chroma: depth_chroma,
        coded_width,
        coded_height,
        crop,
        interlaced: false,
        max_dpb_frames,
        // H.265 does not cap references apart from the DPB: a picture may
        // refer to every other picture it holds.
        max_num_ref_frames: max_dpb_frames.saturating_sub(1),
    })
}

/// `profile_tier_level(1, max_sub_layers - 1)`: returns the general
/// profile (from the compatibility flags when `general_profile_idc` is 0)
/// and level, and reads past the sub-layers' fields.
fn profile_tier_level(
    r: &mut BitReader<'_>,
    max_sub_layers: u32,
) -> Result<(u32, u32), ParseError> {
    r.skip(3)?; // general_profile_space, general_tier_flag
    let mut profile_idc = r.bits(5)?;
    let compatible = r.bits(32)?;
    if profile_idc == 0 {
        // Flag j is bit 31 - j: the first set flag names the profile.
        profile_idc = (1..32).find(|j| compatible & (1 << (31 - j)) != 0).unwrap_or(0);
    }
    r.skip(4 + 43 + 1)?; // source and constraint flags
    let level_idc = r.bits(8)?;
    let sub_layers = max_sub_layers - 1;
    let mut present = Vec::with_capacity(sub_layers as usize);
    for _ in 0..sub_layers {
        present.push((r.flag()?, r.flag()?));
    }
    if sub_layers > 0 {
        r.skip(2 * (8 - sub_layers as usize))?; // reserved_zero_2bits
    }
    for (profile, level) in present {
        if profile {
            r.skip(88)?;
        }
        if level {
            r.skip(8)?;
        }
    }
    Ok((profile_idc, level_idc))
}

/// The sub-layer ordering info shared by the VPS and SPS: returns
/// `max_dec_pic_buffering_minus1 + 1` of the highest sub-layer, the DPB
/// size a decoder of the whole stream needs.
fn sub_layer_dpb(r: &mut BitReader<'_>, max_sub_layers: u32) -> Result<u32, ParseError> {
    let all_listed = r.flag()?;
    let listed = if all_listed { max_sub_layers } else { 1 };
    let mut dpb = 0;
    for _ in 0..listed {
        dpb = r.ue_max(15, "max_dec_pic_buffering_minus1")? + 1;
        r.ue()?; // max_num_reorder_pics
        r.ue()?; // max_latency_increase_plus1
    }
    Ok(dpb)
}

/// The profile's name as ffprobe prints it (A.3).
fn h265_profile_name(profile_idc: u32) -> &'static str {
    match profile_idc {
        1 => "Main",
        2 => "Main 10",
        3 => "Main Still Picture",
        4 => "Rext",
        9 => "SCC",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_from_compatibility_flags_when_idc_is_zero() {
        // profile_space 0, tier 0, idc 0; compatibility flag 2 (Main 10) set;
        // 48 zero bits; level 93; one sub-layer.
        let mut bytes = vec![0x00, 0x20, 0, 0, 0];
        bytes.extend([0; 6]);
        bytes.push(93);
        let mut r = BitReader::new(&bytes);
        assert_eq!(profile_tier_level(&mut r, 1).unwrap(), (2, 93));
    }

    #[test]
    fn truncated_sps_is_an_error() {
        let err = parse_sps(&[0x42, 0x01, 0x01, 0x01]).unwrap_err();
        assert_eq!(err.to_string(), "the parameter set ends early");
    }
}
