//! The H.265 picture parameter set (7.3.2.3) and slice segment header
//! (7.3.6), read as far as the decoding process around pictures and a
//! device decoder need them: the picture's type and POC lsb, its reference
//! picture set (short-term sets with inter-set prediction, 7.3.7, and
//! long-term pictures), and where the slice data starts. Reference list
//! changes, prediction weights and entry points are read only to get past
//! them; the device reads them itself from the slice segment.

use super::ParseError;
use super::bits::BitReader;
use super::h265::{ScalingLists, ShortTermRps, Sps};

/// The fields of a PPS that slice headers and decoding need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pps {
    pub id: u32,
    pub sps_id: u32,
    pub dependent_slice_segments_enabled: bool,
    pub output_flag_present: bool,
    pub num_extra_slice_header_bits: u32,
    pub sign_data_hiding_enabled: bool,
    pub cabac_init_present: bool,
    pub num_ref_idx_l0_default_active: u32,
    pub num_ref_idx_l1_default_active: u32,
    pub init_qp_minus26: i32,
    pub constrained_intra_pred: bool,
    pub transform_skip_enabled: bool,
    /// `diff_cu_qp_delta_depth` when `cu_qp_delta_enabled_flag` is set.
    pub cu_qp_delta_depth: Option<u32>,
    pub cb_qp_offset: i32,
    pub cr_qp_offset: i32,
    pub slice_chroma_qp_offsets_present: bool,
    pub weighted_pred: bool,
    pub weighted_bipred: bool,
    pub transquant_bypass_enabled: bool,
    /// `(column_widths_minus1, row_heights_minus1)` for tiles: empty vectors
    /// with `uniform_spacing_flag` set hold only the counts in
    /// `tile_columns`/`tile_rows`.
    pub tiles: Option<Tiles>,
    pub entropy_coding_sync_enabled: bool,
    pub loop_filter_across_slices_enabled: bool,
    pub deblocking_filter_control_present: bool,
    pub deblocking_filter_override_enabled: bool,
    pub deblocking_filter_disabled: bool,
    pub beta_offset_div2: i32,
    pub tc_offset_div2: i32,
    /// The lists of `scaling_list_data()` when the PPS codes them
    /// (`pps_scaling_list_data_present_flag`): they replace the SPS's.
    pub scaling_lists: Option<ScalingLists>,
    pub lists_modification_present: bool,
    pub log2_parallel_merge_level: u32,
    pub slice_segment_header_extension_present: bool,
    /// `pps_range_extension_flag`: RExt tools, which this decoder refuses.
    pub range_extension: bool,
    /// `chroma_qp_offset_list_enabled_flag` of the range extension: it adds
    /// a flag to slice headers.
    pub chroma_qp_offset_list_enabled: bool,
}

/// The tile layout of a PPS with `tiles_enabled_flag`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tiles {
    pub columns: u32,
    pub rows: u32,
    /// `column_width_minus1` and `row_height_minus1`, in CTBs, when the
    /// spacing is not uniform (the last column and row are implied).
    pub explicit: Option<(Vec<u32>, Vec<u32>)>,
    pub loop_filter_across_tiles_enabled: bool,
}

impl Pps {
    /// Parses a PPS from its RBSP (the two NAL header bytes included).
    pub fn parse(rbsp: &[u8]) -> Result<Pps, ParseError> {
        let mut r = BitReader::new(rbsp);
        r.skip(16)?;
        let id = r.ue_max(63, "pps_pic_parameter_set_id")?;
        let sps_id = r.ue_max(15, "pps_seq_parameter_set_id")?;
        let dependent_slice_segments_enabled = r.flag()?;
        let output_flag_present = r.flag()?;
        let num_extra_slice_header_bits = r.bits(3)?;
        let sign_data_hiding_enabled = r.flag()?;
        let cabac_init_present = r.flag()?;
        let num_ref_idx_l0_default_active =
            r.ue_max(14, "num_ref_idx_l0_default_active_minus1")? + 1;
        let num_ref_idx_l1_default_active =
            r.ue_max(14, "num_ref_idx_l1_default_active_minus1")? + 1;
        let init_qp_minus26 = r.se()?;
        let constrained_intra_pred = r.flag()?;
        let transform_skip_enabled = r.flag()?;
        let cu_qp_delta_depth =
            if r.flag()? { Some(r.ue_max(3, "diff_cu_qp_delta_depth")?) } else { None };
        let cb_qp_offset = r.se()?;
        let cr_qp_offset = r.se()?;
        let slice_chroma_qp_offsets_present = r.flag()?;
        let weighted_pred = r.flag()?;
        let weighted_bipred = r.flag()?;
        let transquant_bypass_enabled = r.flag()?;
        let tiles_enabled = r.flag()?;
        let entropy_coding_sync_enabled = r.flag()?;
        let tiles = if tiles_enabled {
            let columns = r.ue_max(19, "num_tile_columns_minus1")? + 1;
            let rows = r.ue_max(21, "num_tile_rows_minus1")? + 1;
            let explicit = if r.flag()? {
                None
            } else {
                let widths = (1..columns).map(|_| r.ue()).collect::<Result<_, _>>()?;
                let heights = (1..rows).map(|_| r.ue()).collect::<Result<_, _>>()?;
                Some((widths, heights))
            };
            Some(Tiles { columns, rows, explicit, loop_filter_across_tiles_enabled: r.flag()? })
        } else {
            None
        };
        let loop_filter_across_slices_enabled = r.flag()?;
        let deblocking_filter_control_present = r.flag()?;
        let (mut deblocking_filter_override_enabled, mut deblocking_filter_disabled) =
            (false, false);
        let (mut beta_offset_div2, mut tc_offset_div2) = (0, 0);
        if deblocking_filter_control_present {
            deblocking_filter_override_enabled = r.flag()?;
            deblocking_filter_disabled = r.flag()?;
            if !deblocking_filter_disabled {
                beta_offset_div2 = r.se()?;
                tc_offset_div2 = r.se()?;
            }
        }
        let scaling_lists = if r.flag()? { Some(ScalingLists::read(&mut r)?) } else { None };
        let lists_modification_present = r.flag()?;
        let log2_parallel_merge_level = 2 + r.ue_max(4, "log2_parallel_merge_level_minus2")?;
        let slice_segment_header_extension_present = r.flag()?;
        let (mut range_extension, mut chroma_qp_offset_list_enabled) = (false, false);
        if r.flag()? {
            // pps_range_extension_flag, pps_multilayer_extension_flag,
            // pps_3d_extension_flag, pps_scc_extension_flag, 4 more bits.
            let flags = r.bits(8)?;
            if flags & 0x70 != 0 {
                return Err(ParseError::new(
                    "PPS multilayer, 3D or screen content extensions are not supported",
                ));
            }
            range_extension = flags & 0x80 != 0;
            if range_extension {
                if transform_skip_enabled {
                    r.ue()?; // log2_max_transform_skip_block_size_minus2
                }
                r.skip(1)?; // cross_component_prediction_enabled_flag
                chroma_qp_offset_list_enabled = r.flag()?;
                if chroma_qp_offset_list_enabled {
                    r.ue()?; // diff_cu_chroma_qp_offset_depth
                    for _ in 0..=r.ue_max(5, "chroma_qp_offset_list_len_minus1")? {
                        r.se()?; // cb_qp_offset_list
                        r.se()?; // cr_qp_offset_list
                    }
                }
                r.ue()?; // log2_sao_offset_scale_luma
                r.ue()?; // log2_sao_offset_scale_chroma
            }
        }
        Ok(Pps {
            id,
            sps_id,
            dependent_slice_segments_enabled,
            output_flag_present,
            num_extra_slice_header_bits,
            sign_data_hiding_enabled,
            cabac_init_present,
            num_ref_idx_l0_default_active,
            num_ref_idx_l1_default_active,
            init_qp_minus26,
            constrained_intra_pred,
            transform_skip_enabled,
            cu_qp_delta_depth,
            cb_qp_offset,
            cr_qp_offset,
            slice_chroma_qp_offsets_present,
            weighted_pred,
            weighted_bipred,
            transquant_bypass_enabled,
            tiles,
            entropy_coding_sync_enabled,
            loop_filter_across_slices_enabled,
            deblocking_filter_control_present,
            deblocking_filter_override_enabled,
            deblocking_filter_disabled,
            beta_offset_div2,
            tc_offset_div2,
            scaling_lists,
            lists_modification_present,
            log2_parallel_merge_level,
            slice_segment_header_extension_present,
            range_extension,
            chroma_qp_offset_list_enabled,
        })
    }
}

/// H.265 `nal_unit_type` values the decoding process tells apart (Table 7-1).
pub mod nal_type {
    pub const RADL_N: u8 = 6;
    pub const RASL_R: u8 = 9;
    pub const BLA_W_LP: u8 = 16;
    pub const IDR_W_RADL: u8 = 19;
    pub const IDR_N_LP: u8 = 20;
    pub const CRA: u8 = 21;
    /// The last slice type (22 and 23 are reserved IRAP types).
    pub const LAST_VCL: u8 = 21;
    pub const END_OF_SEQUENCE: u8 = 36;
}

/// A long-term picture of a slice's reference picture set (7.4.7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LongTermPicture {
    /// `PocLsbLt`: the picture's POC modulo `MaxPicOrderCntLsb`.
    pub poc_lsb: u32,
    /// `UsedByCurrPicLt`.
    pub used_by_curr_pic: bool,
    /// `DeltaPocMsbCycleLt` when `delta_poc_msb_present_flag` is set: the
    /// POC is then known whole, not only its lsb.
    pub delta_poc_msb_cycle: Option<u32>,
}

/// The slice segment header of 7.3.6.1. A dependent slice segment carries
/// only its address: the other fields are those of the slice segment
/// before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SliceHeader {
    pub nal_unit_type: u8,
    pub temporal_id: u8,
    pub first_slice_segment_in_pic: bool,
    pub no_output_of_prior_pics: bool,
    pub pps_id: u32,
    pub dependent_slice_segment: bool,
    pub segment_address: u32,
    /// 0 B, 1 P, 2 I.
    pub slice_type: u32,
    /// `pic_output_flag` (1 when the PPS does not code it).
    pub pic_output: bool,
    /// `slice_pic_order_cnt_lsb` (0 for IDR pictures).
    pub pic_order_cnt_lsb: u32,
    /// `short_term_ref_pic_set_idx` when the SPS's set is used, `None` when
    /// the slice codes its own (or is IDR).
    pub short_term_rps_idx: Option<u32>,
    /// The picture's short-term set, from the SPS or the slice.
    pub short_term_rps: ShortTermRps,
    /// Bits the slice's own `st_ref_pic_set()` took (Vulkan Video's
    /// `NumBitsForSTRefPicSetInSlice`), 0 when it uses the SPS's.
    pub short_term_rps_bits: u32,
    pub long_term: Vec<LongTermPicture>,
    pub temporal_mvp_enabled: bool,
    pub num_ref_idx_l0_active: u32,
    pub num_ref_idx_l1_active: u32,
    pub slice_qp_delta: i32,
    pub num_entry_point_offsets: u32,
    /// Bytes of the RBSP before `slice_segment_data()`, the two NAL header
    /// bytes and the `byte_alignment()` included: where a decoder that is
    /// handed the slice data alone starts (in the RBSP, so emulation
    /// prevention bytes of the NAL unit are not counted).
    pub header_bytes: u32,
}

impl SliceHeader {
    /// `IdrPicFlag`.
    pub fn idr(&self) -> bool {
        matches!(self.nal_unit_type, nal_type::IDR_W_RADL | nal_type::IDR_N_LP)
    }

    /// An IRAP picture (BLA, IDR, CRA): decodable without earlier pictures.
    pub fn irap(&self) -> bool {
        (nal_type::BLA_W_LP..=nal_type::LAST_VCL).contains(&self.nal_unit_type)
    }

    /// A RASL picture: leads a CRA in output but refers to pictures before it.
    pub fn rasl(&self) -> bool {
        matches!(self.nal_unit_type, 8 | nal_type::RASL_R)
    }

    /// A RADL picture: leads an IRAP in output, refers only to pictures after it.
    pub fn radl(&self) -> bool {
        matches!(self.nal_unit_type, nal_type::RADL_N | 7)
    }

    /// A sub-layer non-reference picture (even types up to 14): no picture
    /// of its own sub-layer refers to it.
    pub fn sub_layer_non_reference(&self) -> bool {
        self.nal_unit_type <= 14 && self.nal_unit_type.is_multiple_of(2)
    }

    pub fn intra(&self) -> bool {
        self.slice_type == 2
    }

    /// `NumPicTotalCurr` (7-55): pictures the current one may predict from.
    pub fn num_pic_total_curr(&self) -> u32 {
        let rps = &self.short_term_rps;
        let short = rps.negative.iter().chain(&rps.positive).filter(|(_, used)| *used).count();
        (short + self.long_term.iter().filter(|lt| lt.used_by_curr_pic).count()) as u32
    }

    /// Parses the header of a slice segment NAL unit (types 0–9, 16–21) of
    /// the base layer from its RBSP, header bytes included. `previous` is
    /// the slice segment before it in the same picture, whose fields a
    /// dependent slice segment takes.
    pub fn parse(
        rbsp: &[u8],
        pps_of: impl Fn(u32) -> Option<Pps>,
        sps_of: impl Fn(u32) -> Option<Sps>,
        previous: Option<&SliceHeader>,
    ) -> Result<SliceHeader, ParseError> {
        let mut r = BitReader::new(rbsp);
        r.skip(1)?;
        let nal_unit_type = r.bits(6)? as u8;
        r.skip(6)?; // nuh_layer_id
        let temporal_id = (r.bits(3)? as u8)
            .checked_sub(1)
            .ok_or_else(|| ParseError::new("nuh_temporal_id_plus1 is 0"))?;
        let first_slice_segment_in_pic = r.flag()?;
        let irap = (nal_type::BLA_W_LP..=23).contains(&nal_unit_type);
        let no_output_of_prior_pics = irap && r.flag()?;
        let pps_id = r.ue_max(63, "slice_pic_parameter_set_id")?;
        let pps = pps_of(pps_id)
            .ok_or_else(|| ParseError::new(format!("a slice refers to PPS {pps_id}, not seen")))?;
        let sps = sps_of(pps.sps_id).ok_or_else(|| {
            ParseError::new(format!("PPS {pps_id} refers to SPS {}, not seen", pps.sps_id))
        })?;
        let (mut dependent_slice_segment, mut segment_address) = (false, 0);
        if !first_slice_segment_in_pic {
            dependent_slice_segment = pps.dependent_slice_segments_enabled && r.flag()?;
            let ctbs = sps.picture_size_in_ctbs();
            segment_address = r.bits(ceil_log2(ctbs))?;
            if segment_address >= ctbs {
                return Err(ParseError::new(format!(
                    "slice_segment_address {segment_address} is outside the picture"
                )));
            }
        }
        let mut h = if dependent_slice_segment {
            let previous = previous.ok_or_else(|| {
                ParseError::new("a dependent slice segment has no slice segment before it")
            })?;
            SliceHeader {
                nal_unit_type,
                temporal_id,
                first_slice_segment_in_pic,
                no_output_of_prior_pics,
                pps_id,
                dependent_slice_segment,
                segment_address,
                ..previous.clone()
            }
        } else {
            independent_fields(
                &mut r,
                &sps,
                &pps,
                SliceHeader {
                    nal_unit_type,
                    temporal_id,
                    first_slice_segment_in_pic,
                    no_output_of_prior_pics,
                    pps_id,
                    dependent_slice_segment,
                    segment_address,
                    slice_type: 2,
                    pic_output: true,
                    pic_order_cnt_lsb: 0,
                    short_term_rps_idx: None,
                    short_term_rps: ShortTermRps::default(),
                    short_term_rps_bits: 0,
                    long_term: Vec::new(),
                    temporal_mvp_enabled: false,
                    num_ref_idx_l0_active: 0,
                    num_ref_idx_l1_active: 0,
                    slice_qp_delta: 0,
                    num_entry_point_offsets: 0,
                    header_bytes: 0,
                },
            )?
        };
        h.num_entry_point_offsets = 0;
        if pps.tiles.is_some() || pps.entropy_coding_sync_enabled {
            // At most one entry point per CTB row or tile; the picture's CTB
            // count bounds both.
            let count = r.ue_max(sps.picture_size_in_ctbs(), "num_entry_point_offsets")?;
            if count > 0 {
                let bits = r.ue_max(31, "offset_len_minus1")? + 1;
                r.skip(count as usize * bits as usize)?; // entry_point_offset_minus1
            }
            h.num_entry_point_offsets = count;
        }
        if pps.slice_segment_header_extension_present {
            let length = r.ue_max(256, "slice_segment_header_extension_length")?;
            r.skip(8 * length as usize)?;
        }
        // byte_alignment(): a 1, then 0s up to the byte boundary. Anything
        // else means the header was misread.
        if !r.flag()? {
            return Err(ParseError::new(
                "the slice segment header is not followed by its alignment bit",
            ));
        }
        while !r.position().is_multiple_of(8) {
            if r.flag()? {
                return Err(ParseError::new(
                    "the slice segment header's alignment bits are not zero",
                ));
            }
        }
        h.header_bytes = (r.position() / 8) as u32;
        Ok(h)
    }
}

/// The fields of an independent slice segment, from `slice_reserved_flag`
/// to `slice_loop_filter_across_slices_enabled_flag`.
fn independent_fields(
    r: &mut BitReader<'_>,
    sps: &Sps,
    pps: &Pps,
    mut h: SliceHeader,
) -> Result<SliceHeader, ParseError> {
    r.skip(pps.num_extra_slice_header_bits as usize)?;
    h.slice_type = r.ue_max(2, "slice_type")?;
    let (p, b) = (h.slice_type == 1, h.slice_type == 0);
    if pps.output_flag_present {
        h.pic_output = r.flag()?;
    }
    if sps.separate_colour_plane {
        r.skip(2)?; // colour_plane_id
    }
    if !h.idr() {
        h.pic_order_cnt_lsb = r.bits(sps.log2_max_pic_order_cnt_lsb)?;
        let sets = &sps.short_term_rps;
        if r.flag()? {
            // short_term_ref_pic_set_sps_flag
            let idx = if sets.len() > 1 { r.bits(ceil_log2(sets.len() as u32))? } else { 0 };
            h.short_term_rps = sets
                .get(idx as usize)
                .cloned()
                .ok_or_else(|| ParseError::new(format!("the SPS has no short-term RPS {idx}")))?;
            h.short_term_rps_idx = Some(idx);
        } else {
            let start = r.position();
            h.short_term_rps = ShortTermRps::parse(r, sets, true)?;
            h.short_term_rps_bits = (r.position() - start) as u32;
        }
        if sps.long_term_ref_pics_present {
            h.long_term = long_term_pictures(r, sps)?;
        }
        if sps.temporal_mvp_enabled {
            h.temporal_mvp_enabled = r.flag()?;
        }
    }
    let (mut sao_luma, mut sao_chroma) = (false, false);
    if sps.sample_adaptive_offset_enabled {
        sao_luma = r.flag()?;
        if sps.chroma_array_type() != 0 {
            sao_chroma = r.flag()?;
        }
    }
    if p || b {
        let (mut l0, mut l1) =
            (pps.num_ref_idx_l0_default_active, pps.num_ref_idx_l1_default_active);
        if r.flag()? {
            // num_ref_idx_active_override_flag
            l0 = r.ue_max(14, "num_ref_idx_l0_active_minus1")? + 1;
            if b {
                l1 = r.ue_max(14, "num_ref_idx_l1_active_minus1")? + 1;
            }
        }
        h.num_ref_idx_l0_active = l0;
        h.num_ref_idx_l1_active = if b { l1 } else { 0 };
        let total = h.num_pic_total_curr();
        if total == 0 {
            return Err(ParseError::new("a P or B slice has no picture to predict from"));
        }
        if pps.lists_modification_present && total > 1 {
            // ref_pic_lists_modification(): list_entry_lX of Ceil(Log2(total)) bits.
            let bits = ceil_log2(total) as usize;
            if r.flag()? {
                r.skip(bits * l0 as usize)?;
            }
            if b && r.flag()? {
                r.skip(bits * l1 as usize)?;
            }
        }
        if b {
            r.skip(1)?; // mvd_l1_zero_flag
        }
        if pps.cabac_init_present {
            r.skip(1)?; // cabac_init_flag
        }
        if h.temporal_mvp_enabled {
            let from_l0 = !b || r.flag()?;
            if (from_l0 && l0 > 1) || (!from_l0 && l1 > 1) {
                r.ue_max(14, "collocated_ref_idx")?;
            }
        }
        if (pps.weighted_pred && p) || (pps.weighted_bipred && b) {
            skip_pred_weight_table(r, sps.chroma_array_type(), l0, h.num_ref_idx_l1_active)?;
        }
        r.ue_max(4, "five_minus_max_num_merge_cand")?;
    }
    h.slice_qp_delta = r.se()?;
    if pps.slice_chroma_qp_offsets_present {
        r.se()?; // slice_cb_qp_offset
        r.se()?; // slice_cr_qp_offset
    }
    if pps.chroma_qp_offset_list_enabled {
        r.skip(1)?; // cu_chroma_qp_offset_enabled_flag
    }
    let override_deblocking = pps.deblocking_filter_override_enabled && r.flag()?;
    let mut deblocking_disabled = pps.deblocking_filter_disabled;
    if override_deblocking {
        deblocking_disabled = r.flag()?;
        if !deblocking_disabled {
            r.se()?; // slice_beta_offset_div2
            r.se()?; // slice_tc_offset_div2
        }
    }
    if pps.loop_filter_across_slices_enabled && (sao_luma || sao_chroma || !deblocking_disabled) {
        r.skip(1)?; // slice_loop_filter_across_slices_enabled_flag
    }
    Ok(h)
}

/// The long-term part of a slice's reference picture set: entries named
/// from the SPS's candidates first, then coded ones (7.3.6.1, 7-52).
fn long_term_pictures(
    r: &mut BitReader<'_>,
    sps: &Sps,
) -> Result<Vec<LongTermPicture>, ParseError> {
    let candidates = &sps.long_term_ref_pics;
    let from_sps = if candidates.is_empty() {
        0
    } else {
        r.ue_max(candidates.len() as u32, "num_long_term_sps")?
    };
    let coded = r.ue_max(16, "num_long_term_pics")?;
    let mut pictures = Vec::with_capacity((from_sps + coded) as usize);
    let mut cycle = 0u32;
    for i in 0..from_sps + coded {
        let (poc_lsb, used_by_curr_pic) = if i < from_sps {
            let idx =
                if candidates.len() > 1 { r.bits(ceil_log2(candidates.len() as u32))? } else { 0 };
            *candidates
                .get(idx as usize)
                .ok_or_else(|| ParseError::new(format!("lt_idx_sps {idx} is out of range")))?
        } else {
            (r.bits(sps.log2_max_pic_order_cnt_lsb)?, r.flag()?)
        };
        // DeltaPocMsbCycleLt accumulates delta_poc_msb_cycle_lt (0 where
        // absent) within each group: the SPS's entries, then the coded ones.
        if i == 0 || i == from_sps {
            cycle = 0;
        }
        let present = r.flag()?;
        if present {
            cycle = cycle.saturating_add(r.ue()?);
        }
        let delta_poc_msb_cycle = present.then_some(cycle);
        pictures.push(LongTermPicture { poc_lsb, used_by_curr_pic, delta_poc_msb_cycle });
    }
    Ok(pictures)
}

/// Reads past `pred_weight_table()` (7.3.6.3) for lists of `l0` and `l1`
/// entries. The flags of every entry are present: a reference picture never
/// has the current picture's POC in a single-layer stream without screen
/// content coding.
fn skip_pred_weight_table(
    r: &mut BitReader<'_>,
    chroma_array_type: u32,
    l0: u32,
    l1: u32,
) -> Result<(), ParseError> {
    r.ue_max(7, "luma_log2_weight_denom")?;
    let chroma = chroma_array_type != 0;
    if chroma {
        r.se()?; // delta_chroma_log2_weight_denom
    }
    for count in [l0, l1] {
        let luma = (0..count).map(|_| r.flag()).collect::<Result<Vec<_>, _>>()?;
        let chroma_flags = if chroma {
            (0..count).map(|_| r.flag()).collect::<Result<Vec<_>, _>>()?
        } else {
            vec![false; count as usize]
        };
        for (luma, chroma) in luma.into_iter().zip(chroma_flags) {
            if luma {
                r.se()?; // delta_luma_weight
                r.se()?; // luma_offset
            }
            if chroma {
                for _ in 0..4 {
                    r.se()?; // delta_chroma_weight, delta_chroma_offset for Cb, Cr
                }
            }
        }
    }
    Ok(())
}

/// `Ceil(Log2(n))`: the width of fields that index `n` things.
fn ceil_log2(n: u32) -> u32 {
    if n <= 1 { 0 } else { 32 - (n - 1).leading_zeros() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_log2_sizes_index_fields() {
        let widths: Vec<u32> = [1, 2, 3, 4, 5, 8, 9, 510].iter().map(|&n| ceil_log2(n)).collect();
        assert_eq!(widths, [0, 1, 2, 2, 3, 3, 4, 9]);
    }
}
