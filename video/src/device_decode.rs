//! H.264 Annex B streams decoded on the device (Vulkan Video, issue 18):
//! the stream is split into NAL units and parsed here (parameter sets,
//! slice headers, POC, reference marking, output order: `bitstream`), and
//! each picture is decoded by the `gpu` crate's [`H264DecodeSession`] and
//! read back, then handed out in display order with its planes cropped.
//!
//! This first version takes progressive 8-bit 4:2:0 streams without
//! scaling matrices or frame_num gaps, decodes one picture at a time and
//! reads every picture back to the host: it is the correctness base for
//! the decode path that keeps pictures on the device.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use vqscope_gpu::vk::native::{
    StdVideoDecodeH264PictureInfo, StdVideoDecodeH264PictureInfoFlags,
    StdVideoDecodeH264ReferenceInfo, StdVideoDecodeH264ReferenceInfoFlags,
    StdVideoH264PictureParameterSet, StdVideoH264PpsFlags, StdVideoH264SequenceParameterSet,
    StdVideoH264SpsFlags,
};
use vqscope_gpu::{
    GpuContext, GpuError, H264DecodeSession, H264ParameterSets, H264Picture, H264Reference,
    H264Sps, Nv12Picture, h264_std_level,
};

use crate::bitstream::ParseError;
use crate::bitstream::h264::Sps;
use crate::bitstream::h264_dpb::{Dpb, Reference};
use crate::bitstream::h264_slice::{Pps, SliceHeader};
use crate::bitstream::h264_stream::H264Stream;

/// Why a stream could not be decoded on the device.
#[derive(Debug, thiserror::Error)]
pub enum DeviceDecodeError {
    #[error("H.264 stream: {0}")]
    Stream(#[from] ParseError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// A decoded picture, cropped to the display size: 8-bit planes Y, U, V
/// (4:2:0), rows tight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedPicture {
    /// Position in display order, from 0.
    pub number: u64,
    pub width: u32,
    pub height: u32,
    pub y: Vec<u8>,
    pub u: Vec<u8>,
    pub v: Vec<u8>,
}

/// Decodes an H.264 Annex B stream on `ctx`'s decode queue and hands each
/// picture to `emit` in display order. Returns the number of pictures.
pub fn decode_h264(
    ctx: &Arc<GpuContext>,
    stream: &[u8],
    mut emit: impl FnMut(DecodedPicture),
) -> Result<u64, DeviceDecodeError> {
    let parsed = H264Stream::parse(stream)?;
    let (sps, pps) = (&parsed.sps, &parsed.pps);
    let first = sps.values().next().ok_or_else(|| ParseError::new("no SPS"))?;
    check_supported(first, pps.values())?;
    let info = first.info()?;
    // A reference frame in each slot, and one more for the picture decoded.
    let slots = info.max_num_ref_frames.max(1) + 1;
    let parameter_sets = H264ParameterSets {
        sps: sps.values().map(std_sps).collect::<Result<_, _>>()?,
        pps: pps.values().map(std_pps).collect(),
    };
    let mut session = H264DecodeSession::new(
        ctx,
        first.profile_idc,
        info.coded_width,
        info.coded_height,
        slots,
        &parameter_sets,
    )?;
    let mut decoder = Decoder {
        session: &mut session,
        dpb: Dpb::new(slots, info.max_dpb_frames),
        waiting: HashMap::new(),
        shown: 0,
        sps,
        emit: &mut emit,
    };
    for picture in &parsed.pictures {
        decoder.picture(picture, pps)?;
    }
    let rest = decoder.dpb.flush();
    decoder.output(&rest);
    Ok(decoder.shown)
}

/// What this first version decodes; anything else is a clear error.
fn check_supported<'a>(
    sps: &Sps,
    mut pps: impl Iterator<Item = &'a Pps>,
) -> Result<(), ParseError> {
    let refuse = |what: &str| Err(ParseError::new(format!("{what} is not supported yet")));
    if sps.chroma_format_idc != 1 || sps.bit_depth_luma != 8 || sps.bit_depth_chroma != 8 {
        return refuse("device decode of anything but 8-bit 4:2:0");
    }
    if !sps.frame_mbs_only {
        return refuse("device decode of interlaced H.264");
    }
    if sps.scaling_matrix_present || pps.any(|p| p.scaling_matrix_present) {
        return refuse("device decode with scaling matrices");
    }
    Ok(())
}

struct Decoder<'a, F: FnMut(DecodedPicture)> {
    session: &'a mut H264DecodeSession,
    dpb: Dpb,
    /// Decoded pictures awaiting output, by decoding-order index.
    waiting: HashMap<u64, DecodedPicture>,
    shown: u64,
    sps: &'a BTreeMap<u32, Sps>,
    emit: &'a mut F,
}

impl<F: FnMut(DecodedPicture)> Decoder<'_, F> {
    /// Decodes the picture made of `slices` and outputs what the DPB lets go.
    fn picture(
        &mut self,
        slices: &[(SliceHeader, &[u8])],
        pps: &BTreeMap<u32, Pps>,
    ) -> Result<(), DeviceDecodeError> {
        let (first, _) = &slices[0];
        let p = &pps[&first.pps_id];
        let sps = &self.sps[&p.sps_id];
        let plan = self.dpb.picture(first, sps)?;
        let intra = slices.iter().all(|(h, _)| h.intra());
        let std = StdVideoDecodeH264PictureInfo {
            flags: StdVideoDecodeH264PictureInfoFlags {
                _bitfield_align_1: [],
                _bitfield_1: StdVideoDecodeH264PictureInfoFlags::new_bitfield_1(
                    0,
                    intra.into(),
                    first.idr().into(),
                    0,
                    plan.reference.into(),
                    0,
                ),
                __bindgen_padding_0: [0; 3],
            },
            seq_parameter_set_id: p.sps_id as u8,
            pic_parameter_set_id: p.id as u8,
            reserved1: 0,
            reserved2: 0,
            frame_num: first.frame_num as u16,
            idr_pic_id: first.idr_pic_id as u16,
            PicOrderCnt: plan.poc,
        };
        let setup = H264Reference { slot: plan.setup.slot, std: std_reference(&plan.setup) };
        let references: Vec<H264Reference> = plan
            .references
            .iter()
            .map(|r| H264Reference { slot: r.slot, std: std_reference(r) })
            .collect();
        let units: Vec<&[u8]> = slices.iter().map(|(_, unit)| *unit).collect();
        let decoded = self.session.decode(&H264Picture {
            std,
            slices: &units,
            setup,
            references: &references,
        })?;
        let info = sps.info()?;
        self.waiting.insert(plan.index, crop(&decoded, &info.crop, info.display_size()));
        self.output(&plan.output);
        Ok(())
    }

    fn output(&mut self, indices: &[u64]) {
        for index in indices {
            if let Some(mut picture) = self.waiting.remove(index) {
                picture.number = self.shown;
                self.shown += 1;
                (self.emit)(picture);
            }
        }
    }
}

fn std_reference(r: &Reference) -> StdVideoDecodeH264ReferenceInfo {
    StdVideoDecodeH264ReferenceInfo {
        // Frames: neither field flag.
        flags: StdVideoDecodeH264ReferenceInfoFlags {
            _bitfield_align_1: [],
            _bitfield_1: StdVideoDecodeH264ReferenceInfoFlags::new_bitfield_1(
                0,
                0,
                r.long_term.into(),
                0,
            ),
            __bindgen_padding_0: [0; 3],
        },
        FrameNum: r.frame_num as u16,
        reserved: 0,
        PicOrderCnt: r.poc,
    }
}

/// The cropped Y, U and V planes of a decoded NV12 picture.
fn crop(
    picture: &Nv12Picture,
    crop: &crate::bitstream::Crop,
    (width, height): (u32, u32),
) -> DecodedPicture {
    let stride = picture.width as usize;
    let (left, top) = (crop.left as usize, crop.top as usize);
    let (w, h) = (width as usize, height as usize);
    let mut y = Vec::with_capacity(w * h);
    for row in top..top + h {
        y.extend_from_slice(&picture.luma[row * stride + left..row * stride + left + w]);
    }
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
    let (mut u, mut v) = (Vec::with_capacity(cw * ch), Vec::with_capacity(cw * ch));
    for row in top / 2..top / 2 + ch {
        let line = &picture.chroma[row * stride..(row + 1) * stride];
        for x in left / 2..left / 2 + cw {
            u.push(line[2 * x]);
            v.push(line[2 * x + 1]);
        }
    }
    DecodedPicture { number: 0, width, height, y, u, v }
}

fn flag(b: bool) -> u32 {
    u32::from(b)
}

fn std_sps(s: &Sps) -> Result<H264Sps, ParseError> {
    let [left, right, top, bottom] = s.crop_offsets.unwrap_or_default();
    let level_idc = h264_std_level(s.level_idc)
        .ok_or_else(|| ParseError::new(format!("level_idc {} is unknown", s.level_idc)))?;
    let c = |n: u32| flag(s.constraints & (0x80 >> n) != 0);
    Ok(H264Sps {
        std: StdVideoH264SequenceParameterSet {
            flags: StdVideoH264SpsFlags {
                _bitfield_align_1: [],
                _bitfield_1: StdVideoH264SpsFlags::new_bitfield_1(
                    c(0),
                    c(1),
                    c(2),
                    c(3),
                    c(4),
                    c(5),
                    flag(s.direct_8x8_inference),
                    flag(s.mb_adaptive_frame_field),
                    flag(s.frame_mbs_only),
                    flag(s.delta_pic_order_always_zero),
                    flag(s.separate_colour_plane),
                    flag(s.gaps_in_frame_num_allowed),
                    flag(s.qpprime_y_zero_transform_bypass),
                    flag(s.crop_offsets.is_some()),
                    flag(s.scaling_matrix_present),
                    // The VUI is not passed: decoding does not need it.
                    0,
                ),
                __bindgen_padding_0: 0,
            },
            profile_idc: s.profile_idc,
            level_idc,
            chroma_format_idc: s.chroma_format_idc,
            seq_parameter_set_id: s.id as u8,
            bit_depth_luma_minus8: (s.bit_depth_luma - 8) as u8,
            bit_depth_chroma_minus8: (s.bit_depth_chroma - 8) as u8,
            log2_max_frame_num_minus4: (s.log2_max_frame_num - 4) as u8,
            pic_order_cnt_type: s.pic_order_cnt_type,
            offset_for_non_ref_pic: s.offset_for_non_ref_pic,
            offset_for_top_to_bottom_field: s.offset_for_top_to_bottom_field,
            log2_max_pic_order_cnt_lsb_minus4: s.log2_max_pic_order_cnt_lsb.saturating_sub(4) as u8,
            num_ref_frames_in_pic_order_cnt_cycle: s.offset_for_ref_frame.len() as u8,
            max_num_ref_frames: s.max_num_ref_frames as u8,
            reserved1: 0,
            pic_width_in_mbs_minus1: s.pic_width_in_mbs - 1,
            pic_height_in_map_units_minus1: s.pic_height_in_map_units - 1,
            frame_crop_left_offset: left,
            frame_crop_right_offset: right,
            frame_crop_top_offset: top,
            frame_crop_bottom_offset: bottom,
            reserved2: 0,
            pOffsetForRefFrame: std::ptr::null(),
            pScalingLists: std::ptr::null(),
            pSequenceParameterSetVui: std::ptr::null(),
        },
        offset_for_ref_frame: s.offset_for_ref_frame.clone(),
    })
}

fn std_pps(p: &Pps) -> StdVideoH264PictureParameterSet {
    StdVideoH264PictureParameterSet {
        flags: StdVideoH264PpsFlags {
            _bitfield_align_1: [],
            _bitfield_1: StdVideoH264PpsFlags::new_bitfield_1(
                flag(p.transform_8x8_mode),
                flag(p.redundant_pic_cnt_present),
                flag(p.constrained_intra_pred),
                flag(p.deblocking_filter_control_present),
                flag(p.weighted_pred),
                flag(p.bottom_field_pic_order_in_frame_present),
                flag(p.entropy_coding_mode),
                flag(p.scaling_matrix_present),
            ),
            __bindgen_padding_0: [0; 3],
        },
        seq_parameter_set_id: p.sps_id as u8,
        pic_parameter_set_id: p.id as u8,
        num_ref_idx_l0_default_active_minus1: (p.num_ref_idx_l0_default_active - 1) as u8,
        num_ref_idx_l1_default_active_minus1: (p.num_ref_idx_l1_default_active - 1) as u8,
        weighted_bipred_idc: p.weighted_bipred_idc,
        pic_init_qp_minus26: p.pic_init_qp_minus26 as i8,
        pic_init_qs_minus26: p.pic_init_qs_minus26 as i8,
        chroma_qp_index_offset: p.chroma_qp_index_offset as i8,
        second_chroma_qp_index_offset: p.second_chroma_qp_index_offset as i8,
        pScalingLists: std::ptr::null(),
    }
}
