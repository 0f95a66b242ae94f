//! H.264 and H.265 elementary streams: the parameter sets, which say what a
//! device decoder must know before it can be set up (codec, profile, sample
//! format, coded and display size, DPB size) and what `vqscope info`
//! compares with the device's video decode capabilities; and for H.264 what
//! decoding each picture needs: PPS and slice headers, picture order,
//! reference marking and output order (`h264_slice`, `h264_stream`,
//! `h264_dpb`; for H.265 `h265_slice`, `h265_stream`, `h265_dpb`).
//!
//! Written from ITU-T H.264 and H.265 (Annex B byte streams, 7.3.2.1.1,
//! 7.3.2.1 and 7.3.2.2.1; for H.264 also 7.3.2.2, 7.3.3, 8.2.1, 8.2.5 and C.4;
//! for H.265 also 7.3.2.3, 7.3.6, 7.3.7, 8.3.1, 8.3.2 and C.5.2).

mod bits;
mod elementary;
pub mod h264;
pub mod h264_dpb;
pub mod h264_slice;
pub mod h264_stream;
pub mod h265;
pub mod h265_dpb;
pub mod h265_slice;
pub mod h265_stream;
pub mod nal;

pub use elementary::{AnnexBReader, Codec, parameter_sets, read_parameter_sets};
pub use h265::VideoParameterSet;

use crate::frame::ChromaFormat;

/// A malformed parameter set: one line saying what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(String);

impl ParseError {
    pub fn new(message: impl Into<String>) -> Self {
        ParseError(message.into())
    }
}

/// Samples cut from each edge of the coded picture to give the displayed
/// one (H.264 frame cropping, H.265 conformance window), in luma samples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Crop {
    pub left: u32,
    pub right: u32,
    pub top: u32,
    pub bottom: u32,
}

/// What a sequence parameter set says about the pictures of a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceInfo {
    pub codec: Codec,
    /// `profile_idc` (H.264) or `general_profile_idc` (H.265): the value
    /// Vulkan Video's profile structures take.
    pub profile_idc: u32,
    /// The profile's name as ffprobe prints it ("High", "Main 10").
    pub profile: &'static str,
    /// `level_idc` (H.264: 10 x level) or `general_level_idc` (H.265: 30 x level).
    pub level_idc: u32,
    pub chroma: ChromaFormat,
    pub bit_depth_luma: u32,
    pub bit_depth_chroma: u32,
    /// The decoded picture's size: whole macroblocks (H.264) or minimum
    /// coding blocks (H.265). Decode surfaces are this large.
    pub coded_width: u32,
    pub coded_height: u32,
    pub crop: Crop,
    /// H.264 field or MBAFF coding (`frame_mbs_only_flag` 0): decoders take
    /// a different picture layout. H.265 codes fields as whole pictures, so
    /// it is always `false` there.
    pub interlaced: bool,
    /// Pictures the decoded picture buffer must hold: H.264's
    /// `max_dec_frame_buffering` (the VUI's, else the level's MaxDpbFrames),
    /// H.265's `sps_max_dec_pic_buffering_minus1 + 1` of the highest sub-layer.
    pub max_dpb_frames: u32,
    /// Reference frames a picture may use: H.264's `max_num_ref_frames`;
    /// for H.265, the DPB less the current picture.
    pub max_num_ref_frames: u32,
}

impl SequenceInfo {
    /// The displayed size: the coded size less the cropping.
    pub fn display_size(&self) -> (u32, u32) {
        (
            self.coded_width - self.crop.left - self.crop.right,
            self.coded_height - self.crop.top - self.crop.bottom,
        )
    }

    /// DPB slots a Vulkan Video session needs: H.264's count leaves out the
    /// picture being decoded, which needs a slot of its own to become a
    /// reference; H.265's `sps_max_dec_pic_buffering` already counts it.
    pub fn dpb_slots(&self) -> u32 {
        match self.codec {
            Codec::H264 => self.max_dpb_frames + 1,
            Codec::H265 => self.max_dpb_frames,
        }
    }

    /// "H.265 Main 10, 4:2:0 10-bit" (", interlaced" for H.264 fields): how
    /// messages name the stream's format.
    pub fn describe(&self) -> String {
        let chroma = match self.chroma {
            ChromaFormat::Mono => "4:0:0",
            ChromaFormat::Yuv420 => "4:2:0",
            ChromaFormat::Yuv422 => "4:2:2",
            ChromaFormat::Yuv444 => "4:4:4",
        };
        let depth = if self.bit_depth_luma == self.bit_depth_chroma {
            format!("{}-bit", self.bit_depth_luma)
        } else {
            format!("{}/{}-bit", self.bit_depth_luma, self.bit_depth_chroma)
        };
        let fields = if self.interlaced { ", interlaced" } else { "" };
        format!("{} {}, {chroma} {depth}{fields}", self.codec.name(), self.profile)
    }
}

/// The first sequence parameter set of a stream and, for H.265, the first
/// video parameter set before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParameterSets {
    pub sequence: SequenceInfo,
    pub video: Option<VideoParameterSet>,
}
