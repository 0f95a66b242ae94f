//! The H.264 picture parameter set (7.3.2.2) and slice header (7.3.3), read
//! as far as a device decoder needs them: the identifiers, `frame_num`, the
//! POC fields, and the reference marking (`dec_ref_pic_marking`, 7.3.3.3).
//! The reference list changes and prediction weights are read only to get
//! past them; the device reads them itself from the slice data.

use super::ParseError;
use super::bits::BitReader;
use super::h264::{HIGH_PROFILES, ScalingLists, Sps};

/// The fields of a PPS that decoding needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pps {
    pub id: u32,
    pub sps_id: u32,
    pub entropy_coding_mode: bool,
    pub bottom_field_pic_order_in_frame_present: bool,
    pub num_ref_idx_l0_default_active: u32,
    pub num_ref_idx_l1_default_active: u32,
    pub weighted_pred: bool,
    pub weighted_bipred_idc: u32,
    pub pic_init_qp_minus26: i32,
    pub pic_init_qs_minus26: i32,
    pub chroma_qp_index_offset: i32,
    pub deblocking_filter_control_present: bool,
    pub constrained_intra_pred: bool,
    pub redundant_pic_cnt_present: bool,
    pub transform_8x8_mode: bool,
    /// The scaling matrices when `pic_scaling_matrix_present_flag` is set,
    /// lists not coded filled by fall-back rule A or B from the SPS's.
    pub scaling_lists: Option<ScalingLists>,
    pub second_chroma_qp_index_offset: i32,
}

impl Pps {
    /// Parses a PPS from its RBSP (the NAL header byte included). The SPS
    /// it refers to decides how many scaling lists follow and what lists
    /// not coded fall back to; `sps_of` finds it.
    pub fn parse(rbsp: &[u8], sps_of: impl Fn(u32) -> Option<Sps>) -> Result<Pps, ParseError> {
        let mut r = BitReader::new(rbsp);
        r.skip(8)?;
        let id = r.ue_max(255, "pic_parameter_set_id")?;
        let sps_id = r.ue_max(31, "seq_parameter_set_id")?;
        let entropy_coding_mode = r.flag()?;
        let bottom_field_pic_order_in_frame_present = r.flag()?;
        if r.ue_max(7, "num_slice_groups_minus1")? > 0 {
            return Err(ParseError::new("slice groups (FMO) are not supported"));
        }
        let num_ref_idx_l0_default_active =
            r.ue_max(31, "num_ref_idx_l0_default_active_minus1")? + 1;
        let num_ref_idx_l1_default_active =
            r.ue_max(31, "num_ref_idx_l1_default_active_minus1")? + 1;
        let weighted_pred = r.flag()?;
        let weighted_bipred_idc = r.bits(2)?;
        let pic_init_qp_minus26 = r.se()?;
        let pic_init_qs_minus26 = r.se()?;
        let chroma_qp_index_offset = r.se()?;
        let deblocking_filter_control_present = r.flag()?;
        let constrained_intra_pred = r.flag()?;
        let redundant_pic_cnt_present = r.flag()?;
        let (mut transform_8x8_mode, mut scaling_lists) = (false, None);
        let mut second_chroma_qp_index_offset = chroma_qp_index_offset;
        if r.more_rbsp_data() {
            transform_8x8_mode = r.flag()?;
            if r.flag()? {
                let sps = sps_of(sps_id).ok_or_else(|| {
                    ParseError::new(format!("PPS {id} refers to SPS {sps_id}, not seen before"))
                })?;
                let chroma_444 =
                    HIGH_PROFILES.contains(&sps.profile_idc) && sps.chroma_format_idc == 3;
                let lists = 6 + if transform_8x8_mode { if chroma_444 { 6 } else { 2 } } else { 0 };
                // Fall-back rule B from the SPS's matrices, else rule A.
                let fallback = sps.scaling_lists.as_ref().unwrap_or(&ScalingLists::DEFAULT);
                scaling_lists = Some(ScalingLists::read(&mut r, lists, fallback)?);
            }
            second_chroma_qp_index_offset = r.se()?;
        }
        Ok(Pps {
            id,
            sps_id,
            entropy_coding_mode,
            bottom_field_pic_order_in_frame_present,
            num_ref_idx_l0_default_active,
            num_ref_idx_l1_default_active,
            weighted_pred,
            weighted_bipred_idc,
            pic_init_qp_minus26,
            pic_init_qs_minus26,
            chroma_qp_index_offset,
            deblocking_filter_control_present,
            constrained_intra_pred,
            redundant_pic_cnt_present,
            transform_8x8_mode,
            scaling_lists,
            second_chroma_qp_index_offset,
        })
    }
}

/// One `memory_management_control_operation` with its operands (7.4.3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mmco {
    /// 1: a short-term picture, `difference_of_pic_nums_minus1` before the
    /// current one, is no longer a reference.
    ForgetShortTerm { difference_of_pic_nums_minus1: u32 },
    /// 2: the long-term picture `long_term_pic_num` is no longer a reference.
    ForgetLongTerm { long_term_pic_num: u32 },
    /// 3: a short-term picture becomes long-term with index `long_term_frame_idx`.
    ShortToLongTerm { difference_of_pic_nums_minus1: u32, long_term_frame_idx: u32 },
    /// 4: long-term indices above `max_long_term_frame_idx_plus1 - 1` go.
    MaxLongTermIndex { max_long_term_frame_idx_plus1: u32 },
    /// 5: every reference goes, and the current picture restarts POC and frame_num.
    ForgetAll,
    /// 6: the current picture becomes long-term with index `long_term_frame_idx`.
    CurrentToLongTerm { long_term_frame_idx: u32 },
}

/// `dec_ref_pic_marking()` of a reference picture's slice.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefPicMarking {
    /// IDR only.
    pub no_output_of_prior_pics: bool,
    /// IDR only: the picture is a long-term reference with index 0.
    pub long_term_reference: bool,
    /// Non-IDR: `adaptive_ref_pic_marking_mode_flag` and its operations;
    /// `None` means the sliding window.
    pub adaptive: Option<Vec<Mmco>>,
}

/// The slice header fields of 7.3.3 up to `dec_ref_pic_marking()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SliceHeader {
    pub nal_unit_type: u32,
    pub nal_ref_idc: u32,
    pub first_mb_in_slice: u32,
    /// `slice_type % 5`: 0 P, 1 B, 2 I, 3 SP, 4 SI.
    pub slice_type: u32,
    pub pps_id: u32,
    pub frame_num: u32,
    pub field_pic: bool,
    pub bottom_field: bool,
    pub idr_pic_id: u32,
    pub pic_order_cnt_lsb: u32,
    pub delta_pic_order_cnt_bottom: i32,
    pub delta_pic_order_cnt: [i32; 2],
    /// Present for reference pictures (`nal_ref_idc` not 0).
    pub marking: Option<RefPicMarking>,
}

impl SliceHeader {
    /// IDR picture (`nal_unit_type` 5).
    pub fn idr(&self) -> bool {
        self.nal_unit_type == 5
    }

    /// I or SI slice: no inter prediction.
    pub fn intra(&self) -> bool {
        matches!(self.slice_type, 2 | 4)
    }

    /// Parses the header of a slice NAL unit (types 1 and 5) from its RBSP,
    /// the header byte included. `pps_of` and `sps_of` look up parameter
    /// sets by id.
    pub fn parse(
        rbsp: &[u8],
        pps_of: impl Fn(u32) -> Option<Pps>,
        sps_of: impl Fn(u32) -> Option<Sps>,
    ) -> Result<SliceHeader, ParseError> {
        let mut r = BitReader::new(rbsp);
        let header = r.bits(8)?;
        let (nal_ref_idc, nal_unit_type) = ((header >> 5) & 3, header & 0x1f);
        let idr = nal_unit_type == 5;
        let first_mb_in_slice = r.ue()?;
        let slice_type = r.ue_max(9, "slice_type")? % 5;
        let pps_id = r.ue_max(255, "pic_parameter_set_id")?;
        let pps = pps_of(pps_id)
            .ok_or_else(|| ParseError::new(format!("a slice refers to PPS {pps_id}, not seen")))?;
        let sps = sps_of(pps.sps_id).ok_or_else(|| {
            ParseError::new(format!("PPS {pps_id} refers to SPS {}, not seen", pps.sps_id))
        })?;
        if sps.separate_colour_plane {
            r.skip(2)?; // colour_plane_id
        }
        let frame_num = r.bits(sps.log2_max_frame_num)?;
        let (mut field_pic, mut bottom_field) = (false, false);
        if !sps.frame_mbs_only {
            field_pic = r.flag()?;
            if field_pic {
                bottom_field = r.flag()?;
            }
        }
        let idr_pic_id = if idr { r.ue_max(65535, "idr_pic_id")? } else { 0 };
        let (mut pic_order_cnt_lsb, mut delta_pic_order_cnt_bottom) = (0, 0);
        let mut delta_pic_order_cnt = [0; 2];
        let bottom_present = pps.bottom_field_pic_order_in_frame_present && !field_pic;
        if sps.pic_order_cnt_type == 0 {
            pic_order_cnt_lsb = r.bits(sps.log2_max_pic_order_cnt_lsb)?;
            if bottom_present {
                delta_pic_order_cnt_bottom = r.se()?;
            }
        }
        if sps.pic_order_cnt_type == 1 && !sps.delta_pic_order_always_zero {
            delta_pic_order_cnt[0] = r.se()?;
            if bottom_present {
                delta_pic_order_cnt[1] = r.se()?;
            }
        }
        if pps.redundant_pic_cnt_present {
            r.ue()?; // redundant_pic_cnt
        }
        let (p, b) = (matches!(slice_type, 0 | 3), slice_type == 1);
        if b {
            r.skip(1)?; // direct_spatial_mv_pred_flag
        }
        let (mut l0, mut l1) =
            (pps.num_ref_idx_l0_default_active, pps.num_ref_idx_l1_default_active);
        // num_ref_idx_active_override_flag
        if (p || b) && r.flag()? {
            l0 = r.ue_max(31, "num_ref_idx_l0_active_minus1")? + 1;
            if b {
                l1 = r.ue_max(31, "num_ref_idx_l1_active_minus1")? + 1;
            }
        }
        // ref_pic_list_modification() (7.3.3.1)
        let lists = if b {
            2
        } else if p {
            1
        } else {
            0
        };
        for _ in 0..lists {
            if r.flag()? {
                loop {
                    match r.ue_max(5, "modification_of_pic_nums_idc")? {
                        3 => break,
                        _ => {
                            r.ue()?; // abs_diff_pic_num_minus1 or long_term_pic_num
                        }
                    }
                }
            }
        }
        if (pps.weighted_pred && p) || (pps.weighted_bipred_idc == 1 && b) {
            skip_pred_weight_table(&mut r, sps.chroma_array_type(), l0, if b { l1 } else { 0 })?;
        }
        let marking = if nal_ref_idc != 0 { Some(dec_ref_pic_marking(&mut r, idr)?) } else { None };
        Ok(SliceHeader {
            nal_unit_type,
            nal_ref_idc,
            first_mb_in_slice,
            slice_type,
            pps_id,
            frame_num,
            field_pic,
            bottom_field,
            idr_pic_id,
            pic_order_cnt_lsb,
            delta_pic_order_cnt_bottom,
            delta_pic_order_cnt,
            marking,
        })
    }
}

/// Reads past `pred_weight_table()` (7.3.3.2) for lists of `l0` and `l1`
/// entries.
fn skip_pred_weight_table(
    r: &mut BitReader<'_>,
    chroma_array_type: u32,
    l0: u32,
    l1: u32,
) -> Result<(), ParseError> {
    r.ue()?; // luma_log2_weight_denom
    if chroma_array_type != 0 {
        r.ue()?; // chroma_log2_weight_denom
    }
    for _ in 0..l0 + l1 {
        if r.flag()? {
            r.se()?; // luma weight
            r.se()?; // luma offset
        }
        if chroma_array_type != 0 && r.flag()? {
            for _ in 0..4 {
                r.se()?; // Cb and Cr weight and offset
            }
        }
    }
    Ok(())
}

fn dec_ref_pic_marking(r: &mut BitReader<'_>, idr: bool) -> Result<RefPicMarking, ParseError> {
    if idr {
        return Ok(RefPicMarking {
            no_output_of_prior_pics: r.flag()?,
            long_term_reference: r.flag()?,
            adaptive: None,
        });
    }
    if !r.flag()? {
        return Ok(RefPicMarking::default());
    }
    let mut operations = Vec::new();
    loop {
        let op = match r.ue_max(6, "memory_management_control_operation")? {
            0 => break,
            1 => Mmco::ForgetShortTerm { difference_of_pic_nums_minus1: r.ue()? },
            2 => Mmco::ForgetLongTerm { long_term_pic_num: r.ue()? },
            3 => Mmco::ShortToLongTerm {
                difference_of_pic_nums_minus1: r.ue()?,
                long_term_frame_idx: r.ue()?,
            },
            4 => Mmco::MaxLongTermIndex { max_long_term_frame_idx_plus1: r.ue()? },
            5 => Mmco::ForgetAll,
            _ => Mmco::CurrentToLongTerm { long_term_frame_idx: r.ue()? },
        };
        // At most one of each per picture, and a few 1s and 3s: 66 bounds hostile streams.
        if operations.len() == 66 {
            return Err(ParseError::new("more than 66 memory management operations"));
        }
        operations.push(op);
    }
    Ok(RefPicMarking { adaptive: Some(operations), ..RefPicMarking::default() })
}
