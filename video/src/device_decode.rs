//! H.264 and H.265 Annex B streams decoded on the device (Vulkan Video,
//! issue 18): the stream is split into NAL units and parsed here
//! (parameter sets, slice headers, POC, reference marking, output order:
//! `bitstream`), and each picture is decoded by the `gpu` crate's
//! [`DecodeSession`], then handed out in display order with its planes
//! cropped: read back to the host ([`decode_h264_until`],
//! [`decode_h265_until`]), or kept on the device as planes the metrics read
//! ([`decode_h264_to_planes`]).
//!
//! H.264: progressive 8-bit 4:2:0 streams without frame_num gaps. H.265
//! (`device_decode_h265`): Main and Main 10 without range extension tools.

use std::collections::{HashMap, VecDeque};
use std::ops::{ControlFlow, Range};
use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::vk::native::{
    StdVideoDecodeH264PictureInfo, StdVideoDecodeH264PictureInfoFlags,
    StdVideoDecodeH264ReferenceInfo, StdVideoDecodeH264ReferenceInfoFlags,
    StdVideoH264PictureParameterSet, StdVideoH264PpsFlags, StdVideoH264ScalingLists,
    StdVideoH264SequenceParameterSet, StdVideoH264SpsFlags,
};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, DECODE_IN_FLIGHT, DecodePicture, DecodeSession, GpuContext,
    GpuError, H264ParameterSets, H264Picture, H264Pps, H264Reference, H264Sps, Nv12Picture,
    PipelineDesc, Recorder, SessionCodec, Submitter, download_buffer, h264_std_level,
};

use crate::PlaneLayout;
use crate::bitstream::ParseError;
use crate::bitstream::h264::{ScalingLists, Sps};
use crate::bitstream::h264_dpb::{Dpb, PicturePlan, Reference};
use crate::bitstream::h264_slice::{Pps, SliceHeader};
use crate::bitstream::h264_stream::H264Stream;
use crate::bitstream::{Crop, SequenceInfo};
use crate::device_decode_h265::H265Plan;

/// Why a stream could not be decoded on the device.
#[derive(Debug, thiserror::Error)]
pub enum DeviceDecodeError {
    #[error("H.264 stream: {0}")]
    Stream(#[from] ParseError),
    #[error("H.265 stream: {0}")]
    H265Stream(ParseError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// A decoded picture, cropped to the display size: planes Y, U, V (4:2:0),
/// rows tight; 8-bit samples, or for 10-bit pictures (`bytes_per_sample`
/// 2) 16-bit little-endian words holding 0 to 1023, as y4m lays them out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedPicture {
    /// Position in display order, from 0.
    pub number: u64,
    pub width: u32,
    pub height: u32,
    pub bytes_per_sample: u32,
    pub y: Vec<u8>,
    pub u: Vec<u8>,
    pub v: Vec<u8>,
}

/// Decodes an H.264 Annex B stream on `ctx`'s decode queue and hands each
/// picture to `emit` in display order, read back to the host. Returns the
/// number of pictures.
pub fn decode_h264(
    ctx: &Arc<GpuContext>,
    stream: &[u8],
    mut emit: impl FnMut(DecodedPicture),
) -> Result<u64, DeviceDecodeError> {
    decode_h264_until(ctx, stream, |picture| {
        emit(picture);
        ControlFlow::Continue(())
    })
}

/// [`decode_h264`] for a consumer that may stop early (an input closed
/// before its end): decoding stops once `emit` breaks.
pub fn decode_h264_until(
    ctx: &Arc<GpuContext>,
    stream: &[u8],
    emit: impl FnMut(DecodedPicture) -> ControlFlow<()>,
) -> Result<u64, DeviceDecodeError> {
    decode_until(ctx, &H264Plan::new(stream)?, emit)
}

/// Decodes an H.265 (Main or Main 10) Annex B stream on `ctx`'s decode
/// queue and hands each picture to `emit` in display order, read back to
/// the host, until `emit` breaks. Returns the number of pictures.
pub fn decode_h265_until(
    ctx: &Arc<GpuContext>,
    stream: &[u8],
    emit: impl FnMut(DecodedPicture) -> ControlFlow<()>,
) -> Result<u64, DeviceDecodeError> {
    let plan = H265Plan::new(stream).map_err(DeviceDecodeError::H265Stream)?;
    decode_until(ctx, &plan, emit)
}

/// The host read-back loop of either codec, pictures in flight.
fn decode_until(
    ctx: &Arc<GpuContext>,
    plan: &impl CodecPlan,
    mut emit: impl FnMut(DecodedPicture) -> ControlFlow<()>,
) -> Result<u64, DeviceDecodeError> {
    decode_with(
        plan.session(ctx)?,
        plan,
        &DecodeSpan::rest(SeekPoint::START, plan.len() as u64),
        DECODE_IN_FLIGHT - 1,
        |session, _, picture, info| Ok((session.submit(picture)?, info.crop, info.display_size())),
        |session, (ticket, area, size)| Ok(crop(&session.collect(ticket)?, &area, size)),
        |number, mut picture, _| {
            picture.number = number;
            Ok(emit(picture))
        },
    )
}

/// What [`check_h264`] or [`check_h265`] found in a stream the device can
/// decode.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamSummary {
    /// The sequence's values (every SPS agrees on them).
    pub sequence: SequenceInfo,
    /// Pictures the decode outputs: for H.264 every picture of the stream;
    /// for H.265 those not skipped (RASL pictures of a CRA that starts the
    /// stream) nor dropped (`pic_output_flag` 0, `no_output_of_prior_pics`).
    pub pictures: u64,
    /// Where a decode can start ([`SeekPoint::START`] among them), in
    /// order: IDR pictures, and CRA or BLA pictures (H.265) whose skipped
    /// leading pictures show before them, when every earlier picture shows
    /// before the first frame a decode from there shows.
    pub seek_points: Vec<SeekPoint>,
}

/// A picture a decode can start at with an empty DPB, the pictures from
/// there on coming out as in the decode of the whole stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeekPoint {
    /// The display number of the first frame a decode from here shows.
    pub frame: u64,
    /// The picture (decoding position) the decode starts at.
    pub picture: u64,
    /// Where a decode of the pictures before it stops, having shown every
    /// frame before `frame`: `picture` for an IDR picture; after the last
    /// leading picture a decode from here skips (a CRA picture's RASL
    /// pictures, which show before it and predict from pictures before
    /// it), so that such a decode runs on over the CRA picture and them.
    pub leading_end: u64,
}

impl SeekPoint {
    /// The stream's first picture.
    pub const START: SeekPoint = SeekPoint { frame: 0, picture: 0, leading_end: 0 };
}

/// What one decode covers: pictures in decoding order from a seek point,
/// and the frames it shows, numbered from `first_frame`; it stops after
/// `frames` (the frames a later decode shows from the next seek point on
/// are not its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeSpan {
    pub pictures: Range<u64>,
    pub first_frame: u64,
    pub frames: u64,
}

impl DecodeSpan {
    /// From `from` to the end of a stream of `pictures` pictures.
    pub fn rest(from: SeekPoint, pictures: u64) -> DecodeSpan {
        DecodeSpan { pictures: from.picture..pictures, first_frame: from.frame, frames: u64::MAX }
    }

    /// From `from` to the later seek point `to`: every frame before
    /// `to.frame`.
    pub fn between(from: SeekPoint, to: SeekPoint) -> DecodeSpan {
        DecodeSpan {
            pictures: from.picture..to.leading_end,
            first_frame: from.frame,
            frames: to.frame - from.frame,
        }
    }
}

/// Checks, without a device, that [`decode_h264`] takes every part of
/// `stream`: the parameter sets (all of them, not only the first), the
/// slice headers, and the reference marking and output order of every
/// picture (a frame_num gap shows only there). An `Ok` here leaves only
/// device errors to the decode itself, which is what lets `--decode auto`
/// choose the device before decoding anything.
pub fn check_h264(stream: &[u8]) -> Result<StreamSummary, DeviceDecodeError> {
    let parsed = H264Stream::parse(stream)?;
    let (first, sequence) = supported_sequence(&parsed)?;
    for s in parsed.sps.values() {
        std_sps(s)?;
    }
    let mut dpb = Dpb::new(first.max_num_ref_frames.max(1) + 1, sequence.max_dpb_frames);
    let mut shown = Vec::with_capacity(parsed.pictures.len());
    for slices in &parsed.pictures {
        let (header, _) = &slices[0];
        shown.extend(dpb.picture(header, parsed.sps_of(header))?.output);
    }
    shown.extend(dpb.flush());
    let pictures = parsed.pictures.len();
    let seek_points =
        seek_points(&shown, pictures, |i| parsed.pictures[i][0].0.idr().then(Vec::new));
    Ok(StreamSummary { sequence, pictures: pictures as u64, seek_points })
}

/// Where a decode can start, given the decoding positions of the pictures
/// `shown` in output order (of `pictures` in all) and, for each picture a
/// decode may start at with an empty DPB, the leading pictures such a
/// decode skips (`skipped`: none for an IDR picture; a CRA picture's RASL
/// pictures). Picture `i` is a seek point when the pictures before it and
/// those it skips show exactly the first `n` frames, in any order: a
/// decode from it then shows frames `n` on as the whole decode does.
fn seek_points(
    shown: &[u64],
    pictures: usize,
    skipped: impl Fn(usize) -> Option<Vec<u64>>,
) -> Vec<SeekPoint> {
    let mut frame_of = vec![None; pictures];
    for (frame, &picture) in shown.iter().enumerate() {
        if let Some(slot) = frame_of.get_mut(picture as usize) {
            *slot = Some(frame as u64);
        }
    }
    let mut points = vec![SeekPoint::START];
    // Frames the pictures before `i` show: how many, and the last.
    let (mut before, mut last_before) = (0u64, None);
    for i in 0..pictures {
        if let Some(skipped) = (i > 0).then(|| skipped(i)).flatten() {
            let frames: Vec<u64> = skipped.iter().filter_map(|&j| frame_of[j as usize]).collect();
            let count = before + frames.len() as u64;
            let last = frames.iter().copied().max().max(last_before);
            if count > 0 && last < Some(count) {
                let leading_end = skipped.iter().map(|&j| j + 1).max().unwrap_or(i as u64);
                points.push(SeekPoint { frame: count, picture: i as u64, leading_end });
            }
        }
        if let Some(frame) = frame_of[i] {
            before += 1;
            last_before = last_before.max(Some(frame));
        }
    }
    points
}

/// [`check_h264`] for H.265 Main and Main 10: every parameter set is one
/// the device session takes (4:2:0, 8 or 10 bits, no range extension
/// tools, one profile and size), every slice segment
/// header parses, and the reference picture sets and output of every
/// picture run through the DPB (a picture predicting from one that is not
/// there shows only there).
pub fn check_h265(stream: &[u8]) -> Result<StreamSummary, DeviceDecodeError> {
    check_h265_stream(stream).map_err(DeviceDecodeError::H265Stream)
}

fn check_h265_stream(stream: &[u8]) -> Result<StreamSummary, ParseError> {
    let plan = H265Plan::new(stream)?;
    let sequence = plan.info.clone();
    let shown = plan.output_order()?;
    let seek_points = seek_points(&shown, plan.len(), |i| plan.skipped_leading(i));
    Ok(StreamSummary { sequence, pictures: shown.len() as u64, seek_points })
}

/// A decoded picture's three planes in a device buffer, cropped: 8-bit
/// samples or 16-bit words, rows tight, as [`crate::PlaneLayout`]s describe
/// them.
pub struct DevicePlanes {
    pub buffer: Buffer,
    pub width: u32,
    pub height: u32,
    pub planes: [PlaneLayout; 3],
}

impl DevicePlanes {
    /// The planes read back to the host, one after the other with rows
    /// tight: a [`crate::Frame`]'s bytes. Waits for earlier work.
    pub fn to_host(&self) -> vqscope_gpu::Result<Vec<u8>> {
        let ctx = self.buffer.context();
        let mut submitter = Submitter::new(ctx, 1)?;
        let bytes = download_buffer(ctx, &mut submitter, &self.buffer, self.buffer.size())?;
        let mut tight = Vec::with_capacity(self.frame_bytes());
        for plane in &self.planes {
            let start = plane.offset as usize;
            tight.extend_from_slice(&bytes[start..start + plane_bytes(plane)]);
        }
        Ok(tight)
    }

    /// Bytes of the planes with rows tight (what [`DevicePlanes::to_host`]
    /// gives).
    pub fn frame_bytes(&self) -> usize {
        self.planes.iter().map(plane_bytes).sum()
    }
}

/// Bytes of one plane with rows tight.
fn plane_bytes(plane: &PlaneLayout) -> usize {
    (plane.width * plane.height * plane.bytes_per_sample) as usize
}

/// Like [`decode_h264_until`], but the pictures stay on the device: each
/// is copied from the decoder's image into a device buffer and turned into
/// three planes by a compute pass ([`Nv12ToPlanes`]) in the same
/// submission, with pictures in flight as for the host. `emit` gets the
/// display number too, and each picture once the work writing its planes
/// is submitted on the context's queue: work submitted there later sees
/// them (a read-back waits for them).
///
/// `from` is where to start, one of [`StreamSummary::seek_points`] (a
/// decode from a picture no DPB can start at is refused); the frames are
/// numbered from its `frame`, their display numbers.
pub fn decode_h264_to_planes(
    ctx: &Arc<GpuContext>,
    stream: &[u8],
    from: SeekPoint,
    emit: impl FnMut(u64, Arc<DevicePlanes>) -> ControlFlow<()>,
) -> Result<u64, DeviceDecodeError> {
    let stream = DeviceStream::h264(ctx, stream)?;
    let span = DecodeSpan::rest(from, stream.pictures());
    stream.decode_to_planes(&mut SessionSlot::default(), &span, taking_all(emit))
}

/// [`decode_h264_to_planes`] for H.265 Main and Main 10 (10-bit planes of
/// 16-bit words).
pub fn decode_h265_to_planes(
    ctx: &Arc<GpuContext>,
    stream: &[u8],
    from: SeekPoint,
    emit: impl FnMut(u64, Arc<DevicePlanes>) -> ControlFlow<()>,
) -> Result<u64, DeviceDecodeError> {
    let stream = DeviceStream::h265(ctx, stream)?;
    let span = DecodeSpan::rest(from, stream.pictures());
    stream.decode_to_planes(&mut SessionSlot::default(), &span, taking_all(emit))
}

/// A hand-over for `emit`, which takes every picture it is offered (and
/// should not block long: see [`Handover`]).
fn taking_all<T>(
    mut emit: impl FnMut(u64, T) -> ControlFlow<()>,
) -> impl FnMut(u64, T, Handover) -> Taken<T> {
    move |number, picture, _| Ok(emit(number, picture))
}

/// How a decode hands a picture over. Each picture's decode waits on the
/// device for the copy of the picture before it, which the decoding thread
/// submits once it sees that decode done: a thread that waited in a
/// hand-over with pictures in flight would stop its decode queue, and
/// every other session's decodes queued behind them (a pair's other input,
/// another part of the stream), until its taker moved on, which may be
/// waiting for one of those. So a decode first offers a picture, and waits
/// to hand it over only once it has nothing in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handover {
    /// The taker must not block: it gives the picture back
    /// ([`Taken`]'s `Err`) if it cannot take it now.
    Offer,
    /// The taker may block until it can take the picture.
    Wait,
}

/// What a taker did with a picture: taken (and whether to go on), or given
/// back (an [`Handover::Offer`] it could not take now).
pub type Taken<T> = std::result::Result<ControlFlow<()>, T>;

/// A stream parsed and checked once for any number of decodes on `ctx`
/// with the pictures kept on the device: a player that steps back or
/// jumps starts a decode at a seek point each time, and parsing a long
/// stream again for each would cost more than the decode from the seek
/// point. It is read only, so decodes of several parts of the stream may
/// run at once on several threads (each with its own session and DPB).
pub struct DeviceStream<'s> {
    plan: Plan<'s>,
    ctx: Arc<GpuContext>,
    pass: Nv12ToPlanes,
}

enum Plan<'s> {
    H264(H264Plan<'s>),
    H265(H265Plan<'s>),
}

impl<'s> DeviceStream<'s> {
    /// An H.264 stream, checked as for [`check_h264`].
    pub fn h264(ctx: &Arc<GpuContext>, stream: &'s [u8]) -> Result<Self, DeviceDecodeError> {
        Self::new(ctx, Plan::H264(H264Plan::new(stream)?))
    }

    /// An H.265 stream, checked as for [`check_h265`].
    pub fn h265(ctx: &Arc<GpuContext>, stream: &'s [u8]) -> Result<Self, DeviceDecodeError> {
        let plan = H265Plan::new(stream).map_err(DeviceDecodeError::H265Stream)?;
        Self::new(ctx, Plan::H265(plan))
    }

    fn new(ctx: &Arc<GpuContext>, plan: Plan<'s>) -> Result<Self, DeviceDecodeError> {
        Ok(DeviceStream { plan, ctx: ctx.clone(), pass: Nv12ToPlanes::new(ctx)? })
    }

    /// Pictures in the stream, in decoding order (skipped ones included).
    pub fn pictures(&self) -> u64 {
        match &self.plan {
            Plan::H264(plan) => plan.len() as u64,
            Plan::H265(plan) => plan.len() as u64,
        }
    }

    /// Decodes `span` as [`decode_h264_to_planes`] does (the span starts
    /// at a seek point), on the session in `slot`, started afresh (a new
    /// one the first time; the slot must hold only sessions of this
    /// stream). Each frame is handed to `emit` as [`Handover`] says.
    pub fn decode_to_planes(
        &self,
        slot: &mut SessionSlot,
        span: &DecodeSpan,
        emit: impl FnMut(u64, Arc<DevicePlanes>, Handover) -> Taken<Arc<DevicePlanes>>,
    ) -> Result<u64, DeviceDecodeError> {
        match &self.plan {
            Plan::H264(plan) => decode_to_planes(&self.ctx, plan, &self.pass, slot, span, emit),
            Plan::H265(plan) => decode_to_planes(&self.ctx, plan, &self.pass, slot, span, emit),
        }
    }
}

/// A decode thread's session, kept from one decode of a stream to the
/// next (the parts of a stream, the player's decodes after seeks): making
/// a session and its DPB costs more than a short GOP takes to decode, and
/// a long stream has thousands of GOPs.
#[derive(Default)]
pub struct SessionSlot(Option<DecodeSession>);

impl SessionSlot {
    /// The session, started afresh, or a new one made by `make`.
    fn lend(
        &mut self,
        make: impl FnOnce() -> Result<DecodeSession, DeviceDecodeError>,
    ) -> Result<Lent<'_>, DeviceDecodeError> {
        match &mut self.0 {
            Some(session) => session.restart()?,
            None => self.0 = Some(make()?),
        }
        Ok(Lent(self.0.as_mut().expect("made above")))
    }
}

/// A kept session lent to one decode: when the decode ends, the device's
/// work for it is waited for, as a session's drop would, so that nothing
/// the decode lets go is freed while the device still uses it.
struct Lent<'a>(&'a mut DecodeSession);

impl std::ops::Deref for Lent<'_> {
    type Target = DecodeSession;
    fn deref(&self) -> &DecodeSession {
        self.0
    }
}

impl std::ops::DerefMut for Lent<'_> {
    fn deref_mut(&mut self) -> &mut DecodeSession {
        self.0
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        // A wait fails only when the device is lost, whose work counts as done.
        let _ = self.0.settle();
    }
}

/// The device loop of either codec: pictures in flight, each turned into
/// planes on the device by `pass` once decoded.
fn decode_to_planes(
    ctx: &Arc<GpuContext>,
    plan: &impl CodecPlan,
    pass: &Nv12ToPlanes,
    slot: &mut SessionSlot,
    span: &DecodeSpan,
    emit: impl FnMut(u64, Arc<DevicePlanes>, Handover) -> Taken<Arc<DevicePlanes>>,
) -> Result<u64, DeviceDecodeError> {
    decode_with(
        slot.lend(|| plan.session(ctx))?,
        plan,
        span,
        DECODE_IN_FLIGHT - 1,
        |session, _, picture, info| {
            Ok((session.submit_on_device(picture)?, info.crop, info.display_size()))
        },
        |session, (ticket, area, size)| {
            let coded = (session.coded_size(), session.bytes_per_sample());
            let mut planes = None;
            session.collect_on_device(ticket, |rec, nv12| {
                let made = Arc::new(pass.record(rec, nv12, coded, &area, size)?);
                planes = Some(made.clone());
                Ok(made)
            })?;
            Ok(planes.expect("recorded when collected"))
        },
        emit,
    )
}

/// One codec's side of the decode loop: the session its stream needs, and
/// picture by picture what to decode and what the DPB outputs after it.
/// The stream is read only: each decode keeps its own DPB, so one parsed
/// stream serves decodes on several threads at once.
pub(crate) trait CodecPlan: Sync {
    /// The decoded picture buffer's bookkeeping, per decode.
    type Dpb;

    /// The session for the stream, with every parameter set.
    fn session(&self, ctx: &Arc<GpuContext>) -> Result<DecodeSession, DeviceDecodeError>;

    /// An empty DPB, for a decode from the start or a seek point.
    fn dpb(&self) -> Self::Dpb;

    /// Pictures in the stream (decoding order), skipped ones included.
    fn len(&self) -> usize;

    /// Whether a decode may start at picture `i` (decoding order) with a
    /// fresh session and DPB (an IRAP picture).
    fn starts_afresh(&self, i: usize) -> bool;

    /// Plans picture `i` with `dpb` and calls `decode` with it (its
    /// decoding-order index, the picture and its sequence's values; `None`
    /// for a picture the DPB skips) and the pictures to output once it is
    /// decoded.
    fn plan<R>(
        &self,
        dpb: &mut Self::Dpb,
        i: usize,
        decode: impl FnOnce(
            Option<(u64, &DecodePicture<'_>, &SequenceInfo)>,
            &[u64],
        ) -> Result<R, DeviceDecodeError>,
    ) -> Result<R, DeviceDecodeError>;

    /// The pictures still waiting in `dpb` at the end, in output order.
    fn flush(&self, dpb: &mut Self::Dpb) -> Vec<u64>;
}

/// The decode loop: on `session` (the plan's, or a stand-in in tests), for
/// each picture in decoding order calls `submit` (with its decoding
/// position; it starts the decode and returns what is pending of it); once
/// more than `in_flight` pictures are pending, `finish` turns the oldest
/// into what is kept of it. The pictures the DPB lets go are finished
/// (with every older one) and handed to `emit` with their display number,
/// until `emit` breaks or the span's frames are all handed over: offered
/// first, and when not taken, handed over waiting once every picture in
/// flight is finished (see [`Handover`]). The decode runs over the span's
/// pictures (decoding order) with an empty DPB, flushed at the end: they
/// start at 0 or at a picture the plan [`CodecPlan::starts_afresh`] at.
/// Returns the number the next frame would have.
fn decode_with<S, P, T>(
    session: S,
    plan: &impl CodecPlan,
    span: &DecodeSpan,
    in_flight: usize,
    mut submit: impl FnMut(
        &mut S,
        u64,
        &DecodePicture<'_>,
        &SequenceInfo,
    ) -> Result<P, DeviceDecodeError>,
    mut finish: impl FnMut(&mut S, P) -> Result<T, DeviceDecodeError>,
    mut emit: impl FnMut(u64, T, Handover) -> Taken<T>,
) -> Result<u64, DeviceDecodeError> {
    let (len, range) = (plan.len() as u64, span.pictures.clone());
    let starts =
        range.start == 0 || (range.start < len && plan.starts_afresh(range.start as usize));
    if !(starts && range.start <= range.end && range.end <= len) {
        return Err(GpuError::Usage(format!("a decode cannot run over pictures {range:?}")).into());
    }
    let last = span.first_frame.saturating_add(span.frames);
    let mut dpb = plan.dpb();
    // Submitted pictures not yet finished, oldest first, and finished ones
    // awaiting output, by decoding-order index. Made before the session so
    // that they are dropped after it: its drop waits for its work, and what
    // is pending may be written by work still in flight until then.
    let mut pending: VecDeque<(u64, P)> = VecDeque::new();
    let mut finished: HashMap<u64, T> = HashMap::new();
    let mut session = session;
    let mut shown = span.first_frame;
    // Finishes the pending pictures up to `finish_to` and up to each of
    // `outputs`, then emits `outputs` in order, until `emit` breaks.
    let mut release = |session: &mut S,
                       pending: &mut VecDeque<(u64, P)>,
                       shown: &mut u64,
                       finish_to: Option<u64>,
                       outputs: &[u64]|
     -> Result<ControlFlow<()>, DeviceDecodeError> {
        for index in finish_to.into_iter().chain(outputs.iter().copied()) {
            while pending.front().is_some_and(|&(i, _)| i <= index) {
                let (i, p) = pending.pop_front().expect("a front was seen");
                finished.insert(i, finish(session, p)?);
            }
        }
        for index in outputs {
            if *shown == last {
                return Ok(ControlFlow::Break(()));
            }
            if let Some(picture) = finished.remove(index) {
                let flow = match emit(*shown, picture, Handover::Offer) {
                    Ok(flow) => flow,
                    Err(picture) => {
                        while let Some((i, p)) = pending.pop_front() {
                            finished.insert(i, finish(session, p)?);
                        }
                        emit(*shown, picture, Handover::Wait).unwrap_or(ControlFlow::Break(()))
                    }
                };
                *shown += 1;
                if flow.is_break() || *shown == last {
                    return Ok(ControlFlow::Break(()));
                }
            }
        }
        Ok(ControlFlow::Continue(()))
    };
    for i in range.start as usize..range.end as usize {
        let flow = plan.plan(&mut dpb, i, |picture, output| {
            if let Some((index, picture, info)) = picture {
                let submitted = submit(&mut session, range.start + index, picture, info)?;
                pending.push_back((index, submitted));
            }
            let oldest = (pending.len() > in_flight).then(|| pending[0].0);
            release(&mut session, &mut pending, &mut shown, oldest, output)
        })?;
        if flow.is_break() {
            return Ok(shown);
        }
    }
    // The end either way, whether `emit` breaks at the last pictures or not.
    let _ = release(&mut session, &mut pending, &mut shown, None, &plan.flush(&mut dpb))?;
    Ok(shown)
}

/// An H.264 stream parsed and checked for the session.
struct H264Plan<'s> {
    parsed: H264Stream<'s>,
    profile_idc: u32,
    info: SequenceInfo,
    slots: u32,
}

impl<'s> H264Plan<'s> {
    fn new(stream: &'s [u8]) -> Result<Self, DeviceDecodeError> {
        let parsed = H264Stream::parse(stream)?;
        let (first, info) = supported_sequence(&parsed)?;
        // A reference frame in each slot, and one more for the picture decoded.
        let slots = info.max_num_ref_frames.max(1) + 1;
        let profile_idc = first.profile_idc;
        Ok(H264Plan { parsed, profile_idc, info, slots })
    }
}

impl CodecPlan for H264Plan<'_> {
    type Dpb = Dpb;

    fn session(&self, ctx: &Arc<GpuContext>) -> Result<DecodeSession, DeviceDecodeError> {
        let parameter_sets = H264ParameterSets {
            sps: self.parsed.sps.values().map(std_sps).collect::<Result<_, _>>()?,
            pps: self.parsed.pps.values().map(std_pps).collect(),
        };
        let codec =
            SessionCodec::H264 { profile_idc: self.profile_idc, parameter_sets: &parameter_sets };
        Ok(DecodeSession::new(
            ctx,
            codec,
            self.info.coded_width,
            self.info.coded_height,
            self.slots,
        )?)
    }

    fn dpb(&self) -> Dpb {
        Dpb::new(self.slots, self.info.max_dpb_frames)
    }

    fn len(&self) -> usize {
        self.parsed.pictures.len()
    }

    /// IDR pictures (which empty the DPB); [`check_h264`] says which of
    /// them have every earlier picture shown before them.
    fn starts_afresh(&self, i: usize) -> bool {
        self.parsed.pictures[i][0].0.idr()
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
        let slices = &self.parsed.pictures[i];
        let (first, _) = &slices[0];
        let p = &self.parsed.pps[&first.pps_id];
        let sps = &self.parsed.sps[&p.sps_id];
        let plan = dpb.picture(first, sps)?;
        let intra = slices.iter().all(|(h, _)| h.intra());
        let std = std_picture(first, p, &plan, intra);
        let setup = H264Reference { slot: plan.setup.slot, std: std_reference(&plan.setup) };
        let references: Vec<H264Reference> = plan
            .references
            .iter()
            .map(|r| H264Reference { slot: r.slot, std: std_reference(r) })
            .collect();
        let units: Vec<&[u8]> = slices.iter().map(|(_, unit)| *unit).collect();
        let picture = DecodePicture::H264(H264Picture {
            std,
            slices: &units,
            setup,
            references: &references,
        });
        decode(Some((plan.index, &picture, &sps.info()?)), &plan.output)
    }

    fn flush(&self, dpb: &mut Dpb) -> Vec<u64> {
        dpb.flush()
    }
}

/// The stream's first SPS and its values, once every SPS and PPS is one
/// this version decodes and every SPS has the first one's profile and
/// coded size (the session is made for those).
fn supported_sequence<'s>(
    parsed: &'s H264Stream<'_>,
) -> Result<(&'s Sps, SequenceInfo), ParseError> {
    let first = parsed.sps.values().next().ok_or_else(|| ParseError::new("no SPS"))?;
    if parsed.pictures.is_empty() {
        return Err(ParseError::new("no pictures"));
    }
    for s in parsed.sps.values() {
        check_supported(s)?;
        if (s.profile_idc, s.pic_width_in_mbs, s.pic_height_in_map_units)
            != (first.profile_idc, first.pic_width_in_mbs, first.pic_height_in_map_units)
        {
            return Err(ParseError::new(
                "device decode of a stream whose SPS change profile or size is not supported yet",
            ));
        }
    }
    Ok((first, first.info()?))
}

/// What this first version decodes; anything else is a clear error.
fn check_supported(sps: &Sps) -> Result<(), ParseError> {
    let refuse = |what: &str| Err(ParseError::new(format!("{what} is not supported yet")));
    if sps.chroma_format_idc != 1 || sps.bit_depth_luma != 8 || sps.bit_depth_chroma != 8 {
        return refuse("device decode of anything but 8-bit 4:2:0");
    }
    if !sps.frame_mbs_only {
        return refuse("device decode of interlaced H.264");
    }
    Ok(())
}

fn std_picture(
    first: &SliceHeader,
    pps: &Pps,
    plan: &PicturePlan,
    intra: bool,
) -> StdVideoDecodeH264PictureInfo {
    StdVideoDecodeH264PictureInfo {
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
        seq_parameter_set_id: pps.sps_id as u8,
        pic_parameter_set_id: pps.id as u8,
        reserved1: 0,
        reserved2: 0,
        frame_num: first.frame_num as u16,
        idr_pic_id: first.idr_pic_id as u16,
        PicOrderCnt: plan.poc,
    }
}

/// Twin of `shaders/video/nv12_planes.comp`'s push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
struct Nv12Push {
    stride: u32,
    coded_height: u32,
    left: u32,
    top: u32,
    width: u32,
    height: u32,
    y_offset: u32,
    u_offset: u32,
    v_offset: u32,
    bytes_per_sample: u32,
}

/// The compute pass from a decoded NV12 or P010 picture (rows of the coded
/// width, on the device) to three cropped planes: what [`crop`] does on the
/// host.
pub struct Nv12ToPlanes {
    ctx: Arc<GpuContext>,
    pipeline: ComputePipeline,
}

impl Nv12ToPlanes {
    pub fn new(ctx: &Arc<GpuContext>) -> vqscope_gpu::Result<Self> {
        let pipeline = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "video/nv12_planes",
                ..PipelineDesc::new(vqscope_shaders::VIDEO_NV12_PLANES)
            },
        )?;
        Ok(Self { ctx: ctx.clone(), pipeline })
    }

    /// Records into `rec` the conversion of the picture of `coded` size in
    /// `nv12` (NV12, or P010 with `bytes_per_sample` 2) into a new buffer
    /// of three planes of the display size `(width, height)` after `crop`,
    /// between two barriers; the planes are there once the submission is
    /// done.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        nv12: &Buffer,
        (coded, bytes_per_sample): ((u32, u32), u32),
        crop: &Crop,
        (width, height): (u32, u32),
    ) -> vqscope_gpu::Result<DevicePlanes> {
        let (cw, ch) = (width.div_ceil(2), height.div_ceil(2));
        let plane =
            |offset: u32, width, height| PlaneLayout { offset, width, height, bytes_per_sample };
        let y = plane(0, width, height);
        let u = plane((width * height * bytes_per_sample).next_multiple_of(4), cw, ch);
        let v = plane((u.offset + cw * ch * bytes_per_sample).next_multiple_of(4), cw, ch);
        let end = v.offset + cw * ch * bytes_per_sample;
        let buffer = Buffer::storage(&self.ctx, "decoded planes", u64::from(end))?;
        let push = Nv12Push {
            stride: coded.0 * bytes_per_sample,
            coded_height: coded.1,
            left: crop.left,
            top: crop.top,
            width,
            height,
            y_offset: y.offset,
            u_offset: u.offset,
            v_offset: v.offset,
            bytes_per_sample,
        };
        rec.barrier();
        rec.dispatch(
            &self.pipeline,
            &[Binding::Buffer(nv12), Binding::Buffer(&buffer)],
            bytemuck::bytes_of(&push),
            [width.div_ceil(16), height.div_ceil(16), 1],
        )?;
        rec.barrier();
        Ok(DevicePlanes { buffer, width, height, planes: [y, u, v] })
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

/// The cropped Y, U and V planes of a decoded NV12 or P010 picture (the
/// host twin of [`Nv12ToPlanes`] for NV12). P010 words keep their 10 bits
/// high; the planes get them as values 0 to 1023.
pub fn crop(picture: &Nv12Picture, crop: &Crop, (width, height): (u32, u32)) -> DecodedPicture {
    let bps = picture.bytes_per_sample as usize;
    let stride = picture.width as usize * bps;
    let (left, top) = (crop.left as usize, crop.top as usize);
    let (w, h) = (width as usize, height as usize);
    // One sample at byte offset `at` of `plane`, as the planes store it.
    let sample = |plane: &[u8], at: usize, out: &mut Vec<u8>| {
        if bps == 1 {
            out.push(plane[at]);
        } else {
            let word = u16::from_le_bytes([plane[at], plane[at + 1]]) >> 6;
            out.extend_from_slice(&word.to_le_bytes());
        }
    };
    let mut y = Vec::with_capacity(w * h * bps);
    for row in top..top + h {
        for x in left..left + w {
            sample(&picture.luma, row * stride + x * bps, &mut y);
        }
    }
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
    let (mut u, mut v) = (Vec::with_capacity(cw * ch * bps), Vec::with_capacity(cw * ch * bps));
    for row in top / 2..top / 2 + ch {
        let line = &picture.chroma[row * stride..(row + 1) * stride];
        for x in left / 2..left / 2 + cw {
            sample(line, 2 * x * bps, &mut u);
            sample(line, (2 * x + 1) * bps, &mut v);
        }
    }
    DecodedPicture { number: 0, width, height, bytes_per_sample: picture.bytes_per_sample, y, u, v }
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
                    flag(s.scaling_lists.is_some()),
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
        scaling_lists: s.scaling_lists.as_ref().map(std_scaling_lists),
    })
}

/// The lists as parsed: the coded flags, and every list already resolved
/// (fall-back rules and defaults applied) in zig-zag order.
fn std_scaling_lists(l: &ScalingLists) -> StdVideoH264ScalingLists {
    StdVideoH264ScalingLists {
        scaling_list_present_mask: l.present,
        use_default_scaling_matrix_mask: l.use_default,
        ScalingList4x4: l.list_4x4,
        ScalingList8x8: l.list_8x8,
    }
}

fn std_pps(p: &Pps) -> H264Pps {
    let std = StdVideoH264PictureParameterSet {
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
                flag(p.scaling_lists.is_some()),
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
    };
    H264Pps { std, scaling_lists: p.scaling_lists.as_ref().map(std_scaling_lists) }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    fn stream(name: &str) -> Vec<u8> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bitstream");
        std::fs::read(dir.join(name)).unwrap()
    }

    /// The decode loop without a device: the plans of real streams (an
    /// H.264 B pyramid with two slices a picture and an IDR at picture 15;
    /// H.265 closed GOPs whose IDR pictures have RADL pictures, seek points
    /// at 6 and 14; H.265 open GOPs, whose CRA pictures' RASL pictures show
    /// before them), a stand-in session that counts the pictures in
    /// flight, and a taker whose queue is full every third offer. From the
    /// start and from each seek point, to the end or to the next seek
    /// point, each frame must come out once, numbered as in the whole
    /// decode, the same picture as there; an offer given back must be
    /// handed over waiting only with nothing in flight; never more than
    /// `in_flight + 1` pictures are submitted and not finished. A decode
    /// that does not start at an IRAP picture, or runs past the end, is
    /// refused.
    #[test]
    fn the_loop_outputs_in_order_and_waits_only_with_nothing_in_flight() {
        let idr = |p: u64| SeekPoint { frame: p, picture: p, leading_end: p };
        let h264 = stream("h264_high_pyramid_slices_640x360.h264");
        let points = check_h264(&h264).unwrap().seek_points;
        assert_eq!(points, [SeekPoint::START, idr(15)]);
        check_the_loop(&H264Plan::new(&h264).unwrap(), &points);
        let h265 = stream("hevc_main10_idr_radl_210x118.hevc");
        let points = check_h265(&h265).unwrap().seek_points;
        assert_eq!(points, [SeekPoint::START, idr(6), idr(14)]);
        check_the_loop(&H265Plan::new(&h265).unwrap(), &points);
        let h265 = stream("hevc_main_opengop_pyramid_320x240.hevc");
        let points = check_h265(&h265).unwrap().seek_points;
        assert_eq!(points.len(), 3, "{points:?}");
        assert!(points.iter().skip(1).all(|p| p.leading_end > p.picture + 1), "{points:?}");
        check_the_loop(&H265Plan::new(&h265).unwrap(), &points);
    }

    /// [`the_loop_outputs_in_order_and_waits_only_with_nothing_in_flight`]
    /// on one plan.
    fn check_the_loop(plan: &impl CodecPlan, seek_points: &[SeekPoint]) {
        let len = plan.len() as u64;
        // Decoding positions in output order, as the whole decode shows
        // them (the DPB's output, as `check_h264`/`check_h265` run it).
        let mut dpb = plan.dpb();
        let mut order = Vec::new();
        for i in 0..plan.len() {
            plan.plan(&mut dpb, i, |_, output| {
                order.extend_from_slice(output);
                Ok(())
            })
            .unwrap();
        }
        order.extend(plan.flush(&mut dpb));
        let shown = order.len() as u64;
        let mut spans: Vec<(DecodeSpan, usize)> = Vec::new();
        for (k, &from) in seek_points.iter().enumerate() {
            spans.push((DecodeSpan::rest(from, len), 3 * (k % 2)));
            if let Some(&to) = seek_points.get(k + 1) {
                spans.push((DecodeSpan::between(from, to), 1 + k % 3));
            }
        }
        for (span, in_flight) in spans {
            let in_flight_now = Cell::new(0usize);
            let most = Cell::new(0usize);
            let mut offers = 0;
            let (mut numbers, mut pictures) = (Vec::new(), Vec::new());
            let next = decode_with(
                (),
                plan,
                &span,
                in_flight,
                |_, position, _, _| {
                    in_flight_now.set(in_flight_now.get() + 1);
                    most.set(most.get().max(in_flight_now.get()));
                    Ok(position)
                },
                |_, position| {
                    in_flight_now.set(in_flight_now.get() - 1);
                    Ok(position)
                },
                |number, position, how| {
                    offers += 1;
                    if how == Handover::Offer && offers % 3 == 0 {
                        return Err(position);
                    }
                    if how == Handover::Wait {
                        assert_eq!(in_flight_now.get(), 0, "a wait with pictures in flight");
                    }
                    numbers.push(number);
                    pictures.push(position);
                    Ok(ControlFlow::Continue(()))
                },
            )
            .unwrap();
            let frames = span.first_frame..span.first_frame.saturating_add(span.frames).min(shown);
            assert_eq!(next, frames.end, "{span:?}");
            assert_eq!(numbers, frames.clone().collect::<Vec<_>>(), "{span:?}");
            assert_eq!(pictures, order[frames.start as usize..frames.end as usize], "{span:?}");
            assert!(most.get() <= in_flight + 1, "{span:?}: {} in flight", most.get());
            assert_eq!(in_flight_now.get(), 0, "{span:?}: left in flight");
            assert!(offers > numbers.len(), "{span:?}: no offer was given back");
        }
        let after_start = seek_points[1].picture + 1;
        for pictures in [1..len, after_start..len, 0..len + 1] {
            let span = DecodeSpan { pictures, first_frame: 0, frames: u64::MAX };
            let refused = decode_with(
                (),
                plan,
                &span,
                3,
                |_, _, _, _| Ok(()),
                |_, ()| Ok(()),
                |_, (), _| Ok(ControlFlow::Continue(())),
            );
            assert!(refused.is_err(), "{span:?}");
        }
    }

    /// P010 keeps 10-bit samples in the high bits of little-endian words;
    /// the cropped planes hold them as values 0 to 1023, as y4m does.
    #[test]
    fn p010_crop_gives_ten_bit_values() {
        // 4x2 coded, luma 0, 1, ..., 7 and 1023 at the last; chroma 2x1
        // pairs (Cb, Cr) = (512, 64), (3, 1000).
        let word = |v: u16| (v << 6).to_le_bytes();
        let mut luma: Vec<u8> = (0..7).flat_map(word).collect();
        luma.extend(word(1023));
        let chroma: Vec<u8> = [512, 64, 3, 1000].into_iter().flat_map(word).collect();
        let picture = Nv12Picture { width: 4, height: 2, bytes_per_sample: 2, luma, chroma };
        let window = Crop { left: 2, right: 0, top: 0, bottom: 0 };
        let got = crop(&picture, &window, (2, 2));
        let values = |plane: &[u8]| -> Vec<u16> {
            plane.chunks(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect()
        };
        assert_eq!(values(&got.y), [2, 3, 6, 1023]);
        assert_eq!((values(&got.u), values(&got.v)), (vec![3], vec![1000]));
        assert_eq!(got.bytes_per_sample, 2);
    }

    #[test]
    fn push_constants_match_the_shader() {
        use vqscope_shaders::{VIDEO_NV12_PLANES, twin};
        let twin = twin!(Nv12Push as "Push" in [VIDEO_NV12_PLANES] {
            stride, coded_height, left, top, width, height, y_offset, u_offset, v_offset,
            bytes_per_sample
        });
        twin.check().unwrap();
    }
}
