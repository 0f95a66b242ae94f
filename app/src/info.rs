//! `vqscope info FILE...`: what vqscope sees in each input, and for the
//! compressed ones whether the Vulkan device could decode them (issue 18):
//! the stream's parameter sets against the device's video decode
//! capabilities. vqscope does not decode on the device yet; the line says
//! so, so that nobody reads it as the path vqscope takes.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use vqscope_gpu::{ContextOptions, DecodeProfile, DecodeSupport, GpuContext, vk};
use vqscope_video::bitstream::{Codec, SequenceInfo, read_parameter_sets};
use vqscope_video::ffmpeg::FfmpegTools;
use vqscope_video::raw::RawGeometry;
use vqscope_video::source::{check_stream_inputs, open_input};
use vqscope_video::{ChromaFormat, VideoError, VideoSource};

use crate::output::outln;

#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct Args {
    /// Print help (`-h` is the raw height, as in libvmaf).
    #[arg(long, action = clap::ArgAction::Help)]
    help: Option<bool>,
    /// Inputs: y4m, raw .yuv (with -w -h -p -b), or anything ffmpeg reads.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    raw: RawArgs,
}

/// libvmaf's flags for raw yuv geometry.
#[derive(clap::Args, Clone)]
pub struct RawArgs {
    /// Width of raw .yuv input.
    #[arg(short = 'w', long)]
    width: Option<u32>,
    /// Height of raw .yuv input.
    #[arg(short = 'h', long)]
    height: Option<u32>,
    /// Pixel format of raw .yuv input: 420, 422 or 444.
    #[arg(short = 'p', long = "pixel_format", value_parser = ["420", "422", "444"])]
    pixel_format: Option<String>,
    /// Bit depth of raw .yuv input: 8 to 16, as y4m allows (VMAF's ADM feature takes 8 to 12;
    /// VIF, motion, PSNR and SSIM take them all).
    #[arg(short = 'b', long = "bitdepth", value_parser = clap::value_parser!(u32).range(8..=16))]
    bitdepth: Option<u32>,
}

impl RawArgs {
    /// The raw geometry, if any raw flag was given (all four are needed).
    pub fn geometry(&self) -> Result<Option<RawGeometry>> {
        match (self.width, self.height, &self.pixel_format, self.bitdepth) {
            (None, None, None, None) => Ok(None),
            (Some(width), Some(height), Some(p), Some(bit_depth)) => {
                // clap admits only the three names.
                let chroma = ChromaFormat::from_pixel_format(p).unwrap_or(ChromaFormat::Yuv444);
                Ok(Some(RawGeometry { width, height, chroma, bit_depth }))
            }
            _ => anyhow::bail!("raw input needs all of -w, -h, -p and -b"),
        }
    }
}

pub fn run(args: Args) -> Result<()> {
    let geometry = args.raw.geometry()?;
    let files: Vec<&std::path::Path> = args.files.iter().map(|f| f.as_path()).collect();
    check_stream_inputs(&files)?;
    let mut device = Device::default();
    if let [file] = files.as_slice() {
        // One input: its error is the one line.
        let source = open_input(file, geometry)?;
        return print(file, source.as_ref(), &mut device);
    }
    let mut failed = 0;
    for file in files {
        match open_input(file, geometry) {
            Ok(source) => print(file, source.as_ref(), &mut device)?,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "vqscope: {e}");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        anyhow::bail!("{failed} of {} inputs could not be read", args.files.len());
    }
    Ok(())
}

/// The input's description, and the device decode line for inputs that
/// ffmpeg decodes (files only: stdin cannot be read a second time).
fn print(path: &Path, source: &dyn VideoSource, device: &mut Device) -> Result<()> {
    outln!("{}", source.info().display(source.assumed()))?;
    if source.info().decoded_by_ffmpeg() && path.as_os_str() != "-" {
        outln!("  device decode: {}", device_decode(path, device))?;
    }
    Ok(())
}

/// The Vulkan context, made once the first compressed input needs it (or
/// why it could not be made).
#[derive(Default)]
struct Device(Option<std::result::Result<GpuContext, String>>);

/// Whether the device could decode `path`, and if not, why not.
fn device_decode(path: &Path, device: &mut Device) -> String {
    let sequence = match read_parameter_sets(path, &FfmpegTools::default()) {
        Ok(sets) => sets.sequence,
        Err(VideoError::Unsupported { reason, .. }) => return format!("no — {reason}"),
        Err(e) => return format!("no — {e}"),
    };
    let ctx = device.0.get_or_insert_with(|| {
        GpuContext::new(&ContextOptions::from_env()).map_err(|e| e.to_string())
    });
    let ctx = match ctx {
        Ok(ctx) => ctx,
        Err(e) => return format!("no — {e}"),
    };
    match ctx.video_decode_support(&decode_profile(&sequence)) {
        Ok(support) => verdict(&sequence, &ctx.info().name, &support),
        Err(e) => format!("no — the device could not be asked: {e}"),
    }
}

/// The Vulkan Video profile of a stream.
fn decode_profile(s: &SequenceInfo) -> DecodeProfile {
    DecodeProfile {
        operation: match s.codec {
            Codec::H264 => vk::VideoCodecOperationFlagsKHR::DECODE_H264,
            Codec::H265 => vk::VideoCodecOperationFlagsKHR::DECODE_H265,
        },
        profile_idc: s.profile_idc,
        chroma: match s.chroma {
            ChromaFormat::Mono => vk::VideoChromaSubsamplingFlagsKHR::MONOCHROME,
            ChromaFormat::Yuv420 => vk::VideoChromaSubsamplingFlagsKHR::TYPE_420,
            ChromaFormat::Yuv422 => vk::VideoChromaSubsamplingFlagsKHR::TYPE_422,
            ChromaFormat::Yuv444 => vk::VideoChromaSubsamplingFlagsKHR::TYPE_444,
        },
        luma_bit_depth: s.bit_depth_luma,
        chroma_bit_depth: s.bit_depth_chroma,
        interlaced: s.interlaced,
    }
}

/// The device decode line for a stream on `device`: "no — why", or what
/// the device offers for it and that vqscope does not use it yet.
fn verdict(s: &SequenceInfo, device: &str, support: &DecodeSupport) -> String {
    let what = s.describe();
    let (c, queues) = match support {
        DecodeSupport::MissingExtensions(missing) => {
            return format!(
                "no — {device} has no video decode queue (it lacks {})",
                missing.join(", ")
            );
        }
        DecodeSupport::NoDecodeQueue => {
            return format!("no — {device} has no queue that decodes {}", s.codec.name());
        }
        DecodeSupport::ProfileNotSupported(result) => {
            return format!("no — {device} does not decode {what} ({result:?})");
        }
        DecodeSupport::Supported { capabilities, queue_count, .. } => (capabilities, *queue_count),
    };
    let (max_w, max_h) = c.max_coded_extent;
    let (min_w, min_h) = c.min_coded_extent;
    let (w, h) = (s.coded_width, s.coded_height);
    let level = |idc| s.codec.level_name(idc);
    if w > max_w || h > max_h || w < min_w || h < min_h {
        return format!(
            "no — {device} decodes {what} from {min_w}x{min_h} to {max_w}x{max_h}, \
             this stream is coded at {w}x{h}"
        );
    }
    if s.dpb_slots() > c.max_dpb_slots || s.max_num_ref_frames > c.max_active_reference_pictures {
        return format!(
            "no — the stream needs {} DPB slots and {} references, {device} offers {} and {} for {what}",
            s.dpb_slots(),
            s.max_num_ref_frames,
            c.max_dpb_slots,
            c.max_active_reference_pictures
        );
    }
    let max_level = match c.max_level_idc {
        Some(max) if s.level_idc > max => {
            return format!(
                "no — the stream is level {}, {device} decodes {what} up to level {}",
                level(s.level_idc),
                level(max)
            );
        }
        Some(max) => format!(", level {}", level(max)),
        None => String::new(),
    };
    format!(
        "{what} offered by {device}, up to {max_w}x{max_h}, {} DPB slots{max_level}, \
         {queues} decode queue{} — not used yet: vqscope decodes with ffmpeg",
        c.max_dpb_slots,
        if queues == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use vqscope_gpu::DecodeCapabilities;
    use vqscope_video::bitstream::Crop;

    use super::*;

    /// An H.265 Main 10 1080p stream at level 4 with a 5-picture DPB.
    fn main10() -> SequenceInfo {
        SequenceInfo {
            codec: Codec::H265,
            profile_idc: 2,
            profile: "Main 10",
            level_idc: 120,
            chroma: ChromaFormat::Yuv420,
            bit_depth_luma: 10,
            bit_depth_chroma: 10,
            coded_width: 1920,
            coded_height: 1080,
            crop: Crop::default(),
            interlaced: false,
            max_dpb_frames: 5,
            max_num_ref_frames: 4,
        }
    }

    fn offered(max: (u32, u32), slots: u32, level: u32) -> DecodeSupport {
        DecodeSupport::Supported {
            queue_family: 3,
            queue_count: 7,
            capabilities: DecodeCapabilities {
                min_coded_extent: (64, 64),
                max_coded_extent: max,
                max_dpb_slots: slots,
                max_active_reference_pictures: slots - 1,
                max_level_idc: Some(level),
                decode_flags: vk::VideoDecodeCapabilityFlagsKHR::DPB_AND_OUTPUT_COINCIDE,
                bitstream_offset_alignment: 256,
                bitstream_size_alignment: 256,
                std_header_version: vk::make_api_version(0, 1, 0, 0),
            },
        }
    }

    #[test]
    fn offered_but_not_used() {
        assert_eq!(
            verdict(&main10(), "GPU", &offered((8192, 8192), 16, 186)),
            "H.265 Main 10, 4:2:0 10-bit offered by GPU, up to 8192x8192, 16 DPB slots, \
             level 6.2, 7 decode queues — not used yet: vqscope decodes with ffmpeg"
        );
    }

    #[test]
    fn each_limit_says_no() {
        let s = main10();
        assert_eq!(
            verdict(&s, "GPU", &offered((1280, 720), 16, 186)),
            "no — GPU decodes H.265 Main 10, 4:2:0 10-bit from 64x64 to 1280x720, \
             this stream is coded at 1920x1080"
        );
        assert_eq!(
            verdict(&s, "GPU", &offered((4096, 4096), 4, 186)),
            "no — the stream needs 5 DPB slots and 4 references, GPU offers 4 and 3 for \
             H.265 Main 10, 4:2:0 10-bit"
        );
        assert_eq!(
            verdict(&s, "GPU", &offered((4096, 4096), 16, 93)),
            "no — the stream is level 4, GPU decodes H.265 Main 10, 4:2:0 10-bit up to level 3.1"
        );
        assert_eq!(
            verdict(&s, "GPU", &DecodeSupport::NoDecodeQueue),
            "no — GPU has no queue that decodes H.265"
        );
        assert_eq!(
            verdict(
                &s,
                "GPU",
                &DecodeSupport::ProfileNotSupported(
                    vk::Result::ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR
                )
            ),
            "no — GPU does not decode H.265 Main 10, 4:2:0 10-bit \
             (ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR)"
        );
    }

    #[test]
    fn h264_needs_a_slot_beyond_its_dpb() {
        // max_dec_frame_buffering 16 leaves out the picture being decoded.
        let s = SequenceInfo {
            codec: Codec::H264,
            profile_idc: 100,
            profile: "High",
            level_idc: 51,
            max_dpb_frames: 16,
            max_num_ref_frames: 16,
            ..main10()
        };
        let no = verdict(&s, "GPU", &offered((4096, 4096), 16, 51));
        assert!(no.starts_with("no — the stream needs 17 DPB slots and 16 references"), "{no}");
        let yes = verdict(&s, "GPU", &offered((4096, 4096), 17, 51));
        assert!(yes.starts_with("H.264 High, 4:2:0 10-bit offered by GPU"), "{yes}");
    }
}
