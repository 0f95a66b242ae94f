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
    pub temporal_id_nesting: bool,
    pub profile_idc: u32,
    pub level_idc: u32,
    /// The general profile, tier and level with their flags.
    pub general: ProfileTierLevel,
    pub sub_layer_ordering_info_present: bool,
    /// `vps_max_dec_pic_buffering_minus1 + 1` of the highest sub-layer.
    pub max_dpb_frames: u32,
    /// `vps_max_num_reorder_pics` and `vps_max_latency_increase_plus1` of
    /// the highest sub-layer.
    pub max_num_reorder_pics: u32,
    pub max_latency_increase_plus1: u32,
}

/// The general part of `profile_tier_level()` that decoders are told.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProfileTierLevel {
    /// `general_profile_idc`, or the first compatible profile when it is 0.
    pub profile_idc: u32,
    pub level_idc: u32,
    pub tier: bool,
    pub progressive_source: bool,
    pub interlaced_source: bool,
    pub non_packed_constraint: bool,
    pub frame_only_constraint: bool,
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
    let temporal_id_nesting = r.flag()?;
    r.skip(16)?; // vps_reserved_0xffff_16bits
    let general = profile_tier_level(&mut r, max_sub_layers)?;
    let (sub_layer_ordering_info_present, [max_dpb_frames, max_num_reorder_pics, max_latency]) =
        sub_layer_ordering(&mut r, max_sub_layers)?;
    Ok(VideoParameterSet {
        id,
        max_sub_layers,
        temporal_id_nesting,
        profile_idc: general.profile_idc,
        level_idc: general.level_idc,
        general,
        sub_layer_ordering_info_present,
        max_dpb_frames,
        max_num_reorder_pics,
        max_latency_increase_plus1: max_latency,
    })
}

/// Parses an SPS of the base layer from its RBSP (header included) and
/// gives what it says about the pictures. It reads only as far as that
/// needs (up to the sub-layer ordering info): `vqscope info` and the choice
/// of decoder then do not depend on the VUI and extensions after it, where
/// encoders' mistakes are found.
pub fn parse_sps(rbsp: &[u8]) -> Result<SequenceInfo, ParseError> {
    Sps::read(rbsp, false)?.info()
}

/// A short-term reference picture set (7.3.7, 7.4.8) as the decoding
/// process uses it: the POC differences to the current picture, nearest
/// first, each with `used_by_curr_pic` (whether the current picture may
/// predict from it, rather than only keep it for later pictures).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShortTermRps {
    /// `DeltaPocS0` with `UsedByCurrPicS0`: pictures before the current one.
    pub negative: Vec<(i32, bool)>,
    /// `DeltaPocS1` with `UsedByCurrPicS1`: pictures after it.
    pub positive: Vec<(i32, bool)>,
    /// How the set was coded when predicted from another: Vulkan Video's
    /// session parameters take the syntax as well as the derived lists.
    pub inter: Option<InterRps>,
}

/// The syntax of an inter-predicted short-term RPS (7.3.7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InterRps {
    pub delta_idx_minus1: u32,
    pub delta_rps_sign: bool,
    pub abs_delta_rps_minus1: u32,
    /// `used_by_curr_pic_flag[j]` and `use_delta_flag[j]`, bit `j` each.
    pub used_by_curr_pic_flags: u32,
    pub use_delta_flags: u32,
    /// `NumDeltaPocs[RefRpsIdx]`: pictures of the set predicted from.
    pub reference_delta_pocs: u32,
}

impl ShortTermRps {
    /// `NumDeltaPocs`.
    pub fn len(&self) -> usize {
        self.negative.len() + self.positive.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads `st_ref_pic_set(stRpsIdx)` with `stRpsIdx` the length of
    /// `earlier`, the sets before it, which inter prediction copies from:
    /// the SPS's sets before this one, or all of them for a set a slice
    /// codes itself (`in_slice`, which may name the set it copies).
    pub(super) fn parse(
        r: &mut BitReader<'_>,
        earlier: &[ShortTermRps],
        in_slice: bool,
    ) -> Result<ShortTermRps, ParseError> {
        let index = earlier.len();
        if index != 0 && r.flag()? {
            // inter_ref_pic_set_prediction_flag: the set is another one
            // shifted by deltaRps, with pictures kept or left out.
            let delta_idx = if in_slice {
                r.ue_max(index as u32 - 1, "delta_idx_minus1")? as usize + 1
            } else {
                1
            };
            let reference = &earlier[index - delta_idx];
            let sign = r.flag()?;
            let abs_delta_rps_minus1 = r.ue_max(1 << 15, "abs_delta_rps_minus1")?;
            let magnitude = abs_delta_rps_minus1 as i32 + 1;
            let delta_rps = if sign { -magnitude } else { magnitude };
            // One (used_by_curr_pic_flag, use_delta_flag) for each picture of
            // the reference set (S0 then S1), and a last one for the
            // reference picture itself (delta deltaRps).
            let mut flags = Vec::with_capacity(reference.len() + 1);
            for _ in 0..=reference.len() {
                let used = r.flag()?;
                let use_delta = used || r.flag()?;
                flags.push((used, use_delta));
            }
            let (s0, s1) = (&reference.negative, &reference.positive);
            let n0 = s0.len();
            let own = flags[reference.len()];
            // 7.4.8 (7-61, 7-62): candidates in the order the standard lists
            // them, kept where the shifted delta has the wanted sign.
            let mut negative = Vec::new();
            let mut positive = Vec::new();
            let from_s1 = s1.iter().enumerate().map(|(j, &(d, _))| (d + delta_rps, flags[n0 + j]));
            let from_s0 = s0.iter().enumerate().map(|(j, &(d, _))| (d + delta_rps, flags[j]));
            let candidates_before = from_s1
                .clone()
                .rev()
                .chain(std::iter::once((delta_rps, own)))
                .chain(from_s0.clone());
            for (d, (used, keep)) in candidates_before {
                if d < 0 && keep {
                    negative.push((d, used));
                }
            }
            let candidates_after =
                from_s0.rev().chain(std::iter::once((delta_rps, own))).chain(from_s1);
            for (d, (used, keep)) in candidates_after {
                if d > 0 && keep {
                    positive.push((d, used));
                }
            }
            if negative.len() + positive.len() > 16 {
                return Err(ParseError::new("a reference picture set holds more than 16 pictures"));
            }
            let bits = |pick: fn(&(bool, bool)) -> bool| {
                flags.iter().enumerate().filter(|(_, f)| pick(f)).fold(0, |m, (j, _)| m | 1 << j)
            };
            let inter = InterRps {
                delta_idx_minus1: delta_idx as u32 - 1,
                delta_rps_sign: sign,
                abs_delta_rps_minus1,
                used_by_curr_pic_flags: bits(|f| f.0),
                use_delta_flags: bits(|f| f.1),
                reference_delta_pocs: reference.len() as u32,
            };
            return Ok(ShortTermRps { negative, positive, inter: Some(inter) });
        }
        let num_negative = r.ue_max(16, "num_negative_pics")? as usize;
        let num_positive = r.ue_max(16 - num_negative as u32, "num_positive_pics")? as usize;
        let mut read = |count: usize, sign: i32| -> Result<Vec<(i32, bool)>, ParseError> {
            let mut poc = 0i32;
            let mut list = Vec::with_capacity(count);
            for _ in 0..count {
                poc += sign * (r.ue_max(1 << 15, "delta_poc_minus1")? as i32 + 1);
                list.push((poc, r.flag()?));
            }
            Ok(list)
        };
        let negative = read(num_negative, -1)?;
        let positive = read(num_positive, 1)?;
        Ok(ShortTermRps { negative, positive, inter: None })
    }
}

/// PCM sample coding (`pcm_enabled_flag` 1): its sample depths and block
/// sizes, which Vulkan Video's SPS carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pcm {
    pub bit_depth_luma: u32,
    pub bit_depth_chroma: u32,
    pub log2_min_coding_block_size: u32,
    pub log2_diff_max_min_coding_block_size: u32,
    pub loop_filter_disabled: bool,
}

/// The fields of an H.265 SPS (7.3.2.2.1) that slice headers, the decoding
/// process around pictures and a device decoder's session parameters need.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sps {
    pub id: u32,
    pub vps_id: u32,
    pub max_sub_layers: u32,
    pub temporal_id_nesting: bool,
    pub profile_idc: u32,
    pub level_idc: u32,
    pub general: ProfileTierLevel,
    pub chroma_format_idc: u32,
    pub separate_colour_plane: bool,
    pub width: u32,
    pub height: u32,
    /// `conf_win_{left,right,top,bottom}_offset` in chroma samples, when
    /// `conformance_window_flag` is set.
    pub conformance_window: Option<[u32; 4]>,
    pub bit_depth_luma: u32,
    pub bit_depth_chroma: u32,
    pub log2_max_pic_order_cnt_lsb: u32,
    pub sub_layer_ordering_info_present: bool,
    /// `sps_max_dec_pic_buffering_minus1 + 1`, `sps_max_num_reorder_pics`
    /// and `sps_max_latency_increase_plus1` of the highest sub-layer: the
    /// values C.5.2.2 bumps by when the whole stream is decoded.
    pub max_dec_pic_buffering: u32,
    pub max_num_reorder_pics: u32,
    pub max_latency_increase_plus1: u32,
    pub log2_min_luma_coding_block_size: u32,
    pub log2_diff_max_min_luma_coding_block_size: u32,
    pub log2_min_luma_transform_block_size: u32,
    pub log2_diff_max_min_luma_transform_block_size: u32,
    pub max_transform_hierarchy_depth_inter: u32,
    pub max_transform_hierarchy_depth_intra: u32,
    /// `scaling_list_enabled_flag`.
    pub scaling_list_enabled: bool,
    /// The lists of `scaling_list_data()` when the SPS codes them
    /// (`sps_scaling_list_data_present_flag`); enabled without them means
    /// [`ScalingLists::default`].
    pub scaling_lists: Option<ScalingLists>,
    pub amp_enabled: bool,
    pub sample_adaptive_offset_enabled: bool,
    pub pcm: Option<Pcm>,
    pub short_term_rps: Vec<ShortTermRps>,
    pub long_term_ref_pics_present: bool,
    /// `lt_ref_pic_poc_lsb_sps` with `used_by_curr_pic_lt_sps_flag`.
    pub long_term_ref_pics: Vec<(u32, bool)>,
    pub temporal_mvp_enabled: bool,
    pub strong_intra_smoothing_enabled: bool,
    /// `sps_range_extension_flag` with any of its tools on: RExt profiles
    /// only, which this decoder does not take.
    pub range_extension: bool,
    /// `sps_scc_extension_flag` (screen content coding): it changes the
    /// PPS and slice header syntax, so such a stream is refused at parsing.
    pub scc_extension: bool,
}

impl Sps {
    /// Parses an SPS of the base layer from its RBSP (the two header bytes
    /// included).
    pub fn parse(rbsp: &[u8]) -> Result<Sps, ParseError> {
        Sps::read(rbsp, true)
    }

    /// Reads the whole SPS, or (`whole` false) up to the sub-layer ordering
    /// info with the fields after it left at their defaults.
    fn read(rbsp: &[u8], whole: bool) -> Result<Sps, ParseError> {
        let mut r = BitReader::new(rbsp);
        r.skip(16)?;
        let vps_id = r.bits(4)?;
        let max_sub_layers = r.bits(3)? + 1;
        let temporal_id_nesting = r.flag()?;
        let general = profile_tier_level(&mut r, max_sub_layers)?;
        let id = r.ue_max(15, "sps_seq_parameter_set_id")?;
        let chroma_format_idc = r.ue_max(3, "chroma_format_idc")?;
        let separate_colour_plane = chroma_format_idc == 3 && r.flag()?;
        let width = r.ue_max(crate::MAX_DIMENSION, "pic_width_in_luma_samples")?;
        let height = r.ue_max(crate::MAX_DIMENSION, "pic_height_in_luma_samples")?;
        let conformance_window =
            if r.flag()? { Some([r.ue()?, r.ue()?, r.ue()?, r.ue()?]) } else { None };
        let bit_depth_luma = 8 + r.ue_max(8, "bit_depth_luma_minus8")?;
        let bit_depth_chroma = 8 + r.ue_max(8, "bit_depth_chroma_minus8")?;
        let log2_max_pic_order_cnt_lsb = 4 + r.ue_max(12, "log2_max_pic_order_cnt_lsb_minus4")?;
        let (
            sub_layer_ordering_info_present,
            [max_dec_pic_buffering, max_num_reorder_pics, max_latency_increase_plus1],
        ) = sub_layer_ordering(&mut r, max_sub_layers)?;
        let head = Sps {
            id,
            vps_id,
            max_sub_layers,
            temporal_id_nesting,
            profile_idc: general.profile_idc,
            level_idc: general.level_idc,
            general,
            chroma_format_idc,
            separate_colour_plane,
            width,
            height,
            conformance_window,
            bit_depth_luma,
            bit_depth_chroma,
            log2_max_pic_order_cnt_lsb,
            sub_layer_ordering_info_present,
            max_dec_pic_buffering,
            max_num_reorder_pics,
            max_latency_increase_plus1,
            ..Sps::default()
        };
        if !whole {
            return Ok(head);
        }
        let log2_min_luma_coding_block_size =
            3 + r.ue_max(3, "log2_min_luma_coding_block_size_minus3")?;
        let log2_diff_max_min_luma_coding_block_size =
            r.ue_max(3, "log2_diff_max_min_luma_coding_block_size")?;
        let log2_min_luma_transform_block_size =
            2 + r.ue_max(3, "log2_min_luma_transform_block_size_minus2")?;
        let log2_diff_max_min_luma_transform_block_size =
            r.ue_max(3, "log2_diff_max_min_luma_transform_block_size")?;
        let max_transform_hierarchy_depth_inter =
            r.ue_max(4, "max_transform_hierarchy_depth_inter")?;
        let max_transform_hierarchy_depth_intra =
            r.ue_max(4, "max_transform_hierarchy_depth_intra")?;
        let scaling_list_enabled = r.flag()?;
        let scaling_lists = if scaling_list_enabled && r.flag()? {
            Some(ScalingLists::read(&mut r)?)
        } else {
            None
        };
        let amp_enabled = r.flag()?;
        let sample_adaptive_offset_enabled = r.flag()?;
        let pcm = if r.flag()? {
            Some(Pcm {
                bit_depth_luma: r.bits(4)? + 1,
                bit_depth_chroma: r.bits(4)? + 1,
                log2_min_coding_block_size: 3 + r
                    .ue_max(2, "log2_min_pcm_luma_coding_block_size_minus3")?,
                log2_diff_max_min_coding_block_size: r
                    .ue_max(2, "log2_diff_max_min_pcm_luma_coding_block_size")?,
                loop_filter_disabled: r.flag()?,
            })
        } else {
            None
        };
        let num_sets = r.ue_max(64, "num_short_term_ref_pic_sets")? as usize;
        let mut short_term_rps = Vec::with_capacity(num_sets);
        for _ in 0..num_sets {
            let set = ShortTermRps::parse(&mut r, &short_term_rps, false)?;
            short_term_rps.push(set);
        }
        let long_term_ref_pics_present = r.flag()?;
        let mut long_term_ref_pics = Vec::new();
        if long_term_ref_pics_present {
            for _ in 0..r.ue_max(32, "num_long_term_ref_pics_sps")? {
                long_term_ref_pics.push((r.bits(log2_max_pic_order_cnt_lsb)?, r.flag()?));
            }
        }
        let temporal_mvp_enabled = r.flag()?;
        let strong_intra_smoothing_enabled = r.flag()?;
        if r.flag()? {
            skip_vui(&mut r, max_sub_layers)?;
        }
        let (mut range_extension, mut scc_extension) = (false, false);
        if r.flag()? {
            // sps_range_extension_flag, sps_multilayer_extension_flag,
            // sps_3d_extension_flag, sps_scc_extension_flag, 4 more bits.
            let flags = r.bits(8)?;
            scc_extension = flags & 0x10 != 0;
            if flags & 0x80 != 0 {
                // Nine tool flags (transform skip rotation ... CABAC bypass
                // alignment): any set means a range extensions profile.
                range_extension = r.bits(9)? != 0;
            }
        }
        Ok(Sps {
            log2_min_luma_coding_block_size,
            log2_diff_max_min_luma_coding_block_size,
            log2_min_luma_transform_block_size,
            log2_diff_max_min_luma_transform_block_size,
            max_transform_hierarchy_depth_inter,
            max_transform_hierarchy_depth_intra,
            scaling_list_enabled,
            scaling_lists,
            amp_enabled,
            sample_adaptive_offset_enabled,
            pcm,
            short_term_rps,
            long_term_ref_pics_present,
            long_term_ref_pics,
            temporal_mvp_enabled,
            strong_intra_smoothing_enabled,
            range_extension,
            scc_extension,
            ..head
        })
    }

    /// `ChromaArrayType`: 0 for monochrome and separately coded planes.
    pub fn chroma_array_type(&self) -> u32 {
        if self.separate_colour_plane { 0 } else { self.chroma_format_idc }
    }

    /// `PicSizeInCtbsY`: coding tree blocks in a picture, which sizes
    /// `slice_segment_address`.
    pub fn picture_size_in_ctbs(&self) -> u32 {
        let ctb = 1
            << (self.log2_min_luma_coding_block_size
                + self.log2_diff_max_min_luma_coding_block_size);
        self.width.div_ceil(ctb) * self.height.div_ceil(ctb)
    }

    /// What the SPS says about the pictures of the stream.
    pub fn info(&self) -> Result<SequenceInfo, ParseError> {
        let chroma = match self.chroma_format_idc {
            0 => ChromaFormat::Mono,
            1 => ChromaFormat::Yuv420,
            2 => ChromaFormat::Yuv422,
            _ => ChromaFormat::Yuv444,
        };
        // Window offsets count in chroma samples (SubWidthC, SubHeightC; 1
        // for monochrome and separately coded planes), 7.4.3.2.1.
        let (shift_x, shift_y) = if self.separate_colour_plane { (0, 0) } else { chroma.shifts() };
        let [left, right, top, bottom] = self.conformance_window.unwrap_or_default();
        let crop = Crop {
            left: left.saturating_mul(1 << shift_x),
            right: right.saturating_mul(1 << shift_x),
            top: top.saturating_mul(1 << shift_y),
            bottom: bottom.saturating_mul(1 << shift_y),
        };
        let (coded_width, coded_height) = (self.width, self.height);
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
            profile_idc: self.profile_idc,
            profile: h265_profile_name(self.profile_idc),
            level_idc: self.level_idc,
            chroma,
            bit_depth_luma: self.bit_depth_luma,
            bit_depth_chroma: self.bit_depth_chroma,
            coded_width,
            coded_height,
            crop,
            interlaced: false,
            max_dpb_frames: self.max_dec_pic_buffering,
            // H.265 does not cap references apart from the DPB: a picture may
            // refer to every other picture it holds.
            max_num_ref_frames: self.max_dec_pic_buffering.saturating_sub(1),
        })
    }
}

/// The scaling lists of `scaling_list_data()` (7.3.4) as Vulkan Video's
/// `StdVideoH265ScalingLists` takes them: every list derived (7.4.5:
/// copied from a reference list, the default, or delta-coded), in coded
/// (up-right diagonal) order, `ScalingFactor` not derived. Lists are
/// numbered by `matrixId`: intra Y, Cb, Cr, then inter Y, Cb, Cr; the two
/// 32x32 lists are `matrixId` 0 and 3 (intra and inter Y).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScalingLists {
    pub list_4x4: [[u8; 16]; 6],
    pub list_8x8: [[u8; 64]; 6],
    pub list_16x16: [[u8; 64]; 6],
    pub list_32x32: [[u8; 64]; 2],
    /// `scaling_list_dc_coef_minus8 + 8` of the 16x16 and 32x32 lists (16
    /// where a list is the default).
    pub dc_16x16: [u8; 6],
    pub dc_32x32: [u8; 2],
}

/// Table 7-6, `i` = 0..63: the default 8x8, 16x16 and 32x32 lists for
/// `matrixId` 0 to 2 (intra) and 3 to 5 (inter). The 4x4 default is flat 16
/// (Table 7-5).
const DEFAULT_INTRA: [u8; 64] = [
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 16, 17, 16, 17, 18, 17, 18, 18, 17, 18, 21, 19, 20,
    21, 20, 19, 21, 24, 22, 22, 24, 24, 22, 22, 24, 25, 25, 27, 30, 27, 25, 25, 29, 31, 35, 35, 31,
    29, 36, 41, 44, 41, 36, 47, 54, 54, 47, 65, 70, 65, 88, 88, 115,
];
const DEFAULT_INTER: [u8; 64] = [
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 17, 18, 18, 18, 18, 18, 18, 20, 20, 20,
    20, 20, 20, 20, 24, 24, 24, 24, 24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 28, 28, 28, 28, 28,
    28, 33, 33, 33, 33, 33, 41, 41, 41, 41, 54, 54, 54, 71, 71, 91,
];

impl Default for ScalingLists {
    /// Tables 7-5 and 7-6: what `scaling_list_enabled_flag` without coded
    /// lists means, and what a list predicted with
    /// `scaling_list_pred_matrix_id_delta` 0 is.
    fn default() -> Self {
        let big = [
            DEFAULT_INTRA,
            DEFAULT_INTRA,
            DEFAULT_INTRA,
            DEFAULT_INTER,
            DEFAULT_INTER,
            DEFAULT_INTER,
        ];
        ScalingLists {
            list_4x4: [[16; 16]; 6],
            list_8x8: big,
            list_16x16: big,
            list_32x32: [DEFAULT_INTRA, DEFAULT_INTER],
            dc_16x16: [16; 6],
            dc_32x32: [16; 2],
        }
    }
}

impl ScalingLists {
    /// Reads `scaling_list_data()` (7.3.4) and derives its lists (7.4.5).
    pub(super) fn read(r: &mut BitReader<'_>) -> Result<ScalingLists, ParseError> {
        let mut lists = ScalingLists::default();
        // Each size's lists by matrixId, DC entries beside them (16 when unused).
        let mut small = [[[16u8; 64]; 6]; 2];
        let mut big = [[[16u8; 64]; 6]; 2];
        let mut dc = [[16u8; 6]; 2];
        for size_id in 0..4 {
            let step = if size_id == 3 { 3 } else { 1 };
            for matrix_id in (0..6).step_by(step) {
                let (list, dc) = match size_id {
                    0 | 1 => (&mut small[size_id], None),
                    _ => (&mut big[size_id - 2], Some(&mut dc[size_id - 2])),
                };
                let len = if size_id == 0 { 16 } else { 64 };
                if !r.flag()? {
                    // scaling_list_pred_mode_flag 0: a copy of an earlier list or the default.
                    let delta = r.ue_max(
                        matrix_id as u32 / step as u32,
                        "scaling_list_pred_matrix_id_delta",
                    )? as usize;
                    if delta == 0 {
                        let default = if size_id == 0 {
                            [16; 64]
                        } else if matrix_id < 3 {
                            DEFAULT_INTRA
                        } else {
                            DEFAULT_INTER
                        };
                        list[matrix_id] = default;
                        if let Some(dc) = dc {
                            dc[matrix_id] = 16;
                        }
                    } else {
                        let reference = matrix_id - delta * step;
                        list[matrix_id] = list[reference];
                        if let Some(dc) = dc {
                            dc[matrix_id] = dc[reference];
                        }
                    }
                    continue;
                }
                let mut next = 8i32;
                if let Some(dc) = dc {
                    let dc_minus8 = r.se()?;
                    if !(-7..=247).contains(&dc_minus8) {
                        return Err(ParseError::new(format!(
                            "scaling_list_dc_coef_minus8 {dc_minus8} is out of range"
                        )));
                    }
                    next = dc_minus8 + 8;
                    dc[matrix_id] = next as u8;
                }
                for entry in &mut list[matrix_id][..len] {
                    let delta = r.se()?;
                    if !(-128..=127).contains(&delta) {
                        return Err(ParseError::new(format!(
                            "scaling_list_delta_coef {delta} is out of range"
                        )));
                    }
                    next = (next + delta).rem_euclid(256);
                    *entry = next as u8;
                }
            }
        }
        for (dst, src) in lists.list_4x4.iter_mut().zip(&small[0]) {
            dst.copy_from_slice(&src[..16]);
        }
        lists.list_8x8 = small[1];
        lists.list_16x16 = big[0];
        lists.list_32x32 = [big[1][0], big[1][3]];
        lists.dc_16x16 = dc[0];
        lists.dc_32x32 = [dc[1][0], dc[1][3]];
        Ok(lists)
    }
}

/// Reads past `vui_parameters()` (E.2.1), HRD parameters included: nothing
/// in it changes decoding, but the SPS extension flags come after it.
fn skip_vui(r: &mut BitReader<'_>, max_sub_layers: u32) -> Result<(), ParseError> {
    if r.flag()? && r.bits(8)? == 255 {
        r.skip(32)?; // sar_width, sar_height
    }
    if r.flag()? {
        r.skip(1)?; // overscan_appropriate_flag
    }
    if r.flag()? {
        // video_format, video_full_range_flag, then the colour description.
        r.skip(4)?;
        if r.flag()? {
            r.skip(24)?;
        }
    }
    if r.flag()? {
        r.ue()?; // chroma_sample_loc_type_top_field
        r.ue()?; // chroma_sample_loc_type_bottom_field
    }
    r.skip(3)?; // neutral_chroma_indication, field_seq, frame_field_info_present
    if r.flag()? {
        for _ in 0..4 {
            r.ue()?; // default display window offsets
        }
    }
    if r.flag()? {
        r.skip(64)?; // vui_num_units_in_tick, vui_time_scale
        if r.flag()? {
            r.ue()?; // vui_num_ticks_poc_diff_one_minus1
        }
        if r.flag()? {
            skip_hrd_parameters(r, max_sub_layers)?;
        }
    }
    if r.flag()? {
        // bitstream_restriction: three flags and five ue(v).
        r.skip(3)?;
        for _ in 0..5 {
            r.ue()?;
        }
    }
    Ok(())
}

/// Reads past `hrd_parameters(1, max_sub_layers - 1)` (E.2.2).
fn skip_hrd_parameters(r: &mut BitReader<'_>, max_sub_layers: u32) -> Result<(), ParseError> {
    let nal = r.flag()?;
    let vcl = r.flag()?;
    let mut sub_pic = false;
    if nal || vcl {
        sub_pic = r.flag()?;
        if sub_pic {
            r.skip(8 + 5 + 1 + 5)?;
        }
        r.skip(8)?; // bit_rate_scale, cpb_size_scale
        if sub_pic {
            r.skip(4)?; // cpb_size_du_scale
        }
        r.skip(15)?; // three delay lengths
    }
    for _ in 0..max_sub_layers {
        let fixed_general = r.flag()?;
        let fixed_within_cvs = fixed_general || r.flag()?;
        let mut low_delay = false;
        if fixed_within_cvs {
            r.ue()?; // elemental_duration_in_tc_minus1
        } else {
            low_delay = r.flag()?;
        }
        let cpb_count = if low_delay { 1 } else { r.ue_max(31, "cpb_cnt_minus1")? + 1 };
        for _ in 0..u32::from(nal) + u32::from(vcl) {
            for _ in 0..cpb_count {
                r.ue()?; // bit_rate_value_minus1
                r.ue()?; // cpb_size_value_minus1
                if sub_pic {
                    r.ue()?; // cpb_size_du_value_minus1
                    r.ue()?; // bit_rate_du_value_minus1
                }
                r.skip(1)?; // cbr_flag
            }
        }
    }
    Ok(())
}

/// `profile_tier_level(1, max_sub_layers - 1)`: returns the general
/// profile (from the compatibility flags when `general_profile_idc` is 0),
/// tier, level and source flags, and reads past the sub-layers' fields.
fn profile_tier_level(
    r: &mut BitReader<'_>,
    max_sub_layers: u32,
) -> Result<ProfileTierLevel, ParseError> {
    r.skip(2)?; // general_profile_space
    let tier = r.flag()?;
    let mut profile_idc = r.bits(5)?;
    let compatible = r.bits(32)?;
    if profile_idc == 0 {
        // Flag j is bit 31 - j: the first set flag names the profile.
        profile_idc = (1..32).find(|j| compatible & (1 << (31 - j)) != 0).unwrap_or(0);
    }
    let progressive_source = r.flag()?;
    let interlaced_source = r.flag()?;
    let non_packed_constraint = r.flag()?;
    let frame_only_constraint = r.flag()?;
    r.skip(43 + 1)?; // constraint flags, general_inbld_flag
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
    Ok(ProfileTierLevel {
        profile_idc,
        level_idc,
        tier,
        progressive_source,
        interlaced_source,
        non_packed_constraint,
        frame_only_constraint,
    })
}

/// The sub-layer ordering info shared by the VPS and SPS: returns
/// `sub_layer_ordering_info_present_flag` and
/// `max_dec_pic_buffering_minus1 + 1`, `max_num_reorder_pics` and
/// `max_latency_increase_plus1` of the highest sub-layer (the last listed),
/// what a decoder of the whole stream needs.
fn sub_layer_ordering(
    r: &mut BitReader<'_>,
    max_sub_layers: u32,
) -> Result<(bool, [u32; 3]), ParseError> {
    let all_listed = r.flag()?;
    let listed = if all_listed { max_sub_layers } else { 1 };
    let mut values = [0; 3];
    for _ in 0..listed {
        let dpb = r.ue_max(15, "max_dec_pic_buffering_minus1")? + 1;
        let reorder = r.ue_max(dpb - 1, "max_num_reorder_pics")?;
        values = [dpb, reorder, r.ue()?];
    }
    Ok((all_listed, values))
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
    use crate::bitstream::bits::Writer;

    #[test]
    fn profile_from_compatibility_flags_when_idc_is_zero() {
        // profile_space 0, tier 0, idc 0; compatibility flag 2 (Main 10) set;
        // 48 zero bits; level 93; one sub-layer.
        let mut bytes = vec![0x00, 0x20, 0, 0, 0];
        bytes.extend([0; 6]);
        bytes.push(93);
        let mut r = BitReader::new(&bytes);
        let general = profile_tier_level(&mut r, 1).unwrap();
        assert_eq!((general.profile_idc, general.level_idc), (2, 93));
    }

    /// Inter RPS prediction (7.4.8) worked by hand from the standard's
    /// equations: x265 codes every set in full, so no committed stream has it.
    #[test]
    fn reference_picture_sets_predicted_from_another() {
        let mut w = Writer::default();
        // Set 0: S0 -1 (used), -3 (kept only); S1 +2 (used).
        w.ue(2).ue(1).ue(0).u(1, 1).ue(1).u(1, 0).ue(1).u(1, 1);
        // Set 1 from set 0 with deltaRps -1 (sign 1, abs_delta_rps_minus1 0).
        // Flags for set 0's -1, -3, +2 and for set 0's own picture:
        // used; dropped (used 0, use_delta 0); used; kept (used 0, use_delta 1).
        let flags = |w: &mut Writer| {
            w.u(1, 1).u(1, 0).u(1, 0).u(1, 1).u(1, 0).u(1, 1);
        };
        w.u(1, 1).u(1, 1).ue(0);
        flags(&mut w);
        // A slice's own set (index 2 of 2) from set 0: delta_idx_minus1 1.
        w.u(1, 1).ue(1).u(1, 1).ue(0);
        flags(&mut w);
        let bytes = w.rbsp();
        let mut r = BitReader::new(&bytes);
        let set0 = ShortTermRps::parse(&mut r, &[], false).unwrap();
        assert_eq!(set0.negative, [(-1, true), (-3, false)]);
        assert_eq!(set0.positive, [(2, true)]);
        let set1 = ShortTermRps::parse(&mut r, std::slice::from_ref(&set0), false).unwrap();
        // S0: set 0's own picture at -1 (kept, not used), -1 - 1 = -2 (used);
        // -3 - 1 dropped. S1: +2 - 1 = +1 (used).
        let inter = InterRps {
            delta_idx_minus1: 0,
            delta_rps_sign: true,
            abs_delta_rps_minus1: 0,
            used_by_curr_pic_flags: 0b0101,
            use_delta_flags: 0b1101,
            reference_delta_pocs: 3,
        };
        let expected = ShortTermRps {
            negative: vec![(-1, false), (-2, true)],
            positive: vec![(1, true)],
            inter: Some(inter),
        };
        assert_eq!(set1, expected);
        let coded = ShortTermRps::parse(&mut r, &[set0, set1.clone()], true).unwrap();
        let inter = InterRps { delta_idx_minus1: 1, ..inter };
        assert_eq!(coded, ShortTermRps { inter: Some(inter), ..expected });
    }

    /// Writes one coded list (`scaling_list_pred_mode_flag` 1): the DC
    /// entry for 16x16 and 32x32 (`dc` Some), then the deltas between
    /// `entries`, starting from the DC or 8, as an encoder writes them:
    /// modulo 256, in -128..=127.
    fn write_list(w: &mut Writer, dc: Option<i32>, entries: &[i32]) {
        w.u(1, 1);
        let mut last = 8;
        if let Some(dc) = dc {
            w.se(dc - 8);
            last = dc;
        }
        for &e in entries {
            w.se((e - last + 128).rem_euclid(256) - 128);
            last = e;
        }
    }

    /// Writes a predicted list (`scaling_list_pred_mode_flag` 0).
    fn write_predicted(w: &mut Writer, delta: u32) {
        w.u(1, 0).ue(delta);
    }

    /// `scaling_list_data()` worked by hand from 7.3.4 and 7.4.5: lists
    /// coded, copied from a reference list (with its DC) and the defaults
    /// of Tables 7-5 and 7-6 (DC 16); the 32x32 ones are `matrixId` 0 and 3,
    /// the delta of 3 counting in steps of 3.
    #[test]
    fn scaling_list_data_prediction_defaults_and_dc() {
        let ramp16: Vec<i32> = (0..16).map(|i| 8 + i).collect();
        let ramp64: Vec<i32> = (0..64).map(|i| 20 + i).collect();
        let mut w = Writer::default();
        // sizeId 0: a ramp that wraps (8 - 10 = 254 first), a copy of it,
        // the default, a ramp, the default, a copy of matrixId 3.
        w.u(1, 1).se(-10).se(10);
        for _ in 2..16 {
            w.se(0);
        }
        write_predicted(&mut w, 1);
        write_predicted(&mut w, 0);
        write_list(&mut w, None, &ramp16);
        write_predicted(&mut w, 0);
        write_predicted(&mut w, 2);
        // sizeId 1: default (intra), copies of it, default (inter), a
        // ramp, a copy of matrixId 0.
        write_predicted(&mut w, 0);
        write_predicted(&mut w, 1);
        write_predicted(&mut w, 1);
        write_predicted(&mut w, 0);
        write_list(&mut w, None, &ramp64);
        write_predicted(&mut w, 5);
        // sizeId 2: DC 7 with a ramp, its copy, the default (intra, DC
        // 16), DC 255 with flat 40, a copy of matrixId 1, the default (inter).
        write_list(&mut w, Some(7), &ramp64);
        write_predicted(&mut w, 1);
        write_predicted(&mut w, 0);
        write_list(&mut w, Some(255), &[40; 64]);
        write_predicted(&mut w, 3);
        write_predicted(&mut w, 0);
        // sizeId 3: matrixId 0 DC 9 with flat 30; matrixId 3 a copy of it.
        write_list(&mut w, Some(9), &[30; 64]);
        write_predicted(&mut w, 1);
        let rbsp = w.rbsp();
        let lists = ScalingLists::read(&mut BitReader::new(&rbsp)).unwrap();

        let wrapped: [u8; 16] = std::array::from_fn(|i| if i == 0 { 254 } else { 8 });
        let ramp16: [u8; 16] = std::array::from_fn(|i| 8 + i as u8);
        let ramp64: [u8; 64] = std::array::from_fn(|i| 20 + i as u8);
        assert_eq!(lists.list_4x4, [wrapped, wrapped, [16; 16], ramp16, [16; 16], ramp16]);
        // Table 7-6, intra (matrixId 0 to 2) and inter (3 to 5): first and
        // last entries.
        let intra = lists.list_8x8[0];
        let inter = lists.list_8x8[3];
        assert_eq!(intra[8..16], [16, 16, 17, 16, 17, 16, 17, 18]);
        assert_eq!(intra[60..], [65, 88, 88, 115]);
        assert_eq!(inter[8..16], [16, 16, 17, 17, 17, 17, 17, 18]);
        assert_eq!(inter[60..], [54, 71, 71, 91]);
        assert_eq!(lists.list_8x8, [intra, intra, intra, inter, ramp64, intra]);
        assert_eq!(lists.list_16x16, [ramp64, ramp64, intra, [40; 64], ramp64, inter]);
        assert_eq!(lists.dc_16x16, [7, 7, 16, 255, 7, 16]);
        assert_eq!(lists.list_32x32, [[30; 64], [30; 64]]);
        assert_eq!(lists.dc_32x32, [9, 9]);
    }

    /// A prediction from a list that does not exist (`matrixId` minus the
    /// delta below 0, in steps of 3 for 32x32) is an error.
    #[test]
    fn scaling_list_reference_out_of_range_is_an_error() {
        let mut w = Writer::default();
        write_predicted(&mut w, 2); // sizeId 0, matrixId 0: only 0 allowed
        let rbsp = w.rbsp();
        let err = ScalingLists::read(&mut BitReader::new(&rbsp)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "scaling_list_pred_matrix_id_delta is 2, more than the 0 allowed"
        );
        let mut w = Writer::default();
        for _ in 0..18 {
            write_predicted(&mut w, 0);
        }
        write_predicted(&mut w, 0); // 32x32 matrixId 0
        write_predicted(&mut w, 2); // matrixId 3: only 0 or 1 (3 - 1 x 3 = 0)
        let rbsp = w.rbsp();
        let err = ScalingLists::read(&mut BitReader::new(&rbsp)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "scaling_list_pred_matrix_id_delta is 2, more than the 1 allowed"
        );
    }

    #[test]
    fn truncated_sps_is_an_error() {
        let err = parse_sps(&[0x42, 0x01, 0x01, 0x01]).unwrap_err();
        assert_eq!(err.to_string(), "the parameter set ends early");
    }
}
