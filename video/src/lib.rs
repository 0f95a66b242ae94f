//! vqscope-video: reads reference and distorted inputs (y4m, raw yuv, and
//! other containers through ffmpeg) into [`Frame`]s, pairs them with
//! libvmaf's rules and reads them ahead on a thread.

#![forbid(unsafe_code)]

pub mod bitstream;
mod buffers;
pub mod decode;
pub mod device_decode;
mod device_decode_h265;
pub mod device_source;
pub mod error;
pub mod ffmpeg;
pub mod frame;
pub mod frame_data;
pub mod host_frames;
pub mod input;
mod lines;
pub mod pair;
mod parallel;
mod parts;
pub mod raw;
pub mod read_ahead;
pub mod retag;
pub mod scale;
pub mod source;
pub mod testing;
pub mod upload;
pub mod y4m;

pub use decode::{Decoder, READ_AHEAD, Reader};
pub use device_source::{
    DecodeChoice, decode_choice, decoding_context, set_decode_choice, share_decoding_context,
    with_decode_choice,
};
pub use error::{MAX_DIMENSION, Result, VideoError};
pub use frame::{
    ChromaFormat, ColorInfo, ColorMatrix, ColorRange, Frame, Geometry, PixelFormat, Rational,
    Transfer,
};
pub use input::{Assumed, DecodedBy, SourceInfo, VideoSource};
pub use pair::{FrameGroup, FramePair, Group, Pair, PairOptions, check_compatible};
pub use raw::RawGeometry;
pub use read_ahead::ReadAhead;
pub use retag::with_transfer;
pub use source::{
    check_stream_inputs, may_need_a_decoder, open_input, open_scaled_to, open_to_scale,
};
pub use upload::{DeviceFrame, DeviceFrameGroup, DeviceFramePair, FrameUploader, PlaneLayout};
