//! Compressed inputs decoded on the device (issue 18, phase 2): the door
//! [`crate::open_input`] takes for every file that is not y4m or raw yuv.
//! Where the decode choice allows it and the device and the stream both
//! qualify, the H.264 or H.265 stream is decoded by Vulkan Video
//! ([`crate::device_decode`]) in a worker thread and read as [`Frame`]s like
//! any other input, so the metrics, ladders and batch need no change;
//! otherwise ffmpeg decodes it as before, and the input says why
//! ([`VideoSource::decoded_by`]).
//!
//! Each picture stays on the device: the frame carries its planes
//! ([`FrameData::device`]), which the upload copies device to device and
//! only host readers read back. Reading a frame before the cursor, or past
//! a later seek point, decodes again from the last seek point before it
//! (an IDR picture). The whole Annex B stream is read (and checked) when the
//! input is opened: it is a few percent of the decoded frames' size, and
//! a full check is what lets `auto` choose the device only for streams it
//! will decode to the end.

use std::cell::Cell;
use std::ops::ControlFlow;
use std::path::Path;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender, TrySendError, channel, sync_channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

use vqscope_gpu::{ContextOptions, DecodeProfile, DecodeSupport, GpuContext, vk};

use crate::bitstream::{AnnexBReader, Codec, SequenceInfo};
use crate::device_decode::{
    DecodeSpan, DevicePlanes, DeviceStream, Handover, SeekPoint, SessionSlot, Taken, check_h264,
    check_h265,
};
use crate::error::{Result, Shown, VideoError};
use crate::ffmpeg::{FfmpegSource, FfmpegTools, probe, probe_assumed, probe_color};
use crate::frame::{ChromaFormat, ColorInfo, Frame, Geometry, PixelFormat, Rational};
use crate::frame_data::FrameData;
use crate::input::{Assumed, DecodedBy, SourceInfo, VideoSource};
use crate::parts::{Hand, PartsPlan, decode_from};

/// Decoded pictures a device input holds ahead of its reader: enough to
/// keep the decoder busy while a frame is scored, few enough that memory
/// does not grow with the clip.
const QUEUE: usize = 4;

/// Which decoder reads compressed inputs (`--decode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DecodeChoice {
    /// The device where it decodes the stream, else ffmpeg: the default,
    /// since the device decodes exactly as ffmpeg does and, on the H200,
    /// scores a 4K H.265 pair five times as fast (docs/DECODE.md).
    #[default]
    Auto,
    /// The device, or an error.
    Gpu,
    /// ffmpeg, always.
    Cpu,
}

impl DecodeChoice {
    /// The values `--decode` takes.
    pub const NAMES: [&'static str; 3] = ["auto", "gpu", "cpu"];
}

impl FromStr for DecodeChoice {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "auto" => Ok(DecodeChoice::Auto),
            "gpu" => Ok(DecodeChoice::Gpu),
            "cpu" => Ok(DecodeChoice::Cpu),
            _ => Err(format!("--decode takes auto, gpu or cpu, not {s:?}")),
        }
    }
}

static CHOICE: Mutex<DecodeChoice> = Mutex::new(DecodeChoice::Auto);

/// Sets the decoder every later [`crate::open_input`] of a compressed file
/// takes. It is one setting for the process rather than an argument,
/// because inputs are opened in many places (score, ladders, batch jobs,
/// the scaled distorted path, Python) that all follow one `--decode`.
pub fn set_decode_choice(choice: DecodeChoice) {
    *CHOICE.lock().unwrap_or_else(|e| e.into_inner()) = choice;
}

thread_local! {
    /// A choice for this thread alone while [`with_decode_choice`] runs.
    static SCOPED: Cell<Option<DecodeChoice>> = const { Cell::new(None) };
}

/// Runs `open` with `choice` as this thread's decode choice, whatever the
/// process's: a library caller (Python, where several threads may score at
/// once) chooses per call without changing anyone else's.
pub fn with_decode_choice<T>(choice: DecodeChoice, open: impl FnOnce() -> T) -> T {
    /// Puts the previous choice back, also when `open` unwinds.
    struct Restore(Option<DecodeChoice>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPED.set(self.0);
        }
    }
    let _restore = Restore(SCOPED.replace(Some(choice)));
    open()
}

/// The decoder compressed inputs opened on this thread get now.
pub fn decode_choice() -> DecodeChoice {
    SCOPED.get().unwrap_or_else(|| *CHOICE.lock().unwrap_or_else(|e| e.into_inner()))
}

/// The Vulkan context the decoders run on (or why it could not be made).
static CONTEXT: OnceLock<std::result::Result<Arc<GpuContext>, String>> = OnceLock::new();

/// The decoders' context, made once per process when the first compressed
/// input asks, with the options the commands score with. Inputs are opened
/// before the metrics' context exists, so the metrics take this one when it
/// was made ([`decoding_context`]).
fn decode_context() -> std::result::Result<Arc<GpuContext>, String> {
    CONTEXT
        .get_or_init(|| {
            let options =
                ContextOptions { video_decode: true, ..ContextOptions::from_env_cached() };
            GpuContext::new(&options).map(Arc::new).map_err(|e| format!("no Vulkan device: {e}"))
        })
        .clone()
}

/// The context inputs decoded on the device run on, if one was made: a
/// command that scores or shows them works on it too, so that their
/// pictures never leave the device (pictures of another context are read
/// back and uploaded again).
pub fn decoding_context() -> Option<Arc<GpuContext>> {
    CONTEXT.get().and_then(|made| made.as_ref().ok().cloned())
}

/// Makes inputs opened from now on decode on `ctx`, unless a decoding
/// context exists already: for a caller whose context comes first (the
/// Python package), so that its inputs' pictures stay on its device.
pub fn share_decoding_context(ctx: &Arc<GpuContext>) {
    let _ = CONTEXT.set(Ok(Arc::clone(ctx)));
}

/// Opens a compressed file as the decode choice says: on the device when
/// [`DeviceSource::open`] takes it, else by ffmpeg with the reason kept
/// (`auto`, `cpu`), or an error saying why (`gpu`).
pub(crate) fn open_compressed(path: &Path) -> Result<Box<dyn VideoSource>> {
    let choice = decode_choice();
    let why = match choice {
        DecodeChoice::Cpu => "--decode cpu".to_string(),
        DecodeChoice::Auto | DecodeChoice::Gpu => match DeviceSource::open(path) {
            Ok(source) => return Ok(Box::new(source)),
            Err(reason) if choice == DecodeChoice::Gpu => {
                return Err(VideoError::DeviceRefused { path: Shown::new(path), reason });
            }
            Err(reason) => reason,
        },
    };
    Ok(Box::new(FfmpegSource::open(path)?.decoded_by_ffmpeg_because(why)))
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

/// Whether `device`, offering `support` for the stream's profile, decodes
/// the stream `s` within its limits: "H.264 High, 4:2:0 8-bit on DEVICE",
/// or why not.
fn device_offers(
    s: &SequenceInfo,
    device: &str,
    support: &DecodeSupport,
) -> std::result::Result<String, String> {
    let what = s.describe();
    let c = match support {
        DecodeSupport::MissingExtensions(missing) => {
            return Err(format!(
                "{device} has no video decode queue (it lacks {})",
                missing.join(", ")
            ));
        }
        DecodeSupport::NoDecodeQueue => {
            return Err(format!("{device} has no queue that decodes {}", s.codec.name()));
        }
        DecodeSupport::ProfileNotSupported(result) => {
            return Err(format!("{device} does not decode {what} ({result:?})"));
        }
        DecodeSupport::Supported { capabilities, .. } => capabilities,
    };
    let (max_w, max_h) = c.max_coded_extent;
    let (min_w, min_h) = c.min_coded_extent;
    let (w, h) = (s.coded_width, s.coded_height);
    let level = |idc| s.codec.level_name(idc);
    if w > max_w || h > max_h || w < min_w || h < min_h {
        return Err(format!(
            "{device} decodes {what} from {min_w}x{min_h} to {max_w}x{max_h}, \
             this stream is coded at {w}x{h}"
        ));
    }
    if s.dpb_slots() > c.max_dpb_slots || s.max_num_ref_frames > c.max_active_reference_pictures {
        return Err(format!(
            "the stream needs {} DPB slots and {} references, {device} offers {} and {} for {what}",
            s.dpb_slots(),
            s.max_num_ref_frames,
            c.max_dpb_slots,
            c.max_active_reference_pictures
        ));
    }
    if let Some(max) = c.max_level_idc
        && s.level_idc > max
    {
        return Err(format!(
            "the stream is level {}, {device} decodes {what} up to level {}",
            level(s.level_idc),
            level(max)
        ));
    }
    if !c.decode_flags.contains(vk::VideoDecodeCapabilityFlagsKHR::DPB_AND_OUTPUT_COINCIDE) {
        return Err(format!(
            "{device} writes decoded pictures apart from its DPB, which vqscope does not \
             support yet"
        ));
    }
    Ok(format!("{what} on {device}"))
}

/// An H.264 or H.265 input decoded on the device.
pub struct DeviceSource {
    ctx: Arc<GpuContext>,
    codec: Codec,
    /// The whole Annex B stream, shared with the decode thread.
    stream: Arc<Vec<u8>>,
    info: SourceInfo,
    assumed: Assumed,
    /// "H.264 High, 4:2:0 8-bit on DEVICE".
    what: String,
    /// The running decode, started by the first read.
    worker: Option<Worker>,
    /// Index `next_frame` returns next.
    cursor: u64,
    /// The decode has ended (or failed): nothing more comes.
    ended: bool,
    /// Where a decode can start (the stream's start among them).
    seek_points: Vec<SeekPoint>,
    _open: OpenInput,
}

/// The decode thread, which parses the stream once and then decodes from
/// each start it is sent, and the pictures the current decode hands over.
struct Worker {
    starts: Option<Sender<Start>>,
    frames: Receiver<Result<Option<Frame>>>,
    thread: Option<JoinHandle<()>>,
}

/// A decode to run: from seek point `from`, its frames sent to `frames`.
struct Start {
    from: SeekPoint,
    frames: SyncSender<Result<Option<Frame>>>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the queue makes the thread's next hand-over fail, which
        // stops the decode after the picture in flight; with no more starts
        // to come, the thread then ends.
        let (_, closed) = sync_channel(0);
        drop(std::mem::replace(&mut self.frames, closed));
        drop(self.starts.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl DeviceSource {
    /// Opens `path` for decoding on the device, or says why it is not
    /// (a reason that reads after "decoded by ffmpeg: "): neither H.264 nor
    /// H.265, not progressive 8-bit 4:2:0 (H.264) or 8- or 10-bit 4:2:0
    /// (H.265), beyond the device's decoder, or using what the device path
    /// does not handle yet (checked over the whole stream).
    pub fn open(path: &Path) -> std::result::Result<Self, String> {
        // The Vulkan context takes longer to make than the stream takes to
        // read: it is made meanwhile (a command works on it either way, see
        // [`decoding_context`]), and ready when this returns.
        std::thread::scope(|scope| {
            if CONTEXT.get().is_none() {
                scope.spawn(|| {
                    let _ = decode_context();
                });
            }
            Self::open_on_context(path)
        })
    }

    fn open_on_context(path: &Path) -> std::result::Result<Self, String> {
        let tools = FfmpegTools::default();
        let text = |e: VideoError| e.to_string();
        // ffprobe gives colour and frame rate; for a raw stream without
        // ffmpeg installed they stay the defaults.
        let probed = probe(path, &tools);
        let (codec, container) = match Codec::from_extension(path) {
            Some(codec) => (codec, None),
            None => {
                let p = probed.as_ref().map_err(|e| e.to_string())?;
                let codec = Codec::from_ffprobe_name(&p.codec).ok_or_else(|| {
                    format!("{} video: the device decodes H.264 and H.265 only", p.codec)
                })?;
                (codec, Some(p.format_name.split(',').next().unwrap_or("").to_string()))
            }
        };
        let mut reader =
            AnnexBReader::open(path, codec, container.is_some(), &tools).map_err(text)?;
        let sequence = reader.parameter_sets().map_err(text)?.sequence;
        let (depth_luma, depth_chroma) = (sequence.bit_depth_luma, sequence.bit_depth_chroma);
        let (takes, only) = match codec {
            Codec::H264 => (!sequence.interlaced && depth_luma == 8, "progressive 8-bit 4:2:0"),
            Codec::H265 => (matches!(depth_luma, 8 | 10), "8- or 10-bit 4:2:0"),
        };
        if !takes || sequence.chroma != ChromaFormat::Yuv420 || depth_luma != depth_chroma {
            return Err(format!("{}: the device path takes {only} only", sequence.describe()));
        }
        let ctx = decode_context()?;
        let support = ctx
            .video_decode_support(&decode_profile(&sequence))
            .map_err(|e| format!("the device could not be asked: {e}"))?;
        let what = device_offers(&sequence, &ctx.info().name, &support)?;
        let stream = reader
            .read_all(MAX_STREAM_BYTES)
            .map_err(text)?
            .ok_or_else(|| too_long(path).to_string())?;
        let summary = match codec {
            Codec::H264 => check_h264(&stream),
            Codec::H265 => check_h265(&stream),
        }
        .map_err(|e| e.to_string())?;
        let (width, height) = summary.sequence.display_size();
        let (color, assumed, frame_rate) = match &probed {
            Ok(p) => {
                let assumed = Assumed { frame_rate: p.frame_rate.is_none(), ..probe_assumed(p) };
                (probe_color(p), assumed, p.frame_rate.unwrap_or(Rational::new(25, 1)))
            }
            Err(_) => (ColorInfo::default(), Assumed::ALL, Rational::new(25, 1)),
        };
        // ffmpeg's name of the codec, as descriptions of its inputs say it.
        let name = match codec {
            Codec::H264 => "h264",
            Codec::H265 => "hevc",
        };
        let description = match container {
            Some(container) => format!("{name} in {container}, decoded on the device"),
            None => format!("{name} (Annex B), decoded on the device"),
        };
        let info = SourceInfo {
            path: path.to_path_buf(),
            geometry: Geometry {
                width,
                height,
                format: PixelFormat {
                    chroma: ChromaFormat::Yuv420,
                    bit_depth: summary.sequence.bit_depth_luma,
                },
            },
            color,
            frame_rate,
            frame_count: Some(summary.pictures),
            seekable: false,
            description,
            scaled_from: None,
            frames_at: None,
        };
        // Said where a decode from the start splits into parts.
        let (gops, workers) = (summary.seek_points.len(), decode_workers(&ctx));
        let what = match workers.min(gops) {
            at_once if at_once > 1 => {
                format!("{what}; {gops} GOPs, {at_once} decoded at once")
            }
            _ => what,
        };
        Ok(DeviceSource {
            ctx,
            codec,
            stream: Arc::new(stream),
            info,
            assumed,
            what,
            worker: None,
            cursor: 0,
            ended: false,
            seek_points: summary.seek_points,
            _open: OpenInput::new(),
        })
    }

    /// Starts decoding at `from`, one of `seek_points`: the decode running
    /// stops at its next hand-over, and the thread (started by the first
    /// call) decodes from `from`.
    fn start(&mut self, from: SeekPoint) -> Result<()> {
        let (sender, frames) = sync_channel(QUEUE);
        let start = Start { from, frames: sender };
        let worker = match self.worker.take() {
            Some(mut worker) => {
                // The old queue closes here, before the new start is sent.
                worker.frames = frames;
                worker
            }
            None => self.spawn(frames)?,
        };
        let sent = worker.starts.as_ref().is_some_and(|starts| starts.send(start).is_ok());
        self.worker = Some(worker);
        if !sent {
            return Err(decode_error(
                &self.info.path,
                Some(from.frame),
                "the decode thread ended".into(),
            ));
        }
        self.cursor = from.frame;
        self.ended = false;
        Ok(())
    }

    /// The decode thread, waiting for its first start.
    fn spawn(&self, frames: Receiver<Result<Option<Frame>>>) -> Result<Worker> {
        let (starts, started) = channel::<Start>();
        let (stream, codec) = (self.stream.clone(), self.codec);
        let job = Decoding {
            ctx: self.ctx.clone(),
            geometry: self.info.geometry,
            color: self.info.color,
            path: self.info.path.clone(),
            count: self.info.frame_count.unwrap_or(0),
            seek_points: self.seek_points.clone(),
            workers: decode_workers(&self.ctx),
        };
        let thread = std::thread::Builder::new()
            .name("device decode".into())
            .spawn(move || {
                let parsed = match codec {
                    Codec::H264 => DeviceStream::h264(&job.ctx, &stream),
                    Codec::H265 => DeviceStream::h265(&job.ctx, &stream),
                }
                .map_err(|e| e.to_string());
                // One session for this thread's decodes, whichever seek point each starts at.
                let mut session = SessionSlot::default();
                while let Ok(Start { from, frames }) = started.recv() {
                    let last = job.run(parsed.as_ref(), &mut session, from, &frames);
                    let _ = frames.send(last);
                }
            })
            .map_err(|e| decode_error(&self.info.path, None, format!("no decode thread: {e}")))?;
        Ok(Worker { starts: Some(starts), frames, thread: Some(thread) })
    }

    fn out_of_range(&self, frame: u64) -> VideoError {
        VideoError::FrameOutOfRange {
            path: Shown::new(&self.info.path),
            frame,
            count: self.info.frame_count.unwrap_or(self.cursor),
        }
    }
}

fn decode_error(path: &Path, frame: Option<u64>, message: String) -> VideoError {
    VideoError::DeviceDecode { path: Shown::new(path), frame, message }
}

/// The share of the device's memory that pictures decoded ahead may take,
/// for all device inputs together: a decode split into parts holds each
/// part's pictures until the reader comes to them.
const AHEAD_SHARE_OF_MEMORY: u64 = 8;

/// Device inputs open now: each decode's share of the memory for pictures
/// decoded ahead is divided by their number when it starts.
static OPEN_INPUTS: AtomicUsize = AtomicUsize::new(0);

/// Counts a device input in [`OPEN_INPUTS`] while it lives.
struct OpenInput;

impl OpenInput {
    fn new() -> Self {
        OPEN_INPUTS.fetch_add(1, Ordering::Relaxed);
        OpenInput
    }
}

impl Drop for OpenInput {
    fn drop(&mut self) {
        OPEN_INPUTS.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `VQSCOPE_DECODE_WORKERS`: how many parts of a stream decode at once, at
/// most (1: one decode at a time). Anything but a whole number from 1 up
/// leaves the default, as many as the device's decode queues: on the H200
/// with each worker keeping its session from part to part (docs/DECODE.md,
/// twelfth session) a 4K H.265 stream decodes at 593-621 pictures a second
/// in parts against 323-354 in one piece, and a 1080p H.264 one at 1,141-1,216.
fn decode_workers(ctx: &GpuContext) -> usize {
    match std::env::var("VQSCOPE_DECODE_WORKERS").ok().and_then(|v| v.parse::<usize>().ok()) {
        Some(n) if n >= 1 => n,
        _ => ctx.decode_queue_count().max(1),
    }
}

/// What a decode thread knows of its input.
struct Decoding {
    ctx: Arc<GpuContext>,
    geometry: Geometry,
    color: ColorInfo,
    path: PathBuf,
    /// Frames the stream shows.
    count: u64,
    seek_points: Vec<SeekPoint>,
    /// Parts decoded at once, at most.
    workers: usize,
}

impl Decoding {
    /// Decodes `stream` (or says why it could not be parsed) from seek
    /// point `from`, handing each frame to `frames` until nobody reads
    /// them; returns what ends the queue: the end, or the failure.
    fn run(
        &self,
        stream: std::result::Result<&DeviceStream<'_>, &String>,
        session: &mut SessionSlot,
        from: SeekPoint,
        frames: &SyncSender<Result<Option<Frame>>>,
    ) -> Result<Option<Frame>> {
        let mut index = from.frame;
        let mut wrong = None;
        let mut take = |planes: Arc<DevicePlanes>, how: Handover| {
            let frame = match device_frame(planes.clone(), self.geometry, self.color, index) {
                Ok(frame) => frame,
                Err(message) => {
                    wrong = Some(message);
                    return Ok(ControlFlow::Break(()));
                }
            };
            let sent = match how {
                Handover::Wait => frames.send(Ok(Some(frame))).is_ok(),
                Handover::Offer => match frames.try_send(Ok(Some(frame))) {
                    Ok(()) => true,
                    Err(TrySendError::Full(_)) => return Err(planes),
                    Err(TrySendError::Disconnected(_)) => false,
                },
            };
            index += 1;
            Ok(if sent { ControlFlow::Continue(()) } else { ControlFlow::Break(()) })
        };
        let result = match stream {
            Ok(stream) => self.decode(stream, session, from, &mut take),
            Err(e) => Err(e.clone()),
        };
        // Fewer pictures than the stream holds is a failure too (a closed
        // queue ends early as well, but nobody reads then).
        let failure = match result {
            Err(e) => Some(e),
            Ok(()) if wrong.is_some() => wrong,
            Ok(()) if index < self.count => {
                Some(format!("the decoder gave {index} of the stream's {} pictures", self.count))
            }
            Ok(()) => None,
        };
        match failure {
            Some(message) => Err(decode_error(&self.path, Some(index), message)),
            None => Ok(None),
        }
    }

    /// The decode from `from` ([`decode_from`]) on the parsed stream, in one
    /// piece on `session` or in parts, each worker with a session of its own
    /// for all its parts; what is decoded ahead bounded by
    /// [`AHEAD_SHARE_OF_MEMORY`] shared by the device inputs open.
    fn decode(
        &self,
        stream: &DeviceStream<'_>,
        session: &mut SessionSlot,
        from: SeekPoint,
        take: &mut dyn FnMut(Arc<DevicePlanes>, Handover) -> Taken<Arc<DevicePlanes>>,
    ) -> std::result::Result<(), String> {
        let inputs = OPEN_INPUTS.load(Ordering::Relaxed).max(1) as u64;
        let budget = self.ctx.device_local_bytes() / AHEAD_SHARE_OF_MEMORY / inputs;
        let frame = self.geometry.frame_bytes().max(1) as u64;
        // At least what the reader's queue holds.
        let ahead = |workers: usize| ((budget / frame / workers as u64) as usize).max(QUEUE);
        let plan = PartsPlan {
            seek_points: &self.seek_points,
            from,
            end: stream.pictures(),
            shown: self.count,
            workers: self.workers,
        };
        let decode_span =
            |span: &DecodeSpan, slot: &mut SessionSlot, hand: &mut Hand<'_, Arc<DevicePlanes>>| {
                stream
                    .decode_to_planes(slot, span, |_, planes, how| hand(planes, how))
                    .map(drop)
                    .map_err(|e| e.to_string())
            };
        decode_from(&plan, session, ahead, decode_span, take)
    }
}

/// Whether picture `index`, `width` x `height`, has the input's size.
fn check_size(
    (width, height): (u32, u32),
    geometry: Geometry,
    index: u64,
) -> std::result::Result<(), String> {
    if (width, height) != (geometry.width, geometry.height) {
        return Err(format!(
            "picture {index} is {width}x{height}, the stream started at {}x{}",
            geometry.width, geometry.height
        ));
    }
    Ok(())
}

/// A picture decoded on the device as the frame `index` of an input of
/// `geometry`; its planes stay there.
fn device_frame(
    picture: Arc<DevicePlanes>,
    geometry: Geometry,
    color: ColorInfo,
    index: u64,
) -> std::result::Result<Frame, String> {
    check_size((picture.width, picture.height), geometry, index)?;
    Ok(Frame { geometry, color, index, data: FrameData::device(picture) })
}

/// The largest stream the device path takes: it holds the whole Annex B
/// stream in memory (streaming it is the next step), so a longer one is
/// left to ffmpeg.
const MAX_STREAM_BYTES: u64 = 1 << 30;

/// Why a stream over [`MAX_STREAM_BYTES`] goes to ffmpeg.
fn too_long(path: &Path) -> VideoError {
    VideoError::Unsupported {
        path: Shown::new(path),
        reason: "its video stream is over 1 GiB, and the device path holds a whole stream in \
                 memory for now"
            .into(),
    }
}

impl VideoSource for DeviceSource {
    fn info(&self) -> &SourceInfo {
        &self.info
    }

    fn assumed(&self) -> Assumed {
        self.assumed
    }

    fn decoded_by(&self) -> Option<DecodedBy> {
        Some(DecodedBy::Device(self.what.clone()))
    }

    fn read_frame(&mut self, index: u64) -> Result<Frame> {
        if self.info.frame_count.is_some_and(|n| index >= n) {
            return Err(self.out_of_range(index));
        }
        // Backwards, after a failure (which then comes again), or past a
        // seek point ahead: decode again from the last seek point at or
        // before `index` (the stream is held).
        let from = self
            .seek_points
            .iter()
            .rev()
            .find(|p| p.frame <= index)
            .copied()
            .unwrap_or(SeekPoint::START);
        if index < self.cursor || self.ended || from.frame > self.cursor {
            self.start(from)?;
        }
        while self.cursor < index {
            if self.next_frame()?.is_none() {
                return Err(self.out_of_range(index));
            }
        }
        self.next_frame()?.ok_or_else(|| self.out_of_range(index))
    }

    fn next_frame(&mut self) -> Result<Option<Frame>> {
        if self.ended {
            return Ok(None);
        }
        if self.worker.is_none() {
            self.start(SeekPoint::START)?;
        }
        let worker = self.worker.as_ref().expect("started above");
        let got = worker.frames.recv().unwrap_or_else(|_| {
            Err(decode_error(
                &self.info.path,
                Some(self.cursor),
                "the decode thread stopped without finishing".into(),
            ))
        });
        match got {
            Ok(Some(f)) => {
                self.cursor += 1;
                Ok(Some(f))
            }
            Ok(None) => {
                self.ended = true;
                Ok(None)
            }
            Err(e) => {
                self.ended = true;
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use vqscope_gpu::DecodeCapabilities;

    use super::*;
    use crate::bitstream::Crop;

    /// The decode thread's failure on a device without a decode queue
    /// (lavapipe): a read error of the input naming the frame, then the
    /// end; never a panic or a hang. A device with one decodes instead
    /// (the ignored tests in `tests/h264_device_decode.rs` cover that).
    #[test]
    fn a_failing_decode_is_a_read_error() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/bitstream/h264_main_cavlc_poc2_352x288.h264");
        let stream = std::fs::read(&path).unwrap();
        let summary = check_h264(&stream).unwrap();
        assert_eq!(summary.pictures, 20);
        let ctx = decode_context().unwrap();
        let support = ctx.video_decode_support(&decode_profile(&summary.sequence)).unwrap();
        if matches!(support, DecodeSupport::Supported { .. }) {
            return;
        }
        let (width, height) = summary.sequence.display_size();
        let mut source = DeviceSource {
            ctx,
            codec: Codec::H264,
            stream: Arc::new(stream),
            info: SourceInfo {
                path: path.clone(),
                geometry: Geometry {
                    width,
                    height,
                    format: PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth: 8 },
                },
                color: ColorInfo::default(),
                frame_rate: Rational::new(25, 1),
                frame_count: Some(summary.pictures),
                seekable: false,
                description: String::new(),
                scaled_from: None,
                frames_at: None,
            },
            assumed: Assumed::ALL,
            what: String::new(),
            worker: None,
            cursor: 0,
            ended: false,
            seek_points: summary.seek_points,
            _open: OpenInput::new(),
        };
        let e = source.read_frame(0).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "{}: decoding on the device failed at frame 0: ",
                path.display()
            )) && e.ends_with("has no H.264 video decode queue"),
            "{e}"
        );
        assert!(source.next_frame().unwrap().is_none());
        // Asked again, the decode starts over and fails the same way.
        assert_eq!(source.read_frame(0).unwrap_err().to_string(), e);
    }

    #[test]
    fn choices() {
        for name in DecodeChoice::NAMES {
            assert!(name.parse::<DecodeChoice>().is_ok());
        }
        assert_eq!("gpu".parse(), Ok(DecodeChoice::Gpu));
        assert_eq!(
            "GPU".parse::<DecodeChoice>(),
            Err("--decode takes auto, gpu or cpu, not \"GPU\"".into())
        );
    }

    #[test]
    fn a_scoped_choice_holds_on_its_thread_only_and_is_restored() {
        let process = decode_choice();
        let inner = with_decode_choice(DecodeChoice::Gpu, || {
            let other = std::thread::spawn(decode_choice).join().unwrap();
            let nested = with_decode_choice(DecodeChoice::Auto, decode_choice);
            (decode_choice(), other, nested)
        });
        assert_eq!(inner, (DecodeChoice::Gpu, process, DecodeChoice::Auto));
        assert_eq!(decode_choice(), process);
        let unwound = std::panic::catch_unwind(|| {
            with_decode_choice(DecodeChoice::Auto, || panic!("open failed"));
        });
        assert!(unwound.is_err());
        assert_eq!(decode_choice(), process);
    }

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
    fn offered_within_the_limits() {
        assert_eq!(
            device_offers(&main10(), "GPU", &offered((8192, 8192), 16, 186)),
            Ok("H.265 Main 10, 4:2:0 10-bit on GPU".into())
        );
    }

    #[test]
    fn each_limit_says_no() {
        let s = main10();
        let no = |support| device_offers(&s, "GPU", &support).unwrap_err();
        assert_eq!(
            no(offered((1280, 720), 16, 186)),
            "GPU decodes H.265 Main 10, 4:2:0 10-bit from 64x64 to 1280x720, \
             this stream is coded at 1920x1080"
        );
        assert_eq!(
            no(offered((4096, 4096), 4, 186)),
            "the stream needs 5 DPB slots and 4 references, GPU offers 4 and 3 for \
             H.265 Main 10, 4:2:0 10-bit"
        );
        assert_eq!(
            no(offered((4096, 4096), 16, 93)),
            "the stream is level 4, GPU decodes H.265 Main 10, 4:2:0 10-bit up to level 3.1"
        );
        assert_eq!(no(DecodeSupport::NoDecodeQueue), "GPU has no queue that decodes H.265");
        assert_eq!(
            no(DecodeSupport::ProfileNotSupported(
                vk::Result::ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR
            )),
            "GPU does not decode H.265 Main 10, 4:2:0 10-bit \
             (ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR)"
        );
        let mut distinct = offered((4096, 4096), 16, 186);
        if let DecodeSupport::Supported { capabilities, .. } = &mut distinct {
            capabilities.decode_flags = vk::VideoDecodeCapabilityFlagsKHR::DPB_AND_OUTPUT_DISTINCT;
        }
        assert!(no(distinct).contains("apart from its DPB"));
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
        let no = device_offers(&s, "GPU", &offered((4096, 4096), 16, 51)).unwrap_err();
        assert!(no.starts_with("the stream needs 17 DPB slots and 16 references"), "{no}");
        let yes = device_offers(&s, "GPU", &offered((4096, 4096), 17, 51)).unwrap();
        assert_eq!(yes, "H.264 High, 4:2:0 10-bit on GPU");
    }
}
