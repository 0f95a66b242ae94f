//! H.264 and H.265 decode on the device (Vulkan Video), on the context's
//! own `VkDevice`: a video session with its memory, the session parameters
//! made from the stream's parameter sets, a DPB image (NV12, or P010 for
//! 10-bit H.265) with one array layer per slot
//! (DPB and output coincide, as NVIDIA's decoder reports), a bitstream
//! buffer, and a copy of each decoded picture, back to the host or into a
//! device buffer that later work on the context's queue reads.
//!
//! The caller (the `video` crate) parses the stream and manages the DPB:
//! it says which slot each picture is decoded into and which slots hold its
//! references. Each picture is decoded on the decode queue; once the host
//! sees that decode done, it submits the copy of the picture on the
//! context's queue (into a read-back buffer, or into a device buffer
//! followed by the caller's work on it). One timeline semaphore orders
//! them: picture `k`'s decode signals `2k + 1`, its copy `2k + 2`, and
//! picture `k + 1`'s decode waits for that. Submitting a copy only when its
//! decode is done keeps the context's queue free of submissions that wait
//! on the decoder, which would hold up the metrics' work behind them. Up to
//! [`IN_FLIGHT`] pictures are submitted before the host collects the oldest
//! ([`DecodeSession::submit`] and [`DecodeSession::collect`]), each with its
//! own command buffers, slice buffer region and copy destinations. The DPB
//! image is shared concurrently by both queue families, so no ownership
//! transfers are needed.
//!
//! One session type serves both codecs: only the profile, the session
//! parameters and the per-picture codec structures differ
//! ([`SessionCodec`], [`DecodePicture`]).

use std::ffi::CStr;
use std::sync::Arc;

use ash::vk;
use ash::vk::native::{
    StdVideoDecodeH264PictureInfo, StdVideoDecodeH264ReferenceInfo, StdVideoDecodeH265PictureInfo,
    StdVideoDecodeH265ReferenceInfo, StdVideoH264PictureParameterSet, StdVideoH264ScalingLists,
    StdVideoH264SequenceParameterSet, StdVideoH265DecPicBufMgr, StdVideoH265LongTermRefPicsSps,
    StdVideoH265PictureParameterSet, StdVideoH265ProfileTierLevel, StdVideoH265ScalingLists,
    StdVideoH265SequenceParameterSet, StdVideoH265ShortTermRefPicSet,
    StdVideoH265VideoParameterSet,
};

use crate::context::{DecodeQueue, GpuContext};
use crate::error::{GpuError, Result, vk_error};
use crate::memory::Buffer;
use crate::submit::Recorder;
use crate::video::{DecodeProfile, DecodeSupport, decode_queue_family, required_extensions};

/// The queue family to decode on, its queue count, and the device
/// extensions to enable for it: the family that decodes both H.264 and
/// H.265 where the device offers both codecs' extensions, else one that
/// decodes either (`offered` lists the device's extensions).
pub(crate) fn decode_family(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    offered: &[vk::ExtensionProperties],
) -> Option<(u32, u32, Vec<&'static CStr>)> {
    let codecs: Vec<vk::VideoCodecOperationFlagsKHR> = [
        vk::VideoCodecOperationFlagsKHR::DECODE_H264,
        vk::VideoCodecOperationFlagsKHR::DECODE_H265,
    ]
    .into_iter()
    .filter(|&op| {
        required_extensions(op)
            .iter()
            .all(|name| offered.iter().any(|e| e.extension_name_as_c_str() == Ok(*name)))
    })
    .collect();
    let all = codecs.iter().fold(vk::VideoCodecOperationFlagsKHR::empty(), |a, &op| a | op);
    let (family, count, ops) = std::iter::once(all)
        .chain(codecs.iter().copied())
        .filter(|ops| !ops.is_empty())
        .find_map(|ops| {
            decode_queue_family(instance, physical, ops).map(|(family, count)| (family, count, ops))
        })?;
    let mut names = Vec::new();
    for op in codecs.into_iter().filter(|&op| ops.contains(op)) {
        for name in required_extensions(op) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    Some((family, count, names))
}

/// An SPS as the session parameters take it. The pointers in `std` are
/// ignored: the session points them at `offset_for_ref_frame` and
/// `scaling_lists` (no VUI is passed).
#[derive(Debug, Clone)]
pub struct H264Sps {
    pub std: StdVideoH264SequenceParameterSet,
    pub offset_for_ref_frame: Vec<i32>,
    /// Present when `seq_scaling_matrix_present_flag` is set.
    pub scaling_lists: Option<StdVideoH264ScalingLists>,
}

/// A PPS as the session parameters take it; the session points
/// `std.pScalingLists` at `scaling_lists`.
#[derive(Debug, Clone)]
pub struct H264Pps {
    pub std: StdVideoH264PictureParameterSet,
    /// Present when `pic_scaling_matrix_present_flag` is set.
    pub scaling_lists: Option<StdVideoH264ScalingLists>,
}

/// The parameter sets of a stream (the last of each id).
#[derive(Debug, Clone, Default)]
pub struct H264ParameterSets {
    pub sps: Vec<H264Sps>,
    pub pps: Vec<H264Pps>,
}

/// A reference picture: the DPB slot it is in, and what the decoder must
/// know of it.
#[derive(Debug, Clone, Copy)]
pub struct H264Reference {
    pub slot: u32,
    pub std: StdVideoDecodeH264ReferenceInfo,
}

/// One picture to decode: its slices (NAL units without start codes), the
/// slot it goes to (`setup`) and the references it may read.
#[derive(Debug, Clone, Copy)]
pub struct H264Picture<'a> {
    pub std: StdVideoDecodeH264PictureInfo,
    pub slices: &'a [&'a [u8]],
    pub setup: H264Reference,
    pub references: &'a [H264Reference],
}

/// A VPS as the session parameters take it, with what its pointers point
/// to (the session sets the pointers; no HRD parameters are passed).
#[derive(Debug, Clone)]
pub struct H265Vps {
    pub std: StdVideoH265VideoParameterSet,
    pub dec_pic_buf_mgr: StdVideoH265DecPicBufMgr,
    pub profile_tier_level: StdVideoH265ProfileTierLevel,
}

/// An SPS as the session parameters take it, with what its pointers point
/// to (the session sets them; no VUI or palette entries).
#[derive(Debug, Clone)]
pub struct H265Sps {
    pub std: StdVideoH265SequenceParameterSet,
    pub dec_pic_buf_mgr: StdVideoH265DecPicBufMgr,
    pub profile_tier_level: StdVideoH265ProfileTierLevel,
    pub short_term_rps: Vec<StdVideoH265ShortTermRefPicSet>,
    pub long_term_ref_pics: StdVideoH265LongTermRefPicsSps,
    /// Present when `sps_scaling_list_data_present_flag` is set.
    pub scaling_lists: Option<StdVideoH265ScalingLists>,
}

/// A PPS as the session parameters take it; the session points
/// `std.pScalingLists` at `scaling_lists` (no palette entries are passed).
#[derive(Debug, Clone)]
pub struct H265Pps {
    pub std: StdVideoH265PictureParameterSet,
    /// Present when `pps_scaling_list_data_present_flag` is set.
    pub scaling_lists: Option<StdVideoH265ScalingLists>,
}

/// The parameter sets of an H.265 stream (one of each id).
#[derive(Debug, Clone, Default)]
pub struct H265ParameterSets {
    pub vps: Vec<H265Vps>,
    pub sps: Vec<H265Sps>,
    pub pps: Vec<H265Pps>,
}

/// An H.265 reference picture: its DPB slot and what the decoder must know.
#[derive(Debug, Clone, Copy)]
pub struct H265Reference {
    pub slot: u32,
    pub std: StdVideoDecodeH265ReferenceInfo,
}

/// One H.265 picture to decode: its slice segments (NAL units without
/// start codes), the slot it goes to and every reference in the DPB (the
/// slots `std`'s `RefPicSetStCurrBefore`, … name are among them).
#[derive(Debug, Clone, Copy)]
pub struct H265Picture<'a> {
    pub std: StdVideoDecodeH265PictureInfo,
    pub slices: &'a [&'a [u8]],
    pub setup: H265Reference,
    pub references: &'a [H265Reference],
}

/// The codec part of a session: the profile and the stream's parameter sets.
#[derive(Debug, Clone, Copy)]
pub enum SessionCodec<'a> {
    H264 {
        profile_idc: u32,
        parameter_sets: &'a H264ParameterSets,
    },
    /// Main (8-bit) or Main 10 (`bit_depth` 10, P010 pictures).
    H265 {
        profile_idc: u32,
        bit_depth: u32,
        parameter_sets: &'a H265ParameterSets,
    },
}

/// A picture of either codec for [`DecodeSession::submit`].
#[derive(Debug, Clone, Copy)]
pub enum DecodePicture<'a> {
    H264(H264Picture<'a>),
    H265(H265Picture<'a>),
}

impl DecodePicture<'_> {
    fn slices(&self) -> &[&[u8]] {
        match self {
            DecodePicture::H264(p) => p.slices,
            DecodePicture::H265(p) => p.slices,
        }
    }

    fn setup_slot(&self) -> u32 {
        match self {
            DecodePicture::H264(p) => p.setup.slot,
            DecodePicture::H265(p) => p.setup.slot,
        }
    }

    fn reference_slots(&self) -> Vec<u32> {
        match self {
            DecodePicture::H264(p) => p.references.iter().map(|r| r.slot).collect(),
            DecodePicture::H265(p) => p.references.iter().map(|r| r.slot).collect(),
        }
    }
}

/// A decoded picture on the host, whole coded size: the luma plane, then
/// the chroma plane with Cb and Cr interleaved, rows tight. NV12 has one
/// byte a sample; P010 (`bytes_per_sample` 2) little-endian 16-bit words
/// holding the 10 bits in their high bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nv12Picture {
    pub width: u32,
    pub height: u32,
    pub bytes_per_sample: u32,
    pub luma: Vec<u8>,
    pub chroma: Vec<u8>,
}

/// The formats decoded pictures take: 8-bit or 10-bit 4:2:0, two planes.
const NV12: vk::Format = vk::Format::G8_B8R8_2PLANE_420_UNORM;
const P010: vk::Format = vk::Format::G10X6_B10X6R10X6_2PLANE_420_UNORM_3PACK16;

/// Room for the slices of one picture in the bitstream buffer (a power of
/// two, so each picture's region starts at any offset alignment a decoder
/// asks for).
const BITSTREAM_SIZE: u64 = 8 << 20;

/// Work recorded after a picture's copy, in the same submission; what it
/// returns is kept alive until that submission is done.
type AfterCopy<'a> = dyn FnMut(&mut Recorder<'_>) -> Result<Option<Arc<dyn Send + Sync>>> + 'a;

/// Pictures submitted and not yet collected, at most.
pub const IN_FLIGHT: usize = 4;

/// What one picture in flight uses: its command buffers, read-back buffer
/// and, made on first use, a device-local buffer for pictures kept on the
/// device (its slice region is `BITSTREAM_SIZE` bytes at its index).
struct Flight {
    decode_cmd: vk::CommandBuffer,
    copy_cmd: vk::CommandBuffer,
    readback: Buffer,
    on_device: Option<Buffer>,
    /// The flight's picture goes to `on_device`, not to `readback`.
    kept_on_device: bool,
    /// The DPB slot the flight's picture is decoded into.
    slot: u32,
    /// What the work recorded after the flight's last copy must keep alive
    /// until that copy's submission is done.
    keep: Option<Arc<dyn Send + Sync>>,
}

/// A decode session for one H.264 or H.265 stream, and everything it
/// decodes into. Dropped in reverse order of creation, after the device is
/// idle.
pub struct DecodeSession {
    ctx: Arc<GpuContext>,
    extent: vk::Extent2D,
    /// NV12 or P010, and its bytes per sample.
    format: vk::Format,
    bytes_per_sample: u32,
    slots: u32,
    /// Which of the context's decode queues the session submits to.
    queue: usize,
    size_alignment: u64,
    session: vk::VideoSessionKHR,
    session_memory: Vec<vk::DeviceMemory>,
    parameters: vk::VideoSessionParametersKHR,
    dpb: vk::Image,
    dpb_memory: vk::DeviceMemory,
    views: Vec<vk::ImageView>,
    bitstream: vk::Buffer,
    bitstream_memory: vk::DeviceMemory,
    bitstream_map: *mut u8,
    decode_pool: vk::CommandPool,
    copy_pool: vk::CommandPool,
    flights: Vec<Flight>,
    /// The timeline the decodes and copies signal (see the module doc).
    progress: vk::Semaphore,
    /// Pictures submitted so far; picture `k` uses flight `k % IN_FLIGHT`.
    submitted: u64,
    /// Pictures collected so far (always the oldest first).
    collected: u64,
    /// The first decode resets the session and lays out the DPB image.
    started: bool,
}

// SAFETY: `bitstream_map` points into memory owned by the session; the
// session is used from one thread at a time (`&mut self` for every access).
unsafe impl Send for DecodeSession {}

impl DecodeSession {
    /// A session for pictures of `width` x `height` (the coded size: whole
    /// macroblocks or minimum coding blocks) of `codec`'s profile, with
    /// `slots` DPB slots, and the stream's parameter sets. Fails with
    /// [`GpuError::VideoDecode`] on a device without decode for that
    /// profile, saying why.
    pub fn new(
        ctx: &Arc<GpuContext>,
        codec: SessionCodec<'_>,
        width: u32,
        height: u32,
        slots: u32,
    ) -> Result<Self> {
        let Some(decode) = ctx.decode.as_ref() else {
            let name = match codec {
                SessionCodec::H264 { .. } => "H.264",
                SessionCodec::H265 { .. } => "H.265",
            };
            return Err(GpuError::VideoDecode(format!(
                "{} has no {name} video decode queue",
                ctx.info().name
            )));
        };
        let (operation, profile_idc, bit_depth) = match codec {
            SessionCodec::H264 { profile_idc, .. } => {
                (vk::VideoCodecOperationFlagsKHR::DECODE_H264, profile_idc, 8)
            }
            SessionCodec::H265 { profile_idc, bit_depth, .. } => {
                (vk::VideoCodecOperationFlagsKHR::DECODE_H265, profile_idc, bit_depth)
            }
        };
        let (format, bytes_per_sample) = match bit_depth {
            8 => (NV12, 1),
            10 => (P010, 2),
            _ => {
                return Err(GpuError::VideoDecode(format!("{bit_depth}-bit pictures")));
            }
        };
        let profile = DecodeProfile {
            operation,
            profile_idc,
            chroma: vk::VideoChromaSubsamplingFlagsKHR::TYPE_420,
            luma_bit_depth: bit_depth,
            chroma_bit_depth: bit_depth,
            interlaced: false,
        };
        let caps = match ctx.video_decode_support(&profile)? {
            DecodeSupport::Supported { capabilities, .. } => capabilities,
            other => {
                return Err(GpuError::VideoDecode(format!(
                    "the device cannot decode it: {other:?}"
                )));
            }
        };
        let (min, max) = (caps.min_coded_extent, caps.max_coded_extent);
        if width < min.0 || height < min.1 || width > max.0 || height > max.1 {
            return Err(GpuError::VideoDecode(format!(
                "{width}x{height} is outside the decoder's {}x{} to {}x{}",
                min.0, min.1, max.0, max.1
            )));
        }
        if slots > caps.max_dpb_slots {
            return Err(GpuError::VideoDecode(format!(
                "the stream needs {slots} DPB slots, the decoder has {}",
                caps.max_dpb_slots
            )));
        }
        if !caps.decode_flags.contains(vk::VideoDecodeCapabilityFlagsKHR::DPB_AND_OUTPUT_COINCIDE) {
            return Err(GpuError::VideoDecode(
                "the decoder writes output apart from the DPB, which is not supported yet".into(),
            ));
        }
        let extent = vk::Extent2D { width, height };
        let mut session = DecodeSession {
            ctx: ctx.clone(),
            extent,
            format,
            bytes_per_sample,
            slots,
            queue: decode.take_queue(),
            size_alignment: caps.bitstream_size_alignment.max(1),
            session: vk::VideoSessionKHR::null(),
            session_memory: Vec::new(),
            parameters: vk::VideoSessionParametersKHR::null(),
            dpb: vk::Image::null(),
            dpb_memory: vk::DeviceMemory::null(),
            views: Vec::new(),
            bitstream: vk::Buffer::null(),
            bitstream_memory: vk::DeviceMemory::null(),
            bitstream_map: std::ptr::null_mut(),
            decode_pool: vk::CommandPool::null(),
            copy_pool: vk::CommandPool::null(),
            flights: Vec::new(),
            progress: vk::Semaphore::null(),
            submitted: 0,
            collected: 0,
            started: false,
        };
        // On failure `session` drops and destroys what was made so far.
        session.create(decode, codec, caps.std_header_version)?;
        Ok(session)
    }

    fn create(
        &mut self,
        decode: &DecodeQueue,
        codec: SessionCodec<'_>,
        std_header_version: u32,
    ) -> Result<()> {
        let ctx = self.ctx.clone();
        let device = &ctx.device;
        let depth = if self.bytes_per_sample == 2 {
            vk::VideoComponentBitDepthFlagsKHR::TYPE_10
        } else {
            vk::VideoComponentBitDepthFlagsKHR::TYPE_8
        };
        let profile = vk::VideoProfileInfoKHR::default()
            .chroma_subsampling(vk::VideoChromaSubsamplingFlagsKHR::TYPE_420)
            .luma_bit_depth(depth)
            .chroma_bit_depth(depth);
        let mut h264_profile = vk::VideoDecodeH264ProfileInfoKHR::default()
            .picture_layout(vk::VideoDecodeH264PictureLayoutFlagsKHR::PROGRESSIVE);
        let mut h265_profile = vk::VideoDecodeH265ProfileInfoKHR::default();
        let (profile, std_name) = match codec {
            SessionCodec::H264 { profile_idc, .. } => {
                h264_profile = h264_profile.std_profile_idc(profile_idc);
                let profile = profile
                    .video_codec_operation(vk::VideoCodecOperationFlagsKHR::DECODE_H264)
                    .push_next(&mut h264_profile);
                (profile, c"VK_STD_vulkan_video_codec_h264_decode")
            }
            SessionCodec::H265 { profile_idc, .. } => {
                h265_profile = h265_profile.std_profile_idc(profile_idc);
                let profile = profile
                    .video_codec_operation(vk::VideoCodecOperationFlagsKHR::DECODE_H265)
                    .push_next(&mut h265_profile);
                (profile, c"VK_STD_vulkan_video_codec_h265_decode")
            }
        };
        let profiles = [profile];
        let usage = vk::ImageUsageFlags::VIDEO_DECODE_DPB_KHR
            | vk::ImageUsageFlags::VIDEO_DECODE_DST_KHR
            | vk::ImageUsageFlags::TRANSFER_SRC;
        self.check_format(&profiles, usage)?;

        // The session.
        let mut std_header = vk::ExtensionProperties::default().spec_version(std_header_version);
        for (dst, src) in std_header.extension_name.iter_mut().zip(std_name.to_bytes_with_nul()) {
            *dst = *src as std::ffi::c_char;
        }
        let info = vk::VideoSessionCreateInfoKHR::default()
            .queue_family_index(decode.family)
            .video_profile(&profiles[0])
            .picture_format(self.format)
            .max_coded_extent(self.extent)
            .reference_picture_format(self.format)
            .max_dpb_slots(self.slots)
            .max_active_reference_pictures(self.slots - 1)
            .std_header_version(&std_header);
        let fp = decode.video_queue.fp();
        // SAFETY: the device enabled VK_KHR_video_queue (a decode queue exists); `info`
        // and what it points to live until the call returns.
        let result = unsafe {
            (fp.create_video_session_khr)(
                device.handle(),
                &info,
                std::ptr::null(),
                &mut self.session,
            )
        };
        check(result, "vkCreateVideoSessionKHR")?;

        // Its memory, each binding in memory of its own.
        let mut count = 0;
        // SAFETY: a live session of this device; the first call only counts.
        let result = unsafe {
            (fp.get_video_session_memory_requirements_khr)(
                device.handle(),
                self.session,
                &mut count,
                std::ptr::null_mut(),
            )
        };
        check(result, "vkGetVideoSessionMemoryRequirementsKHR")?;
        let mut requirements =
            vec![vk::VideoSessionMemoryRequirementsKHR::default(); count as usize];
        // SAFETY: `requirements` holds `count` structures.
        let result = unsafe {
            (fp.get_video_session_memory_requirements_khr)(
                device.handle(),
                self.session,
                &mut count,
                requirements.as_mut_ptr(),
            )
        };
        check(result, "vkGetVideoSessionMemoryRequirementsKHR")?;
        let mut binds = Vec::new();
        for r in &requirements[..count as usize] {
            let memory =
                self.allocate(r.memory_requirements, vk::MemoryPropertyFlags::DEVICE_LOCAL)?;
            self.session_memory.push(memory);
            binds.push(
                vk::BindVideoSessionMemoryInfoKHR::default()
                    .memory_bind_index(r.memory_bind_index)
                    .memory(memory)
                    .memory_offset(0)
                    .memory_size(r.memory_requirements.size),
            );
        }
        // SAFETY: each memory was allocated for its binding's requirements and is unbound.
        let result = unsafe {
            (fp.bind_video_session_memory_khr)(
                device.handle(),
                self.session,
                binds.len() as u32,
                binds.as_ptr(),
            )
        };
        check(result, "vkBindVideoSessionMemoryKHR")?;

        // The session parameters: every parameter set of the stream.
        match codec {
            SessionCodec::H264 { parameter_sets, .. } => {
                self.h264_parameters(decode, parameter_sets)?
            }
            SessionCodec::H265 { parameter_sets, .. } => {
                self.h265_parameters(decode, parameter_sets)?
            }
        }

        // The DPB: one layer per slot, shared by the decode and copy queues.
        let families = [decode.family, ctx.queue_family];
        let mut profile_list = vk::VideoProfileListInfoKHR::default().profiles(&profiles);
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(self.format)
            .extent(vk::Extent3D { width: self.extent.width, height: self.extent.height, depth: 1 })
            .mip_levels(1)
            .array_layers(self.slots)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::CONCURRENT)
            .queue_family_indices(&families)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .push_next(&mut profile_list);
        // SAFETY: `info` and its chain outlive the call.
        self.dpb =
            unsafe { device.create_image(&info, None) }.map_err(vk_error("vkCreateImage"))?;
        // SAFETY: a live image of this device.
        let requirements = unsafe { device.get_image_memory_requirements(self.dpb) };
        self.dpb_memory = self.allocate(requirements, vk::MemoryPropertyFlags::DEVICE_LOCAL)?;
        // SAFETY: fresh memory allocated for this image's requirements.
        unsafe { device.bind_image_memory(self.dpb, self.dpb_memory, 0) }
            .map_err(vk_error("vkBindImageMemory"))?;
        for layer in 0..self.slots {
            let info = vk::ImageViewCreateInfo::default()
                .image(self.dpb)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(self.format)
                .subresource_range(vk::ImageSubresourceRange {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    base_mip_level: 0,
                    level_count: 1,
                    base_array_layer: layer,
                    layer_count: 1,
                });
            // SAFETY: a view of a live, bound image.
            let view = unsafe { device.create_image_view(&info, None) }
                .map_err(vk_error("vkCreateImageView"))?;
            self.views.push(view);
        }

        // The bitstream buffer, mapped for the host to write slices into.
        let mut profile_list = vk::VideoProfileListInfoKHR::default().profiles(&profiles);
        let info = vk::BufferCreateInfo::default()
            .size(BITSTREAM_SIZE * IN_FLIGHT as u64)
            .usage(vk::BufferUsageFlags::VIDEO_DECODE_SRC_KHR)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut profile_list);
        // SAFETY: `info` and its chain outlive the call.
        self.bitstream =
            unsafe { device.create_buffer(&info, None) }.map_err(vk_error("vkCreateBuffer"))?;
        // SAFETY: a live buffer of this device.
        let requirements = unsafe { device.get_buffer_memory_requirements(self.bitstream) };
        self.bitstream_memory = self.allocate(
            requirements,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )?;
        // SAFETY: fresh host-visible memory allocated for this buffer, mapped once whole.
        unsafe {
            device
                .bind_buffer_memory(self.bitstream, self.bitstream_memory, 0)
                .map_err(vk_error("vkBindBufferMemory"))?;
            self.bitstream_map = device
                .map_memory(self.bitstream_memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vk_error("vkMapMemory"))? as *mut u8;
        }

        // Command pools, each flight's command buffers and read-back buffer,
        // the timeline.
        for (family, pool) in
            [(decode.family, &mut self.decode_pool), (ctx.queue_family, &mut self.copy_pool)]
        {
            let info = vk::CommandPoolCreateInfo::default()
                .queue_family_index(family)
                .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
            // SAFETY: plain create info.
            *pool = unsafe { device.create_command_pool(&info, None) }
                .map_err(vk_error("vkCreateCommandPool"))?;
        }
        let allocate = |pool| {
            let info = vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(IN_FLIGHT as u32);
            // SAFETY: a live pool of this device.
            unsafe { device.allocate_command_buffers(&info) }
                .map_err(vk_error("vkAllocateCommandBuffers"))
        };
        let (decode_cmds, copy_cmds) = (allocate(self.decode_pool)?, allocate(self.copy_pool)?);
        for (decode_cmd, copy_cmd) in decode_cmds.into_iter().zip(copy_cmds) {
            let readback = Buffer::readback(&ctx, "decoded picture", self.picture_size())?;
            self.flights.push(Flight {
                decode_cmd,
                copy_cmd,
                readback,
                on_device: None,
                kept_on_device: false,
                slot: 0,
                keep: None,
            });
        }
        let mut timeline =
            vk::SemaphoreTypeCreateInfo::default().semaphore_type(vk::SemaphoreType::TIMELINE);
        let info = vk::SemaphoreCreateInfo::default().push_next(&mut timeline);
        // SAFETY: `info` and its chain outlive the call.
        self.progress = unsafe { device.create_semaphore(&info, None) }
            .map_err(vk_error("vkCreateSemaphore"))?;
        Ok(())
    }

    /// The session parameters of an H.264 stream: every SPS and PPS.
    fn h264_parameters(
        &mut self,
        decode: &DecodeQueue,
        parameter_sets: &H264ParameterSets,
    ) -> Result<()> {
        let device = &self.ctx.device;
        let fp = decode.video_queue.fp();
        let std_sps: Vec<StdVideoH264SequenceParameterSet> = parameter_sets
            .sps
            .iter()
            .map(|s| StdVideoH264SequenceParameterSet {
                pOffsetForRefFrame: if s.offset_for_ref_frame.is_empty() {
                    std::ptr::null()
                } else {
                    s.offset_for_ref_frame.as_ptr()
                },
                pScalingLists: optional_pointer(&s.scaling_lists),
                pSequenceParameterSetVui: std::ptr::null(),
                ..s.std
            })
            .collect();
        let std_pps: Vec<StdVideoH264PictureParameterSet> = parameter_sets
            .pps
            .iter()
            .map(|p| StdVideoH264PictureParameterSet {
                pScalingLists: optional_pointer(&p.scaling_lists),
                ..p.std
            })
            .collect();
        let add = vk::VideoDecodeH264SessionParametersAddInfoKHR::default()
            .std_sp_ss(&std_sps)
            .std_pp_ss(&std_pps);
        let mut h264_parameters = vk::VideoDecodeH264SessionParametersCreateInfoKHR::default()
            .max_std_sps_count(std_sps.len() as u32)
            .max_std_pps_count(std_pps.len() as u32)
            .parameters_add_info(&add);
        let info = vk::VideoSessionParametersCreateInfoKHR::default()
            .video_session(self.session)
            .push_next(&mut h264_parameters);
        // SAFETY: a live session; the parameter sets' pointers go to vectors and
        // scaling lists of `parameter_sets`, which outlive the call, and to the null
        // VUI its flag allows (the caller clears `vui_parameters_present_flag`); a
        // null scaling list pointer goes with a clear scaling matrix flag.
        let result = unsafe {
            (fp.create_video_session_parameters_khr)(
                device.handle(),
                &info,
                std::ptr::null(),
                &mut self.parameters,
            )
        };
        check(result, "vkCreateVideoSessionParametersKHR")
    }

    /// The session parameters of an H.265 stream: every VPS, SPS and PPS,
    /// their pointers set to what each carries.
    fn h265_parameters(
        &mut self,
        decode: &DecodeQueue,
        parameter_sets: &H265ParameterSets,
    ) -> Result<()> {
        let device = &self.ctx.device;
        let fp = decode.video_queue.fp();
        let std_vps: Vec<StdVideoH265VideoParameterSet> = parameter_sets
            .vps
            .iter()
            .map(|v| StdVideoH265VideoParameterSet {
                pDecPicBufMgr: &v.dec_pic_buf_mgr,
                pHrdParameters: std::ptr::null(),
                pProfileTierLevel: &v.profile_tier_level,
                ..v.std
            })
            .collect();
        let std_sps: Vec<StdVideoH265SequenceParameterSet> = parameter_sets
            .sps
            .iter()
            .map(|s| StdVideoH265SequenceParameterSet {
                pProfileTierLevel: &s.profile_tier_level,
                pDecPicBufMgr: &s.dec_pic_buf_mgr,
                pScalingLists: optional_pointer(&s.scaling_lists),
                pShortTermRefPicSet: if s.short_term_rps.is_empty() {
                    std::ptr::null()
                } else {
                    s.short_term_rps.as_ptr()
                },
                pLongTermRefPicsSps: &s.long_term_ref_pics,
                pSequenceParameterSetVui: std::ptr::null(),
                pPredictorPaletteEntries: std::ptr::null(),
                ..s.std
            })
            .collect();
        let std_pps: Vec<StdVideoH265PictureParameterSet> = parameter_sets
            .pps
            .iter()
            .map(|p| StdVideoH265PictureParameterSet {
                pScalingLists: optional_pointer(&p.scaling_lists),
                pPredictorPaletteEntries: std::ptr::null(),
                ..p.std
            })
            .collect();
        let add = vk::VideoDecodeH265SessionParametersAddInfoKHR::default()
            .std_vp_ss(&std_vps)
            .std_sp_ss(&std_sps)
            .std_pp_ss(&std_pps);
        let mut h265_parameters = vk::VideoDecodeH265SessionParametersCreateInfoKHR::default()
            .max_std_vps_count(std_vps.len() as u32)
            .max_std_sps_count(std_sps.len() as u32)
            .max_std_pps_count(std_pps.len() as u32)
            .parameters_add_info(&add);
        let info = vk::VideoSessionParametersCreateInfoKHR::default()
            .video_session(self.session)
            .push_next(&mut h265_parameters);
        // SAFETY: a live session; the parameter sets' pointers go to fields of
        // `parameter_sets`, which outlive the call, and to null VUI, HRD parameters
        // and palette entries, which their flags leave out (the caller clears the VUI
        // and HRD flags and refuses SCC); a null scaling list pointer goes with a
        // clear `sps_`/`pps_scaling_list_data_present_flag`.
        let result = unsafe {
            (fp.create_video_session_parameters_khr)(
                device.handle(),
                &info,
                std::ptr::null(),
                &mut self.parameters,
            )
        };
        check(result, "vkCreateVideoSessionParametersKHR")
    }

    /// Checks that the decoder writes the session's format (NV12 or P010)
    /// into images that are also DPB pictures (`usage`), and that such
    /// images can be copied from.
    fn check_format(
        &self,
        profiles: &[vk::VideoProfileInfoKHR<'_>],
        usage: vk::ImageUsageFlags,
    ) -> Result<()> {
        let ctx = &self.ctx;
        let mut profile_list = vk::VideoProfileListInfoKHR::default().profiles(profiles);
        let info = vk::PhysicalDeviceVideoFormatInfoKHR::default()
            .image_usage(
                vk::ImageUsageFlags::VIDEO_DECODE_DPB_KHR
                    | vk::ImageUsageFlags::VIDEO_DECODE_DST_KHR,
            )
            .push_next(&mut profile_list);
        let fp = ash::khr::video_queue::Instance::new(&ctx.entry, &ctx.instance);
        let mut count = 0;
        // SAFETY: the device offers VK_KHR_video_queue; the first call only counts.
        let result = unsafe {
            (fp.fp().get_physical_device_video_format_properties_khr)(
                ctx.physical,
                &info,
                &mut count,
                std::ptr::null_mut(),
            )
        };
        check(result, "vkGetPhysicalDeviceVideoFormatPropertiesKHR")?;
        let mut formats = vec![vk::VideoFormatPropertiesKHR::default(); count as usize];
        // SAFETY: `formats` holds `count` structures; `info` and its chain outlive the call.
        let result = unsafe {
            (fp.fp().get_physical_device_video_format_properties_khr)(
                ctx.physical,
                &info,
                &mut count,
                formats.as_mut_ptr(),
            )
        };
        check(result, "vkGetPhysicalDeviceVideoFormatPropertiesKHR")?;
        let offered = formats[..count as usize]
            .iter()
            .find(|f| f.format == self.format && f.image_usage_flags.contains(usage));
        if offered.is_none() {
            let listed: Vec<String> = formats[..count as usize]
                .iter()
                .map(|f| {
                    format!("{:?} ({:?}, {:?})", f.format, f.image_usage_flags, f.image_tiling)
                })
                .collect();
            return Err(GpuError::VideoDecode(format!(
                "the decoder offers {listed:?} for DPB and output pictures, not {:?} with {usage:?}",
                self.format
            )));
        }
        Ok(())
    }

    /// Device memory for `requirements`: of a type with `flags` where the
    /// requirements allow one, else (for `DEVICE_LOCAL`, which some video
    /// session bindings exclude) of any type they allow. Host access
    /// (`HOST_VISIBLE`) is never given up.
    fn allocate(
        &self,
        requirements: vk::MemoryRequirements,
        flags: vk::MemoryPropertyFlags,
    ) -> Result<vk::DeviceMemory> {
        let ctx = &self.ctx;
        // SAFETY: the physical device belongs to this live instance.
        let props = unsafe { ctx.instance.get_physical_device_memory_properties(ctx.physical) };
        let find = |wanted: vk::MemoryPropertyFlags| {
            (0..props.memory_type_count).find(|&i| {
                requirements.memory_type_bits & (1 << i) != 0
                    && props.memory_types[i as usize].property_flags.contains(wanted)
            })
        };
        let fallback = flags & vk::MemoryPropertyFlags::HOST_VISIBLE;
        let index = find(flags).or_else(|| find(fallback)).ok_or_else(|| {
            GpuError::VideoDecode(format!(
                "no memory type {flags:?} among {:#x} for the decoder",
                requirements.memory_type_bits
            ))
        })?;
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(requirements.size)
            .memory_type_index(index);
        // SAFETY: plain allocate info.
        unsafe { ctx.device.allocate_memory(&info, None) }.map_err(vk_error("vkAllocateMemory"))
    }

    /// The picture resource of DPB slot `slot`.
    fn resource(&self, slot: u32) -> vk::VideoPictureResourceInfoKHR<'static> {
        vk::VideoPictureResourceInfoKHR::default()
            .coded_offset(vk::Offset2D { x: 0, y: 0 })
            .coded_extent(self.extent)
            .base_array_layer(0)
            .image_view_binding(self.views[slot as usize])
    }

    /// Decodes `picture` into its slot, waits, and copies it to the host.
    pub fn decode(&mut self, picture: &DecodePicture<'_>) -> Result<Nv12Picture> {
        let ticket = self.submit(picture)?;
        self.collect(ticket)
    }

    /// Submits `picture`'s decode without waiting; [`DecodeSession::collect`]
    /// with the returned ticket copies it to the host and gives it. At most
    /// [`IN_FLIGHT`] may be uncollected.
    pub fn submit(&mut self, picture: &DecodePicture<'_>) -> Result<u64> {
        self.submit_decode(picture, false)
    }

    /// Waits for the oldest uncollected picture, `ticket`, and reads it back.
    pub fn collect(&mut self, ticket: u64) -> Result<Nv12Picture> {
        if self.flights[(ticket % IN_FLIGHT as u64) as usize].kept_on_device {
            return Err(GpuError::Usage(format!(
                "picture {ticket} was submitted to stay on the device"
            )));
        }
        self.copy(ticket, None, None)?;
        self.wait(2 * ticket + 2)?;
        let flight = &self.flights[(ticket % IN_FLIGHT as u64) as usize];
        let bytes = flight.readback.mapped()?;
        let (w, h) = (self.extent.width, self.extent.height);
        let luma_size = (w * h * self.bytes_per_sample) as usize;
        Ok(Nv12Picture {
            width: w,
            height: h,
            bytes_per_sample: self.bytes_per_sample,
            luma: bytes[..luma_size].to_vec(),
            chroma: bytes[luma_size..luma_size + luma_size / 2].to_vec(),
        })
    }

    /// [`DecodeSession::submit`] for a picture that stays on the device
    /// ([`DecodeSession::collect_on_device`]).
    pub fn submit_on_device(&mut self, picture: &DecodePicture<'_>) -> Result<u64> {
        self.submit_decode(picture, true)
    }

    /// Collects the oldest uncollected picture, `ticket`, submitted by
    /// [`DecodeSession::submit_on_device`], without reading it back: once
    /// its decode is done, a submission on the context's queue copies it
    /// into its flight's device-local buffer (NV12 or P010, rows of the
    /// coded width) and runs what `then` records there (such as turning it
    /// into planes), ending in a barrier, so that work submitted later on
    /// that queue sees the results. Returns without waiting for that
    /// submission; what `then` returns is kept alive until it is done. Work
    /// `then` records must not read the buffer past that submission.
    pub fn collect_on_device(
        &mut self,
        ticket: u64,
        then: impl FnOnce(&mut Recorder<'_>, &Buffer) -> Result<Arc<dyn Send + Sync>>,
    ) -> Result<()> {
        let flight = (ticket % IN_FLIGHT as u64) as usize;
        if !self.flights[flight].kept_on_device {
            return Err(GpuError::Usage(format!(
                "picture {ticket} was not submitted to stay on the device"
            )));
        }
        let buffer = self.flights[flight].on_device.take().expect("made by submit_decode");
        let mut then = Some(then);
        let mut record = |rec: &mut Recorder<'_>| match then.take() {
            Some(then) => then(rec, &buffer).map(Some),
            None => Ok(None),
        };
        let copied = self.copy(ticket, Some(buffer.raw()), Some(&mut record));
        self.flights[flight].on_device = Some(buffer);
        copied
    }

    /// Waits on the host until the timeline reaches `value`.
    fn wait(&self, value: u64) -> Result<()> {
        let semaphores = [self.progress];
        let values = [value];
        let info = vk::SemaphoreWaitInfo::default().semaphores(&semaphores).values(&values);
        // SAFETY: a live timeline semaphore of this device; every value waited for was
        // submitted to be signalled (or is signalled by a submission this session makes
        // before it waits for anything later).
        unsafe { self.ctx.device.wait_semaphores(&info, u64::MAX) }
            .map_err(vk_error("vkWaitSemaphores"))
    }

    /// Bytes of one decoded picture as NV12 (or P010) at the coded size.
    pub fn picture_size(&self) -> u64 {
        u64::from(self.extent.width) * u64::from(self.extent.height) * 3 / 2
            * u64::from(self.bytes_per_sample)
    }

    /// The coded size pictures are decoded at.
    pub fn coded_size(&self) -> (u32, u32) {
        (self.extent.width, self.extent.height)
    }

    /// Bytes a decoded sample takes: 1 (NV12) or 2 (P010).
    pub fn bytes_per_sample(&self) -> u32 {
        self.bytes_per_sample
    }

    /// Submits `picture`'s decode on the decode queue, after the copy of
    /// the picture before it (the timeline's `2k`, which may be submitted
    /// later: a copy is submitted once its decode is done); returns its
    /// ticket. `on_device`: the picture is to stay on the device.
    fn submit_decode(&mut self, picture: &DecodePicture<'_>, on_device: bool) -> Result<u64> {
        let ticket = self.submitted;
        if ticket - self.collected >= IN_FLIGHT as u64 {
            return Err(GpuError::Usage(format!(
                "{IN_FLIGHT} pictures are in flight: collect one before submitting"
            )));
        }
        let flight = (ticket % IN_FLIGHT as u64) as usize;
        if on_device && self.flights[flight].on_device.is_none() {
            let buffer = Buffer::storage(&self.ctx, "decoded picture", self.picture_size())?;
            self.flights[flight].on_device = Some(buffer);
        }
        let decode_cmd = self.flights[flight].decode_cmd;
        let region = flight as u64 * BITSTREAM_SIZE;
        let ctx = self.ctx.clone();
        let device = &ctx.device;
        let decode = ctx.decode.as_ref().expect("a session exists only with a decode queue");
        let (setup_slot, reference_slots) = (picture.setup_slot(), picture.reference_slots());
        for &slot in std::iter::once(&setup_slot).chain(&reference_slots) {
            if slot >= self.slots {
                return Err(GpuError::VideoDecode(format!("DPB slot {slot} of {}", self.slots)));
            }
        }

        // The slices, each behind a start code, from offset 0.
        let mut offsets = Vec::with_capacity(picture.slices().len());
        let mut data = Vec::new();
        for slice in picture.slices() {
            offsets.push(data.len() as u32);
            data.extend_from_slice(&[0, 0, 1]);
            data.extend_from_slice(slice);
        }
        let range = (data.len() as u64).next_multiple_of(self.size_alignment);
        if range > BITSTREAM_SIZE {
            return Err(GpuError::VideoDecode(format!("a picture of {range} bytes is too large")));
        }
        data.resize(range as usize, 0);
        // SAFETY: the mapping holds IN_FLIGHT regions of BITSTREAM_SIZE bytes and no
        // submission reads this flight's region now (its last picture was collected,
        // so its decode and copy are done).
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                self.bitstream_map.add(region as usize),
                data.len(),
            )
        };

        let resources: Vec<vk::VideoPictureResourceInfoKHR<'_>> =
            (0..self.slots).map(|s| self.resource(s)).collect();
        let slot_info = |slot: u32| {
            vk::VideoReferenceSlotInfoKHR::default()
                .slot_index(slot as i32)
                .picture_resource(&resources[slot as usize])
        };
        // The codec's structures for the references, the slot set up and the
        // picture; only those of the picture's codec are filled and chained.
        let mut h264_references: Vec<vk::VideoDecodeH264DpbSlotInfoKHR<'_>>;
        let mut h265_references: Vec<vk::VideoDecodeH265DpbSlotInfoKHR<'_>>;
        let mut h264_setup = vk::VideoDecodeH264DpbSlotInfoKHR::default();
        let mut h265_setup = vk::VideoDecodeH265DpbSlotInfoKHR::default();
        let mut h264_picture = vk::VideoDecodeH264PictureInfoKHR::default();
        let mut h265_picture = vk::VideoDecodeH265PictureInfoKHR::default();
        let (references, setup): (Vec<vk::VideoReferenceSlotInfoKHR<'_>>, _) = match picture {
            DecodePicture::H264(p) => {
                h264_references = p
                    .references
                    .iter()
                    .map(|r| {
                        vk::VideoDecodeH264DpbSlotInfoKHR::default().std_reference_info(&r.std)
                    })
                    .collect();
                h264_setup = h264_setup.std_reference_info(&p.setup.std);
                h264_picture = h264_picture.std_picture_info(&p.std).slice_offsets(&offsets);
                let references = reference_slots
                    .iter()
                    .zip(h264_references.iter_mut())
                    .map(|(&slot, info)| slot_info(slot).push_next(info))
                    .collect();
                (references, slot_info(setup_slot).push_next(&mut h264_setup))
            }
            DecodePicture::H265(p) => {
                h265_references = p
                    .references
                    .iter()
                    .map(|r| {
                        vk::VideoDecodeH265DpbSlotInfoKHR::default().std_reference_info(&r.std)
                    })
                    .collect();
                h265_setup = h265_setup.std_reference_info(&p.setup.std);
                h265_picture =
                    h265_picture.std_picture_info(&p.std).slice_segment_offsets(&offsets);
                let references = reference_slots
                    .iter()
                    .zip(h265_references.iter_mut())
                    .map(|(&slot, info)| slot_info(slot).push_next(info))
                    .collect();
                (references, slot_info(setup_slot).push_next(&mut h265_setup))
            }
        };
        // Begin coding binds the references and, not yet active, the slot to set up.
        let mut bound: Vec<vk::VideoReferenceSlotInfoKHR<'_>> =
            reference_slots.iter().map(|&slot| slot_info(slot)).collect();
        bound.push(
            vk::VideoReferenceSlotInfoKHR::default()
                .slot_index(-1)
                .picture_resource(&resources[setup_slot as usize]),
        );
        let decode_info = vk::VideoDecodeInfoKHR::default()
            .src_buffer(self.bitstream)
            .src_buffer_offset(region)
            .src_buffer_range(range)
            .dst_picture_resource(resources[setup_slot as usize])
            .setup_reference_slot(&setup)
            .reference_slots(&references);
        let decode_info = match picture {
            DecodePicture::H264(_) => decode_info.push_next(&mut h264_picture),
            DecodePicture::H265(_) => decode_info.push_next(&mut h265_picture),
        };
        let begin = vk::VideoBeginCodingInfoKHR::default()
            .video_session(self.session)
            .video_session_parameters(self.parameters)
            .reference_slots(&bound);

        let cmd = decode_cmd;
        let vq = decode.video_queue.fp();
        let vd = decode.video_decode.fp();
        // SAFETY: the command buffer is idle (its flight's last picture was collected);
        // every structure the commands point to lives until recording ends; the DPB
        // layers are in VIDEO_DECODE_DPB layout whenever a decode reads or writes them
        // (laid out on the first decode, and put back by every copy).
        unsafe {
            device
                .begin_command_buffer(
                    cmd,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(vk_error("vkBeginCommandBuffer"))?;
            if !self.started {
                let barrier = vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::NONE)
                    .dst_stage_mask(vk::PipelineStageFlags2::VIDEO_DECODE_KHR)
                    .dst_access_mask(
                        vk::AccessFlags2::VIDEO_DECODE_READ_KHR
                            | vk::AccessFlags2::VIDEO_DECODE_WRITE_KHR,
                    )
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::VIDEO_DECODE_DPB_KHR)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .image(self.dpb)
                    .subresource_range(layers(0, self.slots));
                device.cmd_pipeline_barrier2(
                    cmd,
                    &vk::DependencyInfo::default().image_memory_barriers(&[barrier]),
                );
            }
            (vq.cmd_begin_video_coding_khr)(cmd, &begin);
            if !self.started {
                let control = vk::VideoCodingControlInfoKHR::default()
                    .flags(vk::VideoCodingControlFlagsKHR::RESET);
                (vq.cmd_control_video_coding_khr)(cmd, &control);
            }
            (vd.cmd_decode_video_khr)(cmd, &decode_info);
            (vq.cmd_end_video_coding_khr)(cmd, &vk::VideoEndCodingInfoKHR::default());
            device.end_command_buffer(cmd).map_err(vk_error("vkEndCommandBuffer"))?;
        }
        self.started = true;
        // After the previous picture's copy (which lays its slot back out for
        // decoding and may read the slot this decode writes).
        let at = |value| timeline_at(self.progress, value);
        let waits = [at(2 * ticket)];
        let signals = [at(2 * ticket + 1)];
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
        let submit = vk::SubmitInfo2::default()
            .wait_semaphore_infos(if ticket > 0 { &waits } else { &[] })
            .command_buffer_infos(&cmds)
            .signal_semaphore_infos(&signals);
        let queue = decode.queues[self.queue].lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the decode queue is held locked; the command buffer is recorded; the
        // value waited for is signalled by the previous picture's copy (submitted when
        // that picture is collected, before any later value is waited for on the host,
        // or by the drop), and the value signalled is the next in the timeline's order.
        unsafe { device.queue_submit2(*queue, &[submit], vk::Fence::null()) }
            .map_err(vk_error("vkQueueSubmit2 (decode)"))?;
        drop(queue);
        let flight = &mut self.flights[flight];
        flight.slot = setup_slot;
        flight.kept_on_device = on_device;
        self.submitted += 1;
        Ok(ticket)
    }

    /// Once picture `ticket` (the oldest uncollected) is decoded, submits on
    /// the context's queue the copy of it into `dst` (`None`: its flight's
    /// read-back buffer), followed by what `then` records, and counts it
    /// collected; the submission signals the timeline's `2 * ticket + 2`.
    fn copy(
        &mut self,
        ticket: u64,
        dst: Option<vk::Buffer>,
        then: Option<&mut AfterCopy<'_>>,
    ) -> Result<()> {
        if ticket != self.collected || ticket >= self.submitted {
            return Err(GpuError::Usage(format!(
                "collecting picture {ticket}; the oldest uncollected is {} of {}",
                self.collected, self.submitted
            )));
        }
        // The decode, and the flight's previous copy (whose command buffer
        // and buffers this one reuses, and whose kept resources it frees).
        self.wait(2 * ticket + 1)?;
        let flight = (ticket % IN_FLIGHT as u64) as usize;
        if ticket >= IN_FLIGHT as u64 {
            self.wait(2 * (ticket - IN_FLIGHT as u64) + 2)?;
        }
        self.flights[flight].keep = None;
        let dst = dst.unwrap_or_else(|| self.flights[flight].readback.raw());
        let ctx = self.ctx.clone();
        let device = &ctx.device;
        let at = |value| timeline_at(self.progress, value);
        let (w, h) = (self.extent.width, self.extent.height);
        let slot = self.flights[flight].slot;
        let to_copy = vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .old_layout(vk::ImageLayout::VIDEO_DECODE_DPB_KHR)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(self.dpb)
            .subresource_range(layers(slot, 1));
        let back = vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .old_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .new_layout(vk::ImageLayout::VIDEO_DECODE_DPB_KHR)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(self.dpb)
            .subresource_range(layers(slot, 1));
        // For the host (fence wait) and for later work on this queue alike.
        let host = vk::BufferMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::HOST | vk::PipelineStageFlags2::ALL_COMMANDS)
            .dst_access_mask(vk::AccessFlags2::HOST_READ | vk::AccessFlags2::MEMORY_READ)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .buffer(dst)
            .offset(0)
            .size(vk::WHOLE_SIZE);
        let plane = |aspect, offset, width, height| vk::BufferImageCopy {
            buffer_offset: offset,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: aspect,
                mip_level: 0,
                base_array_layer: slot,
                layer_count: 1,
            },
            image_offset: vk::Offset3D::default(),
            image_extent: vk::Extent3D { width, height, depth: 1 },
        };
        let luma_bytes = u64::from(w) * u64::from(h) * u64::from(self.bytes_per_sample);
        let regions = [
            plane(vk::ImageAspectFlags::PLANE_0, 0, w, h),
            plane(vk::ImageAspectFlags::PLANE_1, luma_bytes, w / 2, h / 2),
        ];
        let cmd = self.flights[flight].copy_cmd;
        // SAFETY: the copy command buffer is idle (the flight's previous copy was waited
        // for above); the layer is laid out for the copy by
        // the first barrier (after the decode, which the submission waits for) and back
        // for decoding by the second; the readback buffer holds both planes.
        unsafe {
            device
                .begin_command_buffer(
                    cmd,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(vk_error("vkBeginCommandBuffer"))?;
            device.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().image_memory_barriers(&[to_copy]),
            );
            device.cmd_copy_image_to_buffer(
                cmd,
                self.dpb,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst,
                &regions,
            );
            device.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default()
                    .image_memory_barriers(&[back])
                    .buffer_memory_barriers(&[host]),
            );
        }
        let recorded = match then {
            Some(then) => then(&mut Recorder::over(&ctx, cmd)),
            None => Ok(None),
        };
        // SAFETY: `cmd` is recording (begun above); it is ended even when `then` failed,
        // and then not submitted (the drop submits what the next decode waits for).
        unsafe { device.end_command_buffer(cmd) }.map_err(vk_error("vkEndCommandBuffer"))?;
        let keep = recorded?;
        let waits = [at(2 * ticket + 1)];
        let signals = [at(2 * ticket + 2)];
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
        let submit = vk::SubmitInfo2::default()
            .wait_semaphore_infos(&waits)
            .command_buffer_infos(&cmds)
            .signal_semaphore_infos(&signals);
        // SAFETY: the context's queue is held by `with_queue`; the value waited for was
        // reached (waited for above), the one signalled is the next.
        ctx.with_queue(|queue| unsafe {
            device.queue_submit2(queue, &[submit], vk::Fence::null())
        })
        .map_err(vk_error("vkQueueSubmit2 (copy)"))?;
        self.flights[flight].keep = keep;
        self.collected += 1;
        Ok(())
    }

    /// Waits until the device is done with every picture submitted so far
    /// (those never collected are let go without a copy): what the
    /// pictures' work was given to keep may then go.
    pub fn settle(&mut self) -> Result<()> {
        self.finish_work()
    }

    /// Settles, then makes the next decode start as the first did: the DPB
    /// laid out anew and the session reset, for a decode from another
    /// seek point (an IDR or IRAP picture with an empty DPB) on the same
    /// session, which costs far less than a new session and DPB.
    pub fn restart(&mut self) -> Result<()> {
        self.finish_work()?;
        self.started = false;
        Ok(())
    }

    /// Ends this session's work without waiting for the device: for each
    /// picture submitted and never collected, in order, waits for its
    /// decode and signals its copy's value from the host (no copy is
    /// needed), so that the decode after it can run; then waits for the
    /// last value, which the last copy (with the work recorded after it)
    /// or that signal reaches. Only this session's work is waited for:
    /// other sessions' decodes may wait for copies their threads have yet
    /// to submit, and nothing here holds a queue they need.
    fn finish_work(&mut self) -> Result<()> {
        if self.submitted == 0 {
            // Nothing was submitted (or the session was not made whole: its
            // timeline may not exist).
            return Ok(());
        }
        for ticket in self.collected..self.submitted {
            self.wait(2 * ticket + 1)?;
            let info =
                vk::SemaphoreSignalInfo::default().semaphore(self.progress).value(2 * ticket + 2);
            // SAFETY: a live timeline semaphore of this device; its value is now 2k + 1
            // (the decode just waited for), below the one signalled, which nothing else
            // signals (this picture's copy was never submitted).
            unsafe { self.ctx.device.signal_semaphore(&info) }
                .map_err(vk_error("vkSignalSemaphore"))?;
            self.collected += 1;
        }
        self.wait(2 * self.submitted)
    }
}

/// What a std structure's optional pointer field holds: `value`'s address,
/// or null where there is none.
fn optional_pointer<T>(value: &Option<T>) -> *const T {
    value.as_ref().map_or(std::ptr::null(), |v| v)
}

/// Layers `base..base + count` of the DPB image.
fn layers(base: u32, count: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: base,
        layer_count: count,
    }
}

/// The session's timeline at `value`, for any stage of a submission.
fn timeline_at(progress: vk::Semaphore, value: u64) -> vk::SemaphoreSubmitInfo<'static> {
    vk::SemaphoreSubmitInfo::default()
        .semaphore(progress)
        .value(value)
        .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
}

/// A raw `vk::Result` from `call` as this crate's error.
fn check(result: vk::Result, call: &'static str) -> Result<()> {
    result.result().map_err(vk_error(call))
}

impl Drop for DecodeSession {
    fn drop(&mut self) {
        let ctx = self.ctx.clone();
        // A wait fails only when the device is lost, and a lost device's work
        // counts as done: the objects may be destroyed either way.
        let _ = self.finish_work();
        let device = &ctx.device;
        // SAFETY: this session's work is done (`finish_work`), so nothing in flight
        // uses these objects; each is destroyed once, in reverse order of creation
        // (null handles are ignored by Vulkan), and none is used again.
        unsafe {
            device.destroy_semaphore(self.progress, None);
            self.flights.clear();
            device.destroy_command_pool(self.copy_pool, None);
            device.destroy_command_pool(self.decode_pool, None);
            device.destroy_buffer(self.bitstream, None);
            if self.bitstream_memory != vk::DeviceMemory::null() {
                device.free_memory(self.bitstream_memory, None);
            }
            for &view in self.views.iter().rev() {
                device.destroy_image_view(view, None);
            }
            device.destroy_image(self.dpb, None);
            if self.dpb_memory != vk::DeviceMemory::null() {
                device.free_memory(self.dpb_memory, None);
            }
            if let Some(decode) = ctx.decode.as_ref() {
                let fp = decode.video_queue.fp();
                if self.parameters != vk::VideoSessionParametersKHR::null() {
                    (fp.destroy_video_session_parameters_khr)(
                        device.handle(),
                        self.parameters,
                        std::ptr::null(),
                    );
                }
                if self.session != vk::VideoSessionKHR::null() {
                    (fp.destroy_video_session_khr)(device.handle(), self.session, std::ptr::null());
                }
                decode.leave_queue(self.queue);
            }
            for &memory in self.session_memory.iter().rev() {
                device.free_memory(memory, None);
            }
        }
    }
}
