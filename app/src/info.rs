//! `vqscope info FILE...`: what vqscope sees in each input, and for the
//! compressed ones whether the Vulkan device decodes them (issue 18): the
//! decoder `--decode auto` picks, and why not the device when ffmpeg
//! decodes.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use vqscope_video::raw::RawGeometry;
use vqscope_video::source::{check_stream_inputs, open_input};
use vqscope_video::{ChromaFormat, DecodedBy, VideoSource};

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
    if let [file] = files.as_slice() {
        // One input: its error is the one line.
        let source = open_input(file, geometry)?;
        return print(source.as_ref());
    }
    let mut failed = 0;
    for file in files {
        match open_input(file, geometry) {
            Ok(source) => print(source.as_ref())?,
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

/// The input's description, and for compressed inputs the device decode
/// line: whether the device decodes it (as `--decode auto` does), or why
/// ffmpeg does.
fn print(source: &dyn VideoSource) -> Result<()> {
    outln!("{}", source.info().display(source.assumed()))?;
    match source.decoded_by() {
        Some(DecodedBy::Device(what)) => outln!("  device decode: yes — {what}")?,
        Some(DecodedBy::Ffmpeg(Some(why))) => outln!("  device decode: no — {why}")?,
        Some(DecodedBy::Ffmpeg(None)) => outln!("  device decode: no")?,
        None => {}
    }
    Ok(())
}
