//! The H.264 sequence parameter set (ITU-T H.264, 7.3.2.1.1 and the VUI of
//! E.1.1), read as far as a decoder must know before its first picture: the
//! profile and level, sample format, coded and cropped size, and how many
//! pictures it must hold (the DPB).

use super::bits::BitReader;
use super::{Codec, Crop, ParseError, SequenceInfo};
use crate::frame::ChromaFormat;

/// The fields of an H.264 SPS that decoding needs (7.3.2.1.1): what a
/// device decoder's session parameters take, and what POC computation and
/// reference marking read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sps {
    pub profile_idc: u32,
    /// `constraint_set0_flag` .. `constraint_set5_flag` and the two reserved
    /// bits, first flag highest, as coded.
    pub constraints: u32,
    pub level_idc: u32,
    pub id: u32,
    pub chroma_format_idc: u32,
    pub separate_colour_plane: bool,
    pub bit_depth_luma: u32,
    pub bit_depth_chroma: u32,
    pub qpprime_y_zero_transform_bypass: bool,
    /// The scaling matrices when `seq_scaling_matrix_present_flag` is set.
    pub scaling_lists: Option<ScalingLists>,
    pub log2_max_frame_num: u32,
    pub pic_order_cnt_type: u32,
    pub log2_max_pic_order_cnt_lsb: u32,
    pub delta_pic_order_always_zero: bool,
    pub offset_for_non_ref_pic: i32,
    pub offset_for_top_to_bottom_field: i32,
    pub offset_for_ref_frame: Vec<i32>,
    pub max_num_ref_frames: u32,
    pub gaps_in_frame_num_allowed: bool,
    pub pic_width_in_mbs: u32,
    pub pic_height_in_map_units: u32,
    pub frame_mbs_only: bool,
    pub mb_adaptive_frame_field: bool,
    pub direct_8x8_inference: bool,
    /// `frame_crop_left/right/top/bottom_offset` as coded (chroma units).
    pub crop_offsets: Option<[u32; 4]>,
    pub vui_present: bool,
    /// The VUI's `max_dec_frame_buffering`, when the stream states it.
    pub vui_max_dec_frame_buffering: Option<u32>,
}

impl Sps {
    /// Parses an SPS from its RBSP (the NAL header byte included).
    pub fn parse(rbsp: &[u8]) -> Result<Sps, ParseError> {
        let mut r = BitReader::new(rbsp);
        r.skip(8)?; // NAL unit header
        let profile_idc = r.bits(8)?;
        let constraints = r.bits(8)?; // constraint_set0..5_flag, reserved_zero_2bits
        let level_idc = r.bits(8)?;
        let id = r.ue_max(31, "seq_parameter_set_id")?;

        let (mut chroma_format_idc, mut separate_colour_plane, mut depth_luma, mut depth_chroma) =
            (1, false, 8, 8);
        let (mut bypass, mut scaling_lists) = (false, None);
        if HIGH_PROFILES.contains(&profile_idc) {
            chroma_format_idc = r.ue_max(3, "chroma_format_idc")?;
            if chroma_format_idc == 3 {
                separate_colour_plane = r.flag()?;
            }
            depth_luma = 8 + r.ue_max(6, "bit_depth_luma_minus8")?;
            depth_chroma = 8 + r.ue_max(6, "bit_depth_chroma_minus8")?;
            bypass = r.flag()?;
            if r.flag()? {
                // 6 lists of 16, then 2 or 6 of 64; fall-back rule A.
                let lists = if chroma_format_idc == 3 { 12 } else { 8 };
                scaling_lists = Some(ScalingLists::read(&mut r, lists, &ScalingLists::DEFAULT)?);
            }
        }
        let log2_max_frame_num = 4 + r.ue_max(12, "log2_max_frame_num_minus4")?;
        let pic_order_cnt_type = r.ue_max(2, "pic_order_cnt_type")?;
        let (mut log2_max_pic_order_cnt_lsb, mut delta_pic_order_always_zero) = (0, false);
        let (mut offset_for_non_ref_pic, mut offset_for_top_to_bottom_field) = (0, 0);
        let mut offset_for_ref_frame = Vec::new();
        match pic_order_cnt_type {
            0 => {
                log2_max_pic_order_cnt_lsb =
                    4 + r.ue_max(12, "log2_max_pic_order_cnt_lsb_minus4")?;
            }
            1 => {
                delta_pic_order_always_zero = r.flag()?;
                offset_for_non_ref_pic = r.se()?;
                offset_for_top_to_bottom_field = r.se()?;
                let cycle = r.ue_max(255, "num_ref_frames_in_pic_order_cnt_cycle")?;
                for _ in 0..cycle {
                    offset_for_ref_frame.push(r.se()?);
                }
            }
            _ => {}
        }
        let max_num_ref_frames = r.ue_max(16, "max_num_ref_frames")?;
        let gaps_in_frame_num_allowed = r.flag()?;
        let pic_width_in_mbs = r.ue_max(1023, "pic_width_in_mbs_minus1")? + 1;
        let pic_height_in_map_units = r.ue_max(1023, "pic_height_in_map_units_minus1")? + 1;
        let frame_mbs_only = r.flag()?;
        let mb_adaptive_frame_field = !frame_mbs_only && r.flag()?;
        let direct_8x8_inference = r.flag()?;
        let crop_offsets =
            if r.flag()? { Some([r.ue()?, r.ue()?, r.ue()?, r.ue()?]) } else { None };
        let vui_present = r.flag()?;
        let vui_max_dec_frame_buffering =
            if vui_present { vui_max_dec_frame_buffering(&mut r)? } else { None };
        Ok(Sps {
            profile_idc,
            constraints,
            level_idc,
            id,
            chroma_format_idc,
            separate_colour_plane,
            bit_depth_luma: depth_luma,
            bit_depth_chroma: depth_chroma,
            qpprime_y_zero_transform_bypass: bypass,
            scaling_lists,
            log2_max_frame_num,
            pic_order_cnt_type,
            log2_max_pic_order_cnt_lsb,
            delta_pic_order_always_zero,
            offset_for_non_ref_pic,
            offset_for_top_to_bottom_field,
            offset_for_ref_frame,
            max_num_ref_frames,
            gaps_in_frame_num_allowed,
            pic_width_in_mbs,
            pic_height_in_map_units,
            frame_mbs_only,
            mb_adaptive_frame_field,
            direct_8x8_inference,
            crop_offsets,
            vui_present,
            vui_max_dec_frame_buffering,
        })
    }

    /// `ChromaArrayType` (7.4.2.1.1): 0 for monochrome or separately coded
    /// colour planes, else `chroma_format_idc`.
    pub fn chroma_array_type(&self) -> u32 {
        if self.separate_colour_plane { 0 } else { self.chroma_format_idc }
    }

    /// What the SPS says about the pictures (size, format, DPB).
    pub fn info(&self) -> Result<SequenceInfo, ParseError> {
        let chroma = chroma_format(self.chroma_format_idc)?;
        let frame_mbs_only = self.frame_mbs_only;
        // Frames of field-coded streams are two map units of macroblock rows high.
        let height_mbs = self.pic_height_in_map_units * if frame_mbs_only { 1 } else { 2 };
        let width_mbs = self.pic_width_in_mbs;
        let (coded_width, coded_height) = (width_mbs * 16, height_mbs * 16);
        // Cropping counts in chroma samples (luma pairs of rows for fields);
        // equation 7-19 to 7-22.
        let (shift_x, shift_y) = if self.separate_colour_plane { (0, 0) } else { chroma.shifts() };
        let (sub_x, sub_y) = (1 << shift_x, 1 << shift_y);
        let unit_y = sub_y * if frame_mbs_only { 1 } else { 2 };
        let [left, right, top, bottom] = self.crop_offsets.unwrap_or_default();
        let crop = Crop {
            left: left.saturating_mul(sub_x),
            right: right.saturating_mul(sub_x),
            top: top.saturating_mul(unit_y),
            bottom: bottom.saturating_mul(unit_y),
        };
        if crop.left.saturating_add(crop.right) >= coded_width
            || crop.top.saturating_add(crop.bottom) >= coded_height
        {
            return Err(ParseError::new(format!(
                "the cropping window is empty (coded {coded_width}x{coded_height})"
            )));
        }
        let (profile_idc, level_idc) = (self.profile_idc, self.level_idc);
        let level_1b =
            level_idc == 11 && self.constraints & 0x10 != 0 && matches!(profile_idc, 66 | 77 | 88);
        let max_dpb_frames = self
            .vui_max_dec_frame_buffering
            .unwrap_or_else(|| level_dpb_frames(level_idc, level_1b, width_mbs * height_mbs))
            // A stream may ask for more than its level allows; it then needs them.
            .max(self.max_num_ref_frames);
        Ok(SequenceInfo {
            codec: Codec::H264,
            profile_idc,
            profile: h264_profile_name(profile_idc, self.constraints),
            level_idc,
            chroma,
            bit_depth_luma: self.bit_depth_luma,
            bit_depth_chroma: self.bit_depth_chroma,
            coded_width,
            coded_height,
            crop,
            interlaced: !frame_mbs_only,
            max_dpb_frames,
            max_num_ref_frames: self.max_num_ref_frames,
        })
    }
}

/// Parses an SPS from its RBSP (the NAL header byte included) as far as
/// [`SequenceInfo`] goes.
pub fn parse_sps(rbsp: &[u8]) -> Result<SequenceInfo, ParseError> {
    Sps::parse(rbsp)?.info()
}

/// `profile_idc` values whose SPS carries chroma format, bit depths and
/// scaling matrices (the `if( profile_idc == 100 || ...)` of 7.3.2.1.1).
pub(super) const HIGH_PROFILES: [u32; 13] =
    [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135];

fn chroma_format(idc: u32) -> Result<ChromaFormat, ParseError> {
    Ok(match idc {
        0 => ChromaFormat::Mono,
        1 => ChromaFormat::Yuv420,
        2 => ChromaFormat::Yuv422,
        3 => ChromaFormat::Yuv444,
        _ => return Err(ParseError::new(format!("chroma_format_idc {idc} is out of range"))),
    })
}

/// The scaling matrices of an SPS or PPS (7.3.2.1.1.1, 7.4.2.1.1.1) in the
/// form Vulkan Video's `StdVideoH264ScalingLists` takes: the coded flags as
/// masks, and every list with the fall-back rules of Table 7-2 and the
/// default matrices already applied, each in coded (zig-zag) order as
/// `scaling_list()` reads it. Drivers that apply the rules themselves from
/// the masks find the same lists where they look, so either reading of the
/// structure decodes the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScalingLists {
    /// `seq_scaling_list_present_flag[i]` (or `pic_`) as bit `i`.
    pub present: u16,
    /// `UseDefaultScalingMatrix4x4Flag[i]` as bit `i`, and
    /// `UseDefaultScalingMatrix8x8Flag[i - 6]` as bit `i` from 6 on.
    pub use_default: u16,
    /// Intra Y, Cb, Cr, then inter Y, Cb, Cr.
    pub list_4x4: [[u8; 16]; 6],
    /// Intra Y, inter Y, intra Cb, inter Cb, intra Cr, inter Cr (the Cb
    /// and Cr ones coded only for 4:4:4).
    pub list_8x8: [[u8; 64]; 6],
}

/// Table 7-3 and 7-4, in zig-zag order: `Default_4x4_Intra`,
/// `Default_4x4_Inter`, `Default_8x8_Intra`, `Default_8x8_Inter`.
const DEFAULT_4X4_INTRA: [u8; 16] = [6, 13, 13, 20, 20, 20, 28, 28, 28, 28, 32, 32, 32, 37, 37, 42];
const DEFAULT_4X4_INTER: [u8; 16] =
    [10, 14, 14, 20, 20, 20, 24, 24, 24, 24, 27, 27, 27, 30, 30, 34];
const DEFAULT_8X8_INTRA: [u8; 64] = [
    6, 10, 10, 13, 11, 13, 16, 16, 16, 16, 18, 18, 18, 18, 18, 23, 23, 23, 23, 23, 23, 25, 25, 25,
    25, 25, 25, 25, 27, 27, 27, 27, 27, 27, 27, 27, 29, 29, 29, 29, 29, 29, 29, 31, 31, 31, 31, 31,
    31, 33, 33, 33, 33, 33, 36, 36, 36, 36, 38, 38, 38, 40, 40, 42,
];
const DEFAULT_8X8_INTER: [u8; 64] = [
    9, 13, 13, 15, 13, 15, 17, 17, 17, 17, 19, 19, 19, 19, 19, 21, 21, 21, 21, 21, 21, 22, 22, 22,
    22, 22, 22, 22, 24, 24, 24, 24, 24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 27, 27, 27, 27, 27,
    27, 28, 28, 28, 28, 28, 30, 30, 30, 30, 32, 32, 32, 33, 33, 35,
];

impl ScalingLists {
    /// Every list the default one of its kind: what fall-back rule A
    /// starts from, and what `useDefaultScalingMatrixFlag` selects.
    pub const DEFAULT: ScalingLists = ScalingLists {
        present: 0,
        use_default: 0,
        list_4x4: [
            DEFAULT_4X4_INTRA,
            DEFAULT_4X4_INTRA,
            DEFAULT_4X4_INTRA,
            DEFAULT_4X4_INTER,
            DEFAULT_4X4_INTER,
            DEFAULT_4X4_INTER,
        ],
        list_8x8: [
            DEFAULT_8X8_INTRA,
            DEFAULT_8X8_INTER,
            DEFAULT_8X8_INTRA,
            DEFAULT_8X8_INTER,
            DEFAULT_8X8_INTRA,
            DEFAULT_8X8_INTER,
        ],
    };

    /// Reads `count` lists (6 of 16 entries, then those of 64), each after
    /// its present flag. A list not coded (absent, or past `count`) falls
    /// back (Table 7-2) to the one before it of its kind, or for the first
    /// intra and inter lists of each size to those of `fallback`: the
    /// defaults for rule A, the SPS's lists for rule B.
    pub(super) fn read(
        r: &mut BitReader<'_>,
        count: usize,
        fallback: &ScalingLists,
    ) -> Result<ScalingLists, ParseError> {
        let mut lists = ScalingLists::DEFAULT;
        let mut masks = (0u16, 0u16);
        let defaults = &ScalingLists::DEFAULT;
        read_lists(
            r,
            &mut lists.list_4x4,
            0,
            count,
            &defaults.list_4x4,
            &fallback.list_4x4,
            &mut masks,
        )?;
        read_lists(
            r,
            &mut lists.list_8x8,
            6,
            count,
            &defaults.list_8x8,
            &fallback.list_8x8,
            &mut masks,
        )?;
        (lists.present, lists.use_default) = masks;
        Ok(lists)
    }
}

/// Reads the 4x4 (`N` 16) or 8x8 lists of a [`ScalingLists`], whose
/// present flags are bits `first..` of the stream's numbering, into
/// `lists`, and sets their bits of the `(present, use_default)` masks. The
/// 4x4 lists fall back to the one before them, but for the first intra
/// (0) and inter (3); the 8x8 ones alternate intra and inter, so fall back
/// two places, but for the first two.
fn read_lists<const N: usize>(
    r: &mut BitReader<'_>,
    lists: &mut [[u8; N]; 6],
    first: usize,
    count: usize,
    defaults: &[[u8; N]; 6],
    fallback: &[[u8; N]; 6],
    (present, use_default): &mut (u16, u16),
) -> Result<(), ParseError> {
    for i in 0..6 {
        let bit = first + i;
        let earlier = if N == 16 { (i % 3 != 0).then(|| i - 1) } else { i.checked_sub(2) };
        if bit < count && r.flag()? {
            *present |= 1 << bit;
            if read_scaling_list(r, &mut lists[i])? {
                lists[i] = defaults[i];
                *use_default |= 1 << bit;
            }
        } else {
            lists[i] = earlier.map_or(fallback[i], |k| lists[k]);
        }
    }
    Ok(())
}

/// Reads one `scaling_list()` (7.3.2.1.1.1) into `list`: delta-coded
/// entries until one makes the next scale 0, the rest repeating the last.
/// True when the first delta selects the default list
/// (`useDefaultScalingMatrixFlag`).
fn read_scaling_list(r: &mut BitReader<'_>, list: &mut [u8]) -> Result<bool, ParseError> {
    let (mut last, mut next) = (8i32, 8i32);
    for (j, entry) in list.iter_mut().enumerate() {
        if next != 0 {
            let delta = r.se()?;
            if !(-128..=127).contains(&delta) {
                return Err(ParseError::new(format!("delta_scale {delta} is out of range")));
            }
            next = (last + delta).rem_euclid(256);
            if j == 0 && next == 0 {
                return Ok(true);
            }
        }
        if next != 0 {
            last = next;
        }
        *entry = last as u8;
    }
    Ok(false)
}

/// The VUI's `max_dec_frame_buffering` (E.1.1), when the stream states it
/// (`bitstream_restriction_flag`). Everything before it is read only to
/// reach it.
fn vui_max_dec_frame_buffering(r: &mut BitReader<'_>) -> Result<Option<u32>, ParseError> {
    if r.flag()? {
        // aspect_ratio_info_present_flag; 255 is Extended_SAR with 2x16 bits.
        if r.bits(8)? == 255 {
            r.skip(32)?;
        }
    }
    if r.flag()? {
        r.skip(1)?; // overscan_appropriate_flag
    }
    if r.flag()? {
        // video_signal_type_present_flag: format, full range, then colour.
        r.skip(4)?;
        if r.flag()? {
            r.skip(24)?;
        }
    }
    if r.flag()? {
        r.ue()?; // chroma_sample_loc_type_top_field
        r.ue()?; // chroma_sample_loc_type_bottom_field
    }
    if r.flag()? {
        r.skip(65)?; // num_units_in_tick, time_scale, fixed_frame_rate_flag
    }
    let nal_hrd = r.flag()?;
    if nal_hrd {
        skip_hrd_parameters(r)?;
    }
    let vcl_hrd = r.flag()?;
    if vcl_hrd {
        skip_hrd_parameters(r)?;
    }
    if nal_hrd || vcl_hrd {
        r.skip(1)?; // low_delay_hrd_flag
    }
    r.skip(1)?; // pic_struct_present_flag
    if !r.flag()? {
        return Ok(None);
    }
    r.skip(1)?; // motion_vectors_over_pic_boundaries_flag
    for _ in 0..5 {
        // max_bytes_per_pic_denom, max_bits_per_mb_denom, log2_max_mv_length
        // horizontal and vertical, max_num_reorder_frames
        r.ue()?;
    }
    Ok(Some(r.ue_max(16, "max_dec_frame_buffering")?))
}

/// Reads past `hrd_parameters()` (E.1.2).
fn skip_hrd_parameters(r: &mut BitReader<'_>) -> Result<(), ParseError> {
    let count = r.ue_max(31, "cpb_cnt_minus1")? + 1;
    r.skip(8)?; // bit_rate_scale, cpb_size_scale
    for _ in 0..count {
        r.ue()?; // bit_rate_value_minus1
        r.ue()?; // cpb_size_value_minus1
        r.skip(1)?; // cbr_flag
    }
    r.skip(20) // four 5-bit lengths and delays
}

/// MaxDpbFrames when the VUI does not say (A.3.1 item h, A.3.2 item f):
/// the level's MaxDpbMbs (Table A-1) over the frame's macroblocks, at most 16.
fn level_dpb_frames(level_idc: u32, level_1b: bool, frame_mbs: u32) -> u32 {
    let max_dpb_mbs = match level_idc {
        _ if level_1b => 396,
        9 | 10 => 396,
        11 => 900,
        12 | 13 | 20 => 2376,
        21 => 4752,
        22 | 30 => 8100,
        31 => 18000,
        32 => 20480,
        40 | 41 => 32768,
        42 => 34816,
        50 => 110400,
        51 | 52 => 184320,
        // Levels 6 to 6.2, and any later one: the largest in the table.
        _ => 696320,
    };
    (max_dpb_mbs / frame_mbs.max(1)).min(16)
}

/// The profile's name as ffprobe prints it (A.2), with the constraint flags
/// that make a subset profile (constraint_set1 on Baseline, constraint_set3
/// on the intra-only High ones).
fn h264_profile_name(profile_idc: u32, constraints: u32) -> &'static str {
    let set = |n: u32| constraints & (0x80 >> n) != 0;
    match profile_idc {
        66 if set(1) => "Constrained Baseline",
        66 => "Baseline",
        77 => "Main",
        88 => "Extended",
        100 => "High",
        110 if set(3) => "High 10 Intra",
        110 => "High 10",
        122 if set(3) => "High 4:2:2 Intra",
        122 => "High 4:2:2",
        244 if set(3) => "High 4:4:4 Intra",
        244 => "High 4:4:4 Predictive",
        44 => "CAVLC 4:4:4",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitstream::bits::Writer;
    use crate::bitstream::h264_slice::Pps;

    #[test]
    fn dpb_from_the_level_when_the_vui_is_silent() {
        // 854x480 is 54x30 macroblocks; level 3's MaxDpbMbs 8100 holds 5.
        assert_eq!(level_dpb_frames(30, false, 54 * 30), 5);
        // 1080p (120x68) at level 4.1: 32768 / 8160 = 4.
        assert_eq!(level_dpb_frames(41, false, 120 * 68), 4);
        // Tiny frames are capped at 16.
        assert_eq!(level_dpb_frames(51, false, 1), 16);
        // Level 1b is level_idc 11 with constraint_set3 in the Baseline family.
        assert_eq!(level_dpb_frames(11, true, 99), 4);
        assert_eq!(level_dpb_frames(11, false, 99), 9);
    }

    /// x264 puts its scaling lists in the PPS and never writes POC type 1,
    /// so this SPS is written by hand. (Given a start code, ffmpeg's
    /// `trace_headers` reads it with the same values, down to
    /// `rbsp_stop_one_bit`.)
    #[test]
    fn scaling_lists_poc_type_1_and_fields() {
        let mut w = Writer::default();
        w.u(8, 0x67).u(8, 100).u(8, 0).u(8, 41).ue(0); // header, High, level 4.1, id 0
        w.ue(1).ue(0).ue(0).u(1, 0); // 4:2:0, 8-bit, no transform bypass
        w.u(1, 1); // seq_scaling_matrix_present_flag
        // List 0: one delta that makes nextScale 0 (use the default list) ends it.
        w.u(1, 1).se(-8);
        w.u(1, 0).u(1, 0).u(1, 0).u(1, 0).u(1, 0);
        // List 6 (8x8): all 64 deltas 0, nextScale stays 8.
        w.u(1, 1);
        for _ in 0..64 {
            w.se(0);
        }
        w.u(1, 0); // list 7
        w.ue(0); // log2_max_frame_num_minus4
        // pic_order_cnt_type 1 with a cycle of two offsets.
        w.ue(1).u(1, 0).se(-2).se(1).ue(2).se(3).se(-1);
        w.ue(3).u(1, 0); // max_num_ref_frames 3, no gaps
        w.ue(79).ue(22); // 80 macroblocks wide, 23 map units (field pairs) high
        w.u(1, 0).u(1, 1).u(1, 1); // fields, MBAFF, direct_8x8_inference
        w.u(1, 1).ue(0).ue(0).ue(0).ue(4); // crop 4 units (2 x 2 rows) at the bottom
        w.u(1, 0); // no VUI
        let rbsp = w.rbsp();
        let lists = Sps::parse(&rbsp).unwrap().scaling_lists.unwrap();
        // Coded: lists 0 (the default, by its first delta) and 6 (flat 8).
        assert_eq!((lists.present, lists.use_default), (0b100_0001, 0b1));
        // Table 7-3's Default_4x4_Intra for list 0, and for 1 and 2 by
        // fall-back to the list before; list 3 falls back to
        // Default_4x4_Inter (rule A), 4 and 5 to it.
        let intra = [6, 13, 13, 20, 20, 20, 28, 28, 28, 28, 32, 32, 32, 37, 37, 42];
        let inter = [10, 14, 14, 20, 20, 20, 24, 24, 24, 24, 27, 27, 27, 30, 30, 34];
        assert_eq!(lists.list_4x4, [intra, intra, intra, inter, inter, inter]);
        assert_eq!(lists.list_8x8[0], [8; 64]);
        // List 7 not coded: Table 7-4's Default_8x8_Inter (rule A).
        assert_eq!(lists.list_8x8[1][..8], [9, 13, 13, 15, 13, 15, 17, 17]);
        assert_eq!(lists.list_8x8[1][56..], [30, 30, 32, 32, 32, 33, 33, 35]);
        let s = parse_sps(&rbsp).unwrap();
        assert_eq!((s.profile, s.level_idc, s.chroma), ("High", 41, ChromaFormat::Yuv420));
        assert_eq!((s.coded_width, s.coded_height), (1280, 23 * 2 * 16));
        assert_eq!(s.crop, Crop { left: 0, right: 0, top: 0, bottom: 16 });
        assert_eq!(s.display_size(), (1280, 720));
        assert!(s.interlaced);
        // No VUI: level 4.1's MaxDpbMbs 32768 over 80 x 46 macroblocks is 8 frames.
        assert_eq!((s.max_num_ref_frames, s.max_dpb_frames), (3, 8));
    }

    /// A High profile 4:2:0 SPS (id 0, 16x16, POC type 0) whose scaling
    /// matrices `lists` writes, if any.
    fn high_sps(lists: Option<&dyn Fn(&mut Writer)>) -> Sps {
        let mut w = Writer::default();
        w.u(8, 0x67).u(8, 100).u(8, 0).u(8, 30).ue(0); // header, High, level 3, id 0
        w.ue(1).ue(0).ue(0).u(1, 0); // 4:2:0, 8-bit, no transform bypass
        w.u(1, u32::from(lists.is_some()));
        if let Some(lists) = lists {
            lists(&mut w);
        }
        w.ue(0).ue(0).ue(0); // log2_max_frame_num_minus4, POC type 0, its lsb bits
        w.ue(1).u(1, 0).ue(0).ue(0); // one reference, no gaps, 1x1 macroblocks
        w.u(1, 1).u(1, 1).u(1, 0).u(1, 0); // frames, direct_8x8_inference, no crop, no VUI
        Sps::parse(&w.rbsp()).unwrap()
    }

    /// A PPS of SPS 0 with `transform_8x8_mode_flag` as given and the
    /// scaling matrices `lists` writes, if any, ending in
    /// `second_chroma_qp_index_offset` -3.
    fn pps(sps: &Sps, transform_8x8: bool, lists: Option<&dyn Fn(&mut Writer)>) -> Pps {
        let mut w = Writer::default();
        w.u(8, 0x68).ue(0).ue(0).u(1, 1).u(1, 0).ue(0); // ids, CABAC, one slice group
        w.ue(0).ue(0).u(1, 0).u(2, 0); // one reference each list, no weighting
        w.se(0).se(0).se(2).u(1, 1).u(1, 0).u(1, 0); // QPs, chroma offset 2, deblocking
        w.u(1, u32::from(transform_8x8)).u(1, u32::from(lists.is_some()));
        if let Some(lists) = lists {
            lists(&mut w);
        }
        w.se(-3);
        let pps = Pps::parse(&w.rbsp(), |_| Some(sps.clone())).unwrap();
        assert_eq!(pps.second_chroma_qp_index_offset, -3);
        pps
    }

    /// Writes a `scaling_list()` as the deltas between `entries`, starting
    /// from 8, as long as `entries` go (a last delta to 0 ends a list).
    fn write_list(w: &mut Writer, entries: &[i32]) {
        let mut last = 8;
        for &e in entries {
            w.se(e - last);
            last = e;
        }
    }

    #[test]
    fn delta_coded_lists_end_early_and_wrap() {
        let sps = high_sps(Some(&|w: &mut Writer| {
            // List 0: 10, 13, then a delta to 0 ends it: 13 to the end.
            w.u(1, 1);
            write_list(w, &[10, 13, 0]);
            // List 1: -10 from 8 wraps to 254, then a delta to 0.
            w.u(1, 1);
            w.se(-10).se(2);
            // List 2: all 16 entries coded, the last delta to 0 (no early end).
            w.u(1, 1);
            let ramp: Vec<i32> = (1..=15).chain([0]).collect();
            write_list(w, &ramp);
            for _ in 3..8 {
                w.u(1, 0);
            }
        }));
        let lists = sps.scaling_lists.unwrap();
        assert_eq!((lists.present, lists.use_default), (0b111, 0));
        let mut want = [13u8; 16];
        want[0] = 10;
        assert_eq!(lists.list_4x4[0], want);
        assert_eq!(lists.list_4x4[1], [254; 16]);
        let mut ramp: Vec<u8> = (1..=15).collect();
        ramp.push(15);
        assert_eq!(lists.list_4x4[2][..], ramp[..]);
        // Delta out of se(v)'s -128..127 is an error.
        let mut w = Writer::default();
        w.u(1, 1).se(200);
        let rbsp = w.rbsp();
        let mut r = BitReader::new(&rbsp);
        let err = ScalingLists::read(&mut r, 6, &ScalingLists::DEFAULT).unwrap_err();
        assert_eq!(err.to_string(), "delta_scale 200 is out of range");
    }

    /// Fall-back rule A in a PPS of an SPS without matrices: lists not
    /// coded start from the defaults; an 8x8 list coded as the default.
    #[test]
    fn pps_fall_back_rule_a() {
        let sps = high_sps(None);
        assert!(sps.scaling_lists.is_none());
        let custom: Vec<i32> = (0..16).map(|i| 20 + i).collect();
        let p = pps(
            &sps,
            true,
            Some(&|w: &mut Writer| {
                w.u(1, 0).u(1, 0).u(1, 0); // 0 to 2 not coded
                w.u(1, 1);
                write_list(w, &custom); // 3
                w.u(1, 0).u(1, 0); // 4, 5 not coded
                w.u(1, 1).se(-8); // 6: useDefaultScalingMatrixFlag
                w.u(1, 0); // 7 not coded
            }),
        );
        let lists = p.scaling_lists.unwrap();
        assert_eq!((lists.present, lists.use_default), (0b100_1000, 0b100_0000));
        let intra = [6, 13, 13, 20, 20, 20, 28, 28, 28, 28, 32, 32, 32, 37, 37, 42];
        let custom: [u8; 16] = std::array::from_fn(|i| 20 + i as u8);
        assert_eq!(lists.list_4x4, [intra, intra, intra, custom, custom, custom]);
        // Default_8x8_Intra coded by its flag, Default_8x8_Inter by rule A.
        assert_eq!(lists.list_8x8[0][..6], [6, 10, 10, 13, 11, 13]);
        assert_eq!(lists.list_8x8[0][63], 42);
        assert_eq!(lists.list_8x8[1][..6], [9, 13, 13, 15, 13, 15]);
    }

    /// Fall-back rule B: a PPS's lists not coded start from the SPS's
    /// (for lists 0, 3, 6 and 7) or from the PPS's list before.
    #[test]
    fn pps_fall_back_rule_b() {
        let sps = high_sps(Some(&|w: &mut Writer| {
            for i in 0..8 {
                w.u(1, 1);
                let n = if i < 6 { 16 } else { 64 };
                let entries: Vec<i32> = (0..n).map(|_| 30 + i).collect();
                write_list(w, &entries);
            }
        }));
        let s = sps.scaling_lists.as_ref().unwrap();
        assert_eq!((s.present, s.use_default), (0xff, 0));
        assert_eq!(s.list_4x4[5], [35; 16]);
        assert_eq!((s.list_8x8[0], s.list_8x8[1]), ([36; 64], [37; 64]));
        let p = pps(
            &sps,
            true,
            Some(&|w: &mut Writer| {
                w.u(1, 0); // 0: the SPS's list 0
                w.u(1, 1);
                write_list(w, &[50; 16]); // 1
                w.u(1, 0); // 2: the PPS's list 1
                w.u(1, 0); // 3: the SPS's list 3
                w.u(1, 1).se(-8); // 4: Default_4x4_Inter
                w.u(1, 0); // 5: the PPS's list 4
                w.u(1, 0); // 6: the SPS's list 6
                w.u(1, 1);
                write_list(w, &[60; 64]); // 7
            }),
        );
        let lists = p.scaling_lists.unwrap();
        assert_eq!((lists.present, lists.use_default), (0b1001_0010, 0b1_0000));
        let inter = [10, 14, 14, 20, 20, 20, 24, 24, 24, 24, 27, 27, 27, 30, 30, 34];
        assert_eq!(lists.list_4x4, [[30; 16], [50; 16], [50; 16], [33; 16], inter, inter]);
        assert_eq!((lists.list_8x8[0], lists.list_8x8[1]), ([36; 64], [60; 64]));
        // Without transform_8x8_mode_flag only the six 4x4 lists are coded:
        // the 8x8 ones (unused) fall back too.
        let p = pps(
            &sps,
            false,
            Some(&|w: &mut Writer| {
                for _ in 0..6 {
                    w.u(1, 0);
                }
            }),
        );
        let lists = p.scaling_lists.unwrap();
        assert_eq!(lists.present, 0);
        assert_eq!(lists.list_4x4[4], [33; 16]);
        assert_eq!(lists.list_8x8[1], [37; 64]);
    }

    #[test]
    fn truncated_sps_is_an_error() {
        // High profile, level 4, then nothing.
        let err = parse_sps(&[0x67, 100, 0, 40]).unwrap_err();
        assert_eq!(err.to_string(), "the parameter set ends early");
    }
}
