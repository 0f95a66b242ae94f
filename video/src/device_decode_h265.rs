//! H.265 Main and Main 10 for the device decoder: the stream parsed and
//! checked for what the session takes, the Vulkan Video `StdVideoH265*`
//! structures filled from the parsed parameter sets, and each picture
//! planned by the DPB (`bitstream::h265_dpb`) for [`super::device_decode`]'s
//! decode loop.

use std::sync::Arc;

use vqscope_gpu::vk::native::{
    StdVideoDecodeH265PictureInfo, StdVideoDecodeH265PictureInfoFlags,
    StdVideoDecodeH265ReferenceInfo, StdVideoDecodeH265ReferenceInfoFlags,
    StdVideoH265DecPicBufMgr, StdVideoH265LongTermRefPicsSps, StdVideoH265PictureParameterSet,
    StdVideoH265PpsFlags, StdVideoH265ProfileTierLevel, StdVideoH265ProfileTierLevelFlags,
    StdVideoH265ScalingLists, StdVideoH265SequenceParameterSet, StdVideoH265ShortTermRefPicSet,
    StdVideoH265ShortTermRefPicSetFlags, StdVideoH265SpsFlags, StdVideoH265VideoParameterSet,
    StdVideoH265VpsFlags,
};
use vqscope_gpu::{
    DecodePicture, DecodeSession, GpuContext, H265ParameterSets, H265Picture, H265Pps,
    H265Reference, H265Sps, H265Vps, SessionCodec, h265_std_level,
};

use crate::bitstream::h265::{
    ProfileTierLevel, ScalingLists, ShortTermRps, Sps, VideoParameterSet,
};
use crate::bitstream::h265_dpb::{Dpb, PicturePlan, Reference};
use crate::bitstream::h265_slice::{Pps, SliceHeader};
use crate::bitstream::h265_stream::H265Stream;
use crate::bitstream::{ParseError, SequenceInfo};
use crate::device_decode::{CodecPlan, DeviceDecodeError};

/// An H.265 stream parsed and checked for the device session.
pub(crate) struct H265Plan<'s> {
    pub(crate) parsed: H265Stream<'s>,
    pub(crate) info: SequenceInfo,
    /// The DPB's size (`sps_max_dec_pic_buffering` of the first SPS).
    dpb_slots: u32,
}

impl<'s> H265Plan<'s> {
    /// Parses `stream` and refuses what the session cannot take: anything
    /// but 4:2:0 8- or 10-bit with one depth, range extension tools, SPS
    /// that change profile, size or depth, and an SPS without its VPS.
    pub(crate) fn new(stream: &'s [u8]) -> Result<Self, ParseError> {
        let parsed = H265Stream::parse(stream)?;
        let first = parsed.sps.values().next().ok_or_else(|| ParseError::new("no SPS"))?;
        if parsed.pictures.is_empty() {
            return Err(ParseError::new("no pictures"));
        }
        let refuse = |what: &str| Err(ParseError::new(format!("{what} is not supported yet")));
        for s in parsed.sps.values() {
            if s.chroma_format_idc != 1 || s.bit_depth_luma != s.bit_depth_chroma {
                return refuse("device decode of H.265 other than 4:2:0 with one bit depth");
            }
            if !matches!(s.bit_depth_luma, 8 | 10) {
                return refuse(&format!("device decode of {}-bit H.265", s.bit_depth_luma));
            }
            if s.range_extension {
                return refuse("device decode of H.265 range extension tools");
            }
            if (s.profile_idc, s.width, s.height, s.bit_depth_luma)
                != (first.profile_idc, first.width, first.height, first.bit_depth_luma)
            {
                return refuse("device decode of a stream whose SPS change profile, size or depth");
            }
            if !parsed.vps.contains_key(&s.vps_id) {
                return Err(ParseError::new(format!(
                    "SPS {} refers to VPS {}, not seen",
                    s.id, s.vps_id
                )));
            }
        }
        for p in parsed.pps.values() {
            if p.range_extension {
                return refuse("device decode of H.265 range extension tools");
            }
        }
        let info = first.info()?;
        let dpb_slots = first.max_dec_pic_buffering;
        Ok(H265Plan { parsed, info, dpb_slots })
    }

    /// For an IRAP picture `i`, the leading pictures a decode starting
    /// there skips (decoding positions): none for an IDR picture, the RASL
    /// pictures of a CRA or BLA picture, which predict from pictures before
    /// it. Leading pictures follow their IRAP picture before any trailing
    /// one (7.4.3.2's constraints), so they are the RASL and RADL pictures
    /// right after it. `None` for a picture no decode starts at.
    pub(crate) fn skipped_leading(&self, i: usize) -> Option<Vec<u64>> {
        let header = self.parsed.pictures[i].header();
        if !header.irap() {
            return None;
        }
        if header.idr() {
            return Some(Vec::new());
        }
        let leading = self.parsed.pictures[i + 1..]
            .iter()
            .map(|p| p.header())
            .take_while(|h| h.rasl() || h.radl());
        let skipped = (i as u64 + 1..).zip(leading).filter(|(_, h)| h.rasl());
        Some(skipped.map(|(j, _)| j).collect())
    }

    /// Runs every picture through the DPB without the device: the pictures
    /// output, by decoding position, in output order (skipped and dropped
    /// ones are not there).
    pub(crate) fn output_order(&self) -> Result<Vec<u64>, ParseError> {
        let mut dpb = self.dpb();
        let mut shown = Vec::with_capacity(self.parsed.pictures.len());
        for picture in &self.parsed.pictures {
            let header = picture.header();
            let sps = self.parsed.sps_of(header);
            if let Some(plan) = dpb.picture(header, sps, picture.after_end_of_sequence)? {
                shown.extend(plan.output);
            }
        }
        shown.extend(dpb.flush());
        Ok(shown)
    }
}

impl CodecPlan for H265Plan<'_> {
    type Dpb = Dpb;

    fn session(&self, ctx: &Arc<GpuContext>) -> Result<DecodeSession, DeviceDecodeError> {
        let stream_error = DeviceDecodeError::H265Stream;
        let parameter_sets = H265ParameterSets {
            vps: self
                .parsed
                .vps
                .values()
                .map(std_vps)
                .collect::<Result<_, _>>()
                .map_err(stream_error)?,
            sps: self
                .parsed
                .sps
                .values()
                .map(std_sps)
                .collect::<Result<_, _>>()
                .map_err(stream_error)?,
            pps: self.parsed.pps.values().map(|p| std_pps(p, &self.parsed.sps)).collect(),
        };
        let codec = SessionCodec::H265 {
            profile_idc: self.info.profile_idc,
            bit_depth: self.info.bit_depth_luma,
            parameter_sets: &parameter_sets,
        };
        Ok(DecodeSession::new(
            ctx,
            codec,
            self.info.coded_width,
            self.info.coded_height,
            self.info.dpb_slots(),
        )?)
    }

    fn dpb(&self) -> Dpb {
        Dpb::new(self.dpb_slots)
    }

    fn len(&self) -> usize {
        self.parsed.pictures.len()
    }

    /// IRAP pictures: a decode from an IDR picture goes on as the decode of
    /// the whole stream does; one from a CRA or BLA picture skips its RASL
    /// pictures ([`H265Plan::skipped_leading`]; `check_h265` says which
    /// IRAP pictures are seek points).
    fn starts_afresh(&self, i: usize) -> bool {
        self.parsed.pictures[i].header().irap()
    }

    fn plan<R>(
        &self,
        dpb: &mut Dpb,
        i: usize,
        decode: impl FnOnce(
            Option<(u64, &DecodePicture<'_>, &SequenceInfo)>,
            &[u64],
        ) -> Result<R, DeviceDecodeError>,
    ) -> Result<R, DeviceDecodeError> {
        let picture = &self.parsed.pictures[i];
        let header = picture.header();
        let pps = &self.parsed.pps[&header.pps_id];
        let sps = &self.parsed.sps[&pps.sps_id];
        let plan = dpb
            .picture(header, sps, picture.after_end_of_sequence)
            .map_err(DeviceDecodeError::H265Stream)?;
        let Some(plan) = plan else {
            return decode(None, &[]);
        };
        let std = std_picture(header, pps, sps, &plan);
        let setup = H265Reference {
            slot: plan.slot,
            std: std_reference(&Reference { slot: plan.slot, poc: plan.poc, long_term: false }),
        };
        let references: Vec<H265Reference> = plan
            .references
            .iter()
            .map(|r| H265Reference { slot: r.slot, std: std_reference(r) })
            .collect();
        let units: Vec<&[u8]> = picture.slices.iter().map(|(_, unit)| *unit).collect();
        let picture = DecodePicture::H265(H265Picture {
            std,
            slices: &units,
            setup,
            references: &references,
        });
        decode(Some((plan.index, &picture, &self.info)), &plan.output)
    }

    fn flush(&self, dpb: &mut Dpb) -> Vec<u64> {
        dpb.flush()
    }
}

fn flag(b: bool) -> u32 {
    u32::from(b)
}

/// The decoded picture buffer sizes of every sub-layer: the highest
/// sub-layer's values, which the parsers keep, for all of them (a decoder
/// of the whole stream uses those).
fn dec_pic_buf_mgr(dpb: u32, reorder: u32, latency_plus1: u32) -> StdVideoH265DecPicBufMgr {
    StdVideoH265DecPicBufMgr {
        max_latency_increase_plus1: [latency_plus1; 7],
        max_dec_pic_buffering_minus1: [(dpb - 1) as u8; 7],
        max_num_reorder_pics: [reorder as u8; 7],
    }
}

fn std_profile_tier_level(
    g: &ProfileTierLevel,
) -> Result<StdVideoH265ProfileTierLevel, ParseError> {
    let level = h265_std_level(g.level_idc)
        .ok_or_else(|| ParseError::new(format!("general_level_idc {} is unknown", g.level_idc)))?;
    Ok(StdVideoH265ProfileTierLevel {
        flags: StdVideoH265ProfileTierLevelFlags {
            _bitfield_align_1: [],
            _bitfield_1: StdVideoH265ProfileTierLevelFlags::new_bitfield_1(
                flag(g.tier),
                flag(g.progressive_source),
                flag(g.interlaced_source),
                flag(g.non_packed_constraint),
                flag(g.frame_only_constraint),
            ),
            __bindgen_padding_0: [0; 3],
        },
        general_profile_idc: g.profile_idc,
        general_level_idc: level,
    })
}

fn std_vps(v: &VideoParameterSet) -> Result<H265Vps, ParseError> {
    Ok(H265Vps {
        std: StdVideoH265VideoParameterSet {
            flags: StdVideoH265VpsFlags {
                _bitfield_align_1: [],
                // No timing information is passed: decoding does not need it.
                _bitfield_1: StdVideoH265VpsFlags::new_bitfield_1(
                    flag(v.temporal_id_nesting),
                    flag(v.sub_layer_ordering_info_present),
                    0,
                    0,
                ),
                __bindgen_padding_0: [0; 3],
            },
            vps_video_parameter_set_id: v.id as u8,
            vps_max_sub_layers_minus1: (v.max_sub_layers - 1) as u8,
            reserved1: 0,
            reserved2: 0,
            vps_num_units_in_tick: 0,
            vps_time_scale: 0,
            vps_num_ticks_poc_diff_one_minus1: 0,
            reserved3: 0,
            pDecPicBufMgr: std::ptr::null(),
            pHrdParameters: std::ptr::null(),
            pProfileTierLevel: std::ptr::null(),
        },
        dec_pic_buf_mgr: dec_pic_buf_mgr(
            v.max_dpb_frames,
            v.max_num_reorder_pics,
            v.max_latency_increase_plus1,
        ),
        profile_tier_level: std_profile_tier_level(&v.general)?,
    })
}

/// A short-term RPS as the SPS's list holds it: the syntax of an
/// inter-predicted set and, for every set, the derived lists coded as
/// explicit ones would be.
fn std_short_term_rps(rps: &ShortTermRps) -> StdVideoH265ShortTermRefPicSet {
    let minus1 = |list: &[(i32, bool)]| {
        let mut deltas = [0u16; 16];
        let mut previous = 0;
        for (slot, &(delta, _)) in deltas.iter_mut().zip(list) {
            *slot = (delta.abs() - previous - 1) as u16;
            previous = delta.abs();
        }
        deltas
    };
    let used = |list: &[(i32, bool)]| {
        list.iter().enumerate().filter(|(_, (_, u))| *u).fold(0u16, |m, (i, _)| m | 1 << i)
    };
    let inter = rps.inter.unwrap_or_default();
    StdVideoH265ShortTermRefPicSet {
        flags: StdVideoH265ShortTermRefPicSetFlags {
            _bitfield_align_1: [],
            _bitfield_1: StdVideoH265ShortTermRefPicSetFlags::new_bitfield_1(
                flag(rps.inter.is_some()),
                flag(inter.delta_rps_sign),
            ),
            __bindgen_padding_0: [0; 3],
        },
        delta_idx_minus1: inter.delta_idx_minus1,
        use_delta_flag: inter.use_delta_flags as u16,
        abs_delta_rps_minus1: inter.abs_delta_rps_minus1 as u16,
        used_by_curr_pic_flag: inter.used_by_curr_pic_flags as u16,
        used_by_curr_pic_s0_flag: used(&rps.negative),
        used_by_curr_pic_s1_flag: used(&rps.positive),
        reserved1: 0,
        reserved2: 0,
        reserved3: 0,
        num_negative_pics: rps.negative.len() as u8,
        num_positive_pics: rps.positive.len() as u8,
        delta_poc_s0_minus1: minus1(&rps.negative),
        delta_poc_s1_minus1: minus1(&rps.positive),
    }
}

fn std_sps(s: &Sps) -> Result<H265Sps, ParseError> {
    let [left, right, top, bottom] = s.conformance_window.unwrap_or_default();
    let pcm = s.pcm;
    let mut long_term_ref_pics = StdVideoH265LongTermRefPicsSps {
        used_by_curr_pic_lt_sps_flag: 0,
        lt_ref_pic_poc_lsb_sps: [0; 32],
    };
    for (i, &(lsb, used)) in s.long_term_ref_pics.iter().enumerate() {
        long_term_ref_pics.lt_ref_pic_poc_lsb_sps[i] = lsb;
        long_term_ref_pics.used_by_curr_pic_lt_sps_flag |= u32::from(used) << i;
    }
    Ok(H265Sps {
        std: StdVideoH265SequenceParameterSet {
            flags: StdVideoH265SpsFlags {
                _bitfield_align_1: [],
                _bitfield_1: StdVideoH265SpsFlags::new_bitfield_1(
                    flag(s.temporal_id_nesting),
                    flag(s.separate_colour_plane),
                    flag(s.conformance_window.is_some()),
                    flag(s.sub_layer_ordering_info_present),
                    flag(s.scaling_list_enabled),
                    // Set whenever the lists are enabled, the default ones passed
                    // as if coded where the SPS has none (as ffmpeg does): the
                    // driver then only reads lists, never derives defaults.
                    flag(s.scaling_list_enabled),
                    flag(s.amp_enabled),
                    flag(s.sample_adaptive_offset_enabled),
                    flag(pcm.is_some()),
                    flag(pcm.is_some_and(|p| p.loop_filter_disabled)),
                    flag(s.long_term_ref_pics_present),
                    flag(s.temporal_mvp_enabled),
                    flag(s.strong_intra_smoothing_enabled),
                    // The VUI is not passed: decoding does not need it.
                    0,
                    // Extensions: range extension tools and SCC are refused.
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                ),
            },
            chroma_format_idc: s.chroma_format_idc,
            pic_width_in_luma_samples: s.width,
            pic_height_in_luma_samples: s.height,
            sps_video_parameter_set_id: s.vps_id as u8,
            sps_max_sub_layers_minus1: (s.max_sub_layers - 1) as u8,
            sps_seq_parameter_set_id: s.id as u8,
            bit_depth_luma_minus8: (s.bit_depth_luma - 8) as u8,
            bit_depth_chroma_minus8: (s.bit_depth_chroma - 8) as u8,
            log2_max_pic_order_cnt_lsb_minus4: (s.log2_max_pic_order_cnt_lsb - 4) as u8,
            log2_min_luma_coding_block_size_minus3: (s.log2_min_luma_coding_block_size - 3) as u8,
            log2_diff_max_min_luma_coding_block_size: s.log2_diff_max_min_luma_coding_block_size
                as u8,
            log2_min_luma_transform_block_size_minus2: (s.log2_min_luma_transform_block_size - 2)
                as u8,
            log2_diff_max_min_luma_transform_block_size: s
                .log2_diff_max_min_luma_transform_block_size
                as u8,
            max_transform_hierarchy_depth_inter: s.max_transform_hierarchy_depth_inter as u8,
            max_transform_hierarchy_depth_intra: s.max_transform_hierarchy_depth_intra as u8,
            num_short_term_ref_pic_sets: s.short_term_rps.len() as u8,
            num_long_term_ref_pics_sps: s.long_term_ref_pics.len() as u8,
            pcm_sample_bit_depth_luma_minus1: pcm.map_or(0, |p| p.bit_depth_luma - 1) as u8,
            pcm_sample_bit_depth_chroma_minus1: pcm.map_or(0, |p| p.bit_depth_chroma - 1) as u8,
            log2_min_pcm_luma_coding_block_size_minus3: pcm
                .map_or(0, |p| p.log2_min_coding_block_size - 3)
                as u8,
            log2_diff_max_min_pcm_luma_coding_block_size: pcm
                .map_or(0, |p| p.log2_diff_max_min_coding_block_size)
                as u8,
            reserved1: 0,
            reserved2: 0,
            palette_max_size: 0,
            delta_palette_max_predictor_size: 0,
            motion_vector_resolution_control_idc: 0,
            sps_num_palette_predictor_initializers_minus1: 0,
            conf_win_left_offset: left,
            conf_win_right_offset: right,
            conf_win_top_offset: top,
            conf_win_bottom_offset: bottom,
            pProfileTierLevel: std::ptr::null(),
            pDecPicBufMgr: std::ptr::null(),
            pScalingLists: std::ptr::null(),
            pShortTermRefPicSet: std::ptr::null(),
            pLongTermRefPicsSps: std::ptr::null(),
            pSequenceParameterSetVui: std::ptr::null(),
            pPredictorPaletteEntries: std::ptr::null(),
        },
        dec_pic_buf_mgr: dec_pic_buf_mgr(
            s.max_dec_pic_buffering,
            s.max_num_reorder_pics,
            s.max_latency_increase_plus1,
        ),
        profile_tier_level: std_profile_tier_level(&s.general)?,
        short_term_rps: s.short_term_rps.iter().map(std_short_term_rps).collect(),
        long_term_ref_pics,
        scaling_lists: s.scaling_list_enabled.then(|| {
            std_scaling_lists(s.scaling_lists.as_ref().unwrap_or(&ScalingLists::default()))
        }),
    })
}

/// The derived lists as parsed: coded (up-right diagonal) order, the two
/// 32x32 ones those of `matrixId` 0 and 3.
fn std_scaling_lists(l: &ScalingLists) -> StdVideoH265ScalingLists {
    StdVideoH265ScalingLists {
        ScalingList4x4: l.list_4x4,
        ScalingList8x8: l.list_8x8,
        ScalingList16x16: l.list_16x16,
        ScalingList32x32: l.list_32x32,
        ScalingListDCCoef16x16: l.dc_16x16,
        ScalingListDCCoef32x32: l.dc_32x32,
    }
}

fn std_pps(p: &Pps, sps: &std::collections::BTreeMap<u32, Sps>) -> H265Pps {
    let tiles = p.tiles.as_ref();
    let (mut column_width_minus1, mut row_height_minus1) = ([0u16; 19], [0u16; 21]);
    if let Some((widths, heights)) = tiles.and_then(|t| t.explicit.as_ref()) {
        for (dst, &w) in column_width_minus1.iter_mut().zip(widths) {
            *dst = w as u16;
        }
        for (dst, &h) in row_height_minus1.iter_mut().zip(heights) {
            *dst = h as u16;
        }
    }
    let std = StdVideoH265PictureParameterSet {
        flags: StdVideoH265PpsFlags {
            _bitfield_align_1: [],
            _bitfield_1: StdVideoH265PpsFlags::new_bitfield_1(
                flag(p.dependent_slice_segments_enabled),
                flag(p.output_flag_present),
                flag(p.sign_data_hiding_enabled),
                flag(p.cabac_init_present),
                flag(p.constrained_intra_pred),
                flag(p.transform_skip_enabled),
                flag(p.cu_qp_delta_depth.is_some()),
                flag(p.slice_chroma_qp_offsets_present),
                flag(p.weighted_pred),
                flag(p.weighted_bipred),
                flag(p.transquant_bypass_enabled),
                flag(tiles.is_some()),
                flag(p.entropy_coding_sync_enabled),
                flag(tiles.is_some_and(|t| t.explicit.is_none())),
                flag(tiles.is_some_and(|t| t.loop_filter_across_tiles_enabled)),
                flag(p.loop_filter_across_slices_enabled),
                flag(p.deblocking_filter_control_present),
                flag(p.deblocking_filter_override_enabled),
                flag(p.deblocking_filter_disabled),
                flag(p.scaling_lists.is_some()),
                flag(p.lists_modification_present),
                flag(p.slice_segment_header_extension_present),
                // Extensions: range extension tools and SCC are refused.
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
            ),
        },
        pps_pic_parameter_set_id: p.id as u8,
        pps_seq_parameter_set_id: p.sps_id as u8,
        sps_video_parameter_set_id: sps.get(&p.sps_id).map_or(0, |s| s.vps_id) as u8,
        num_extra_slice_header_bits: p.num_extra_slice_header_bits as u8,
        num_ref_idx_l0_default_active_minus1: (p.num_ref_idx_l0_default_active - 1) as u8,
        num_ref_idx_l1_default_active_minus1: (p.num_ref_idx_l1_default_active - 1) as u8,
        init_qp_minus26: p.init_qp_minus26 as i8,
        diff_cu_qp_delta_depth: p.cu_qp_delta_depth.unwrap_or(0) as u8,
        pps_cb_qp_offset: p.cb_qp_offset as i8,
        pps_cr_qp_offset: p.cr_qp_offset as i8,
        pps_beta_offset_div2: p.beta_offset_div2 as i8,
        pps_tc_offset_div2: p.tc_offset_div2 as i8,
        log2_parallel_merge_level_minus2: (p.log2_parallel_merge_level - 2) as u8,
        log2_max_transform_skip_block_size_minus2: 0,
        diff_cu_chroma_qp_offset_depth: 0,
        chroma_qp_offset_list_len_minus1: 0,
        cb_qp_offset_list: [0; 6],
        cr_qp_offset_list: [0; 6],
        log2_sao_offset_scale_luma: 0,
        log2_sao_offset_scale_chroma: 0,
        pps_act_y_qp_offset_plus5: 0,
        pps_act_cb_qp_offset_plus5: 0,
        pps_act_cr_qp_offset_plus3: 0,
        pps_num_palette_predictor_initializers: 0,
        luma_bit_depth_entry_minus8: 0,
        chroma_bit_depth_entry_minus8: 0,
        num_tile_columns_minus1: tiles.map_or(0, |t| t.columns - 1) as u8,
        num_tile_rows_minus1: tiles.map_or(0, |t| t.rows - 1) as u8,
        reserved1: 0,
        reserved2: 0,
        column_width_minus1,
        row_height_minus1,
        reserved3: 0,
        pScalingLists: std::ptr::null(),
        pPredictorPaletteEntries: std::ptr::null(),
    };
    H265Pps { std, scaling_lists: p.scaling_lists.as_ref().map(std_scaling_lists) }
}

/// The picture's `StdVideoDecodeH265PictureInfo`: its flags and ids, POC,
/// the slice's own RPS size, and the slots of the three lists it predicts
/// from (0xff where a list ends).
fn std_picture(
    h: &SliceHeader,
    pps: &Pps,
    sps: &Sps,
    plan: &PicturePlan,
) -> StdVideoDecodeH265PictureInfo {
    let slots = |list: &[Reference]| {
        let mut out = [0xffu8; 8];
        for (dst, r) in out.iter_mut().zip(list) {
            *dst = r.slot as u8;
        }
        out
    };
    // NumDeltaPocs of the set a slice's own RPS is predicted from.
    let reference_delta_pocs = match (&h.short_term_rps_idx, &h.short_term_rps.inter) {
        (None, Some(inter)) => inter.reference_delta_pocs,
        _ => 0,
    };
    StdVideoDecodeH265PictureInfo {
        flags: StdVideoDecodeH265PictureInfoFlags {
            _bitfield_align_1: [],
            // Every decoded picture is stored as a reference (8.3.2); later
            // RPS say which stay.
            _bitfield_1: StdVideoDecodeH265PictureInfoFlags::new_bitfield_1(
                flag(h.irap()),
                flag(h.idr()),
                1,
                flag(h.short_term_rps_idx.is_some()),
            ),
            __bindgen_padding_0: [0; 3],
        },
        sps_video_parameter_set_id: sps.vps_id as u8,
        pps_seq_parameter_set_id: pps.sps_id as u8,
        pps_pic_parameter_set_id: pps.id as u8,
        NumDeltaPocsOfRefRpsIdx: reference_delta_pocs as u8,
        PicOrderCntVal: plan.poc,
        NumBitsForSTRefPicSetInSlice: h.short_term_rps_bits as u16,
        reserved: 0,
        RefPicSetStCurrBefore: slots(&plan.st_curr_before),
        RefPicSetStCurrAfter: slots(&plan.st_curr_after),
        RefPicSetLtCurr: slots(&plan.lt_curr),
    }
}

fn std_reference(r: &Reference) -> StdVideoDecodeH265ReferenceInfo {
    StdVideoDecodeH265ReferenceInfo {
        flags: StdVideoDecodeH265ReferenceInfoFlags {
            _bitfield_align_1: [],
            _bitfield_1: StdVideoDecodeH265ReferenceInfoFlags::new_bitfield_1(flag(r.long_term), 0),
            __bindgen_padding_0: [0; 3],
        },
        PicOrderCntVal: r.poc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived lists turned back into `st_ref_pic_set()` syntax: the
    /// CRA picture of the open-GOP test stream codes S0 -4, -6, -8, -10, none
    /// used, as `delta_poc_s0_minus1` 3, 1, 1, 1 (`trace_headers`); a B
    /// picture's S0 -2, -4, -8 and S1 +2, all used, as 1, 1, 3 and 1.
    #[test]
    fn short_term_sets_as_vulkan_takes_them() {
        let cra = ShortTermRps {
            negative: vec![(-4, false), (-6, false), (-8, false), (-10, false)],
            positive: Vec::new(),
            inter: None,
        };
        let std = std_short_term_rps(&cra);
        assert_eq!((std.num_negative_pics, std.num_positive_pics), (4, 0));
        assert_eq!(std.delta_poc_s0_minus1[..4], [3, 1, 1, 1]);
        assert_eq!((std.used_by_curr_pic_s0_flag, std.used_by_curr_pic_s1_flag), (0, 0));
        let b = ShortTermRps {
            negative: vec![(-2, true), (-4, true), (-8, true)],
            positive: vec![(2, true)],
            inter: None,
        };
        let std = std_short_term_rps(&b);
        assert_eq!(std.delta_poc_s0_minus1[..3], [1, 1, 3]);
        assert_eq!(std.delta_poc_s1_minus1[0], 1);
        assert_eq!((std.used_by_curr_pic_s0_flag, std.used_by_curr_pic_s1_flag), (0b111, 0b1));
        assert_eq!(std.flags._bitfield_1.get(0, 1), 0, "not inter-predicted");
    }
}
