//! What the device offers for video decode (Vulkan Video), asked before any
//! decode session exists: whether it has the extensions, a queue family
//! that decodes the codec, and for one stream's profile the largest coded
//! size, the DPB slots and active references, and the highest level.
//! `vqscope info` reports it; the decode session (issue 18) will start
//! from it. Only the physical device is asked, so the context's device
//! need not enable the extensions.

use std::ffi::CStr;

use ash::vk;

use crate::context::GpuContext;
use crate::error::{Result, vk_error};

/// A stream's profile, as Vulkan Video's `VkVideoProfileInfoKHR` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeProfile {
    /// `DECODE_H264` or `DECODE_H265`.
    pub operation: vk::VideoCodecOperationFlagsKHR,
    /// H.264 `profile_idc` or H.265 `general_profile_idc`.
    pub profile_idc: u32,
    pub chroma: vk::VideoChromaSubsamplingFlagsKHR,
    pub luma_bit_depth: u32,
    pub chroma_bit_depth: u32,
    /// H.264 field or MBAFF coding: asked as interleaved lines (both fields
    /// in one image), the layout a frame-based reader wants.
    pub interlaced: bool,
}

/// The limits `vkGetPhysicalDeviceVideoCapabilitiesKHR` gives for a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeCapabilities {
    pub min_coded_extent: (u32, u32),
    pub max_coded_extent: (u32, u32),
    pub max_dpb_slots: u32,
    pub max_active_reference_pictures: u32,
    /// The highest level, as the standards number it (`level_idc`: 10 x
    /// level for H.264, 30 x level for H.265); `None` if the driver's value
    /// is not a level the standard defines.
    pub max_level_idc: Option<u32>,
    /// Whether decoded pictures can be read from the DPB images themselves
    /// (`DPB_AND_OUTPUT_COINCIDE`) or need separate output images (`DISTINCT`).
    pub decode_flags: vk::VideoDecodeCapabilityFlagsKHR,
    /// Where a picture's data may start in a bitstream buffer, and what its
    /// size must be a multiple of.
    pub bitstream_offset_alignment: u64,
    pub bitstream_size_alignment: u64,
    /// `specVersion` of the codec's std header the driver implements, which
    /// a video session names.
    pub std_header_version: u32,
}

/// Whether, and how far, the device decodes a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeSupport {
    /// The device lacks these of the extensions the codec needs.
    MissingExtensions(Vec<&'static str>),
    /// The extensions exist but no queue family decodes this codec.
    NoDecodeQueue,
    /// The driver refuses the profile: the `VkResult` it answered.
    ProfileNotSupported(vk::Result),
    /// Decodable: the queue family to decode on, its queue count, the limits.
    Supported { queue_family: u32, queue_count: u32, capabilities: DecodeCapabilities },
}

/// The device extensions a decoder of `operation` needs.
pub(crate) fn required_extensions(
    operation: vk::VideoCodecOperationFlagsKHR,
) -> [&'static CStr; 3] {
    let codec = if operation == vk::VideoCodecOperationFlagsKHR::DECODE_H265 {
        ash::khr::video_decode_h265::NAME
    } else {
        ash::khr::video_decode_h264::NAME
    };
    [ash::khr::video_queue::NAME, ash::khr::video_decode_queue::NAME, codec]
}

impl GpuContext {
    /// The decode queues this context made (0 without video decode): how
    /// many decodes run side by side on the device's decoders.
    pub fn decode_queue_count(&self) -> usize {
        self.decode.as_ref().map_or(0, |d| d.queues.len())
    }

    /// Bytes of the device's largest device-local memory heap: what a
    /// decoder may hold pictures ahead in is a share of it.
    pub fn device_local_bytes(&self) -> u64 {
        // SAFETY: the physical device belongs to this context's live instance.
        let memory = unsafe { self.instance.get_physical_device_memory_properties(self.physical) };
        let heaps = &memory.memory_heaps[..memory.memory_heap_count as usize];
        heaps
            .iter()
            .filter(|heap| heap.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|heap| heap.size)
            .max()
            .unwrap_or(0)
    }

    /// Whether this device can decode `profile`, and within which limits.
    pub fn video_decode_support(&self, profile: &DecodeProfile) -> Result<DecodeSupport> {
        // SAFETY: the physical device belongs to this context's live instance.
        let offered = unsafe { self.instance.enumerate_device_extension_properties(self.physical) }
            .map_err(vk_error("vkEnumerateDeviceExtensionProperties"))?;
        let missing: Vec<&'static str> = required_extensions(profile.operation)
            .into_iter()
            .filter(|name| !offered.iter().any(|e| e.extension_name_as_c_str() == Ok(*name)))
            .map(|name| name.to_str().unwrap_or("?"))
            .collect();
        if !missing.is_empty() {
            return Ok(DecodeSupport::MissingExtensions(missing));
        }
        let Some((queue_family, queue_count)) = self
            .decode
            .as_ref()
            .and_then(|_| decode_queue_family(&self.instance, self.physical, profile.operation))
        else {
            // None offered, or this context was made without its queues
            // (`ContextOptions::video_decode`).
            return Ok(DecodeSupport::NoDecodeQueue);
        };
        match self.decode_capabilities(profile) {
            Ok(capabilities) => {
                Ok(DecodeSupport::Supported { queue_family, queue_count, capabilities })
            }
            Err(result) => Ok(DecodeSupport::ProfileNotSupported(result)),
        }
    }

    /// `vkGetPhysicalDeviceVideoCapabilitiesKHR` for `profile`, with the
    /// decode and codec structures chained as the call requires; the
    /// driver's error code when it refuses the profile.
    pub(crate) fn decode_capabilities(
        &self,
        profile: &DecodeProfile,
    ) -> std::result::Result<DecodeCapabilities, vk::Result> {
        let h265 = profile.operation == vk::VideoCodecOperationFlagsKHR::DECODE_H265;
        let layout = if profile.interlaced {
            vk::VideoDecodeH264PictureLayoutFlagsKHR::INTERLACED_INTERLEAVED_LINES
        } else {
            vk::VideoDecodeH264PictureLayoutFlagsKHR::PROGRESSIVE
        };
        let mut h264_profile = vk::VideoDecodeH264ProfileInfoKHR::default()
            .std_profile_idc(profile.profile_idc)
            .picture_layout(layout);
        let mut h265_profile =
            vk::VideoDecodeH265ProfileInfoKHR::default().std_profile_idc(profile.profile_idc);
        // A depth Vulkan Video has no flag for (9, 14 bits) cannot even be
        // asked: the profile structure must name one. Monochrome names none
        // for chroma.
        let unsupported = vk::Result::ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR;
        let luma_depth = component_depth(profile.luma_bit_depth).ok_or(unsupported)?;
        let chroma_depth = if profile.chroma == vk::VideoChromaSubsamplingFlagsKHR::MONOCHROME {
            vk::VideoComponentBitDepthFlagsKHR::INVALID
        } else {
            component_depth(profile.chroma_bit_depth).ok_or(unsupported)?
        };
        let info = vk::VideoProfileInfoKHR::default()
            .video_codec_operation(profile.operation)
            .chroma_subsampling(profile.chroma)
            .luma_bit_depth(luma_depth)
            .chroma_bit_depth(chroma_depth);
        let info = if h265 {
            info.push_next(&mut h265_profile)
        } else {
            info.push_next(&mut h264_profile)
        };

        let mut h264_caps = vk::VideoDecodeH264CapabilitiesKHR::default();
        let mut h265_caps = vk::VideoDecodeH265CapabilitiesKHR::default();
        let mut decode_caps = vk::VideoDecodeCapabilitiesKHR::default();
        let caps = vk::VideoCapabilitiesKHR::default().push_next(&mut decode_caps);
        let mut caps =
            if h265 { caps.push_next(&mut h265_caps) } else { caps.push_next(&mut h264_caps) };

        let video_queue = ash::khr::video_queue::Instance::new(&self.entry, &self.instance);
        // SAFETY: the caller checked that the device offers VK_KHR_video_queue, so the
        // function exists for it; `info` and `caps` and the structures chained to them
        // live until the call returns, and each chain holds the codec's structure the
        // call requires for `profile.operation`.
        let result = unsafe {
            (video_queue.fp().get_physical_device_video_capabilities_khr)(
                self.physical,
                &info,
                &mut caps,
            )
        };
        if result != vk::Result::SUCCESS {
            return Err(result);
        }
        let extent = |e: vk::Extent2D| (e.width, e.height);
        let (min_coded_extent, max_coded_extent, max_dpb_slots, max_active_reference_pictures) = (
            extent(caps.min_coded_extent),
            extent(caps.max_coded_extent),
            caps.max_dpb_slots,
            caps.max_active_reference_pictures,
        );
        let (bitstream_offset_alignment, bitstream_size_alignment, std_header_version) = (
            caps.min_bitstream_buffer_offset_alignment,
            caps.min_bitstream_buffer_size_alignment,
            caps.std_header_version.spec_version,
        );
        let max_level_idc = if h265 {
            level_idc(&H265_LEVELS, h265_caps.max_level_idc)
        } else {
            level_idc(&H264_LEVELS, h264_caps.max_level_idc)
        };
        Ok(DecodeCapabilities {
            min_coded_extent,
            max_coded_extent,
            max_dpb_slots,
            max_active_reference_pictures,
            max_level_idc,
            decode_flags: decode_caps.flags,
            bitstream_offset_alignment,
            bitstream_size_alignment,
            std_header_version,
        })
    }
}

/// The first queue family with `VK_QUEUE_VIDEO_DECODE_BIT_KHR` whose
/// video operations include `operation`, and its queue count.
/// Only called once `VK_KHR_video_queue` is known to be offered, as
/// chaining `VkQueueFamilyVideoPropertiesKHR` requires.
pub(crate) fn decode_queue_family(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    operation: vk::VideoCodecOperationFlagsKHR,
) -> Option<(u32, u32)> {
    // SAFETY: the physical device belongs to this live instance.
    let count = unsafe { instance.get_physical_device_queue_family_properties2_len(physical) };
    let mut video = vec![vk::QueueFamilyVideoPropertiesKHR::default(); count];
    let mut families: Vec<vk::QueueFamilyProperties2> =
        video.iter_mut().map(|v| vk::QueueFamilyProperties2::default().push_next(v)).collect();
    // SAFETY: `families` has the length the driver reported, and each
    // chained video structure lives in `video`, which outlives the call.
    unsafe { instance.get_physical_device_queue_family_properties2(physical, &mut families) };
    let queues: Vec<(vk::QueueFlags, u32)> = families
        .iter()
        .map(|f| (f.queue_family_properties.queue_flags, f.queue_family_properties.queue_count))
        .collect();
    drop(families);
    queues.iter().zip(&video).enumerate().find_map(|(index, (&(flags, count), v))| {
        (flags.contains(vk::QueueFlags::VIDEO_DECODE_KHR)
            && v.video_codec_operations.contains(operation))
        .then_some((index as u32, count))
    })
}

/// Vulkan's bit depth flag for a component depth, if it has one.
fn component_depth(bits: u32) -> Option<vk::VideoComponentBitDepthFlagsKHR> {
    match bits {
        8 => Some(vk::VideoComponentBitDepthFlagsKHR::TYPE_8),
        10 => Some(vk::VideoComponentBitDepthFlagsKHR::TYPE_10),
        12 => Some(vk::VideoComponentBitDepthFlagsKHR::TYPE_12),
        _ => None,
    }
}

/// The standards' `level_idc` for each `StdVideoH264LevelIdc` value (1.0,
/// 1.1, …, 6.2 in order) and each `StdVideoH265LevelIdc` value (1, 2, 2.1,
/// …, 6.2), so device limits compare with a stream's parameter sets.
const H264_LEVELS: [u32; 19] =
    [10, 11, 12, 13, 20, 21, 22, 30, 31, 32, 40, 41, 42, 50, 51, 52, 60, 61, 62];
const H265_LEVELS: [u32; 13] = [30, 60, 63, 90, 93, 120, 123, 150, 153, 156, 180, 183, 186];

/// The `StdVideoH264LevelIdc` of an H.264 `level_idc` (10 x level), for
/// session parameters; `None` for a level the table lacks (level 1b, which
/// decoders treat as 1.1, maps to 1.1 since it is coded as 11 or 9).
pub fn h264_std_level(level_idc: u32) -> Option<u32> {
    let level_idc = if level_idc == 9 { 11 } else { level_idc };
    H264_LEVELS.iter().position(|&l| l == level_idc).map(|i| i as u32)
}

/// The `StdVideoH265LevelIdc` of an H.265 `general_level_idc` (30 x level),
/// for session parameters; `None` for a level the table lacks.
pub fn h265_std_level(level_idc: u32) -> Option<u32> {
    H265_LEVELS.iter().position(|&l| l == level_idc).map(|i| i as u32)
}

fn level_idc(table: &[u32], std_level: u32) -> Option<u32> {
    table.get(std_level as usize).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_levels_map_to_level_idc() {
        use ash::vk::native::*;
        let h264 = |l| level_idc(&H264_LEVELS, l);
        assert_eq!(h264(StdVideoH264LevelIdc_STD_VIDEO_H264_LEVEL_IDC_1_0), Some(10));
        assert_eq!(h264(StdVideoH264LevelIdc_STD_VIDEO_H264_LEVEL_IDC_3_0), Some(30));
        assert_eq!(h264(StdVideoH264LevelIdc_STD_VIDEO_H264_LEVEL_IDC_5_1), Some(51));
        assert_eq!(h264(StdVideoH264LevelIdc_STD_VIDEO_H264_LEVEL_IDC_6_2), Some(62));
        assert_eq!(h264(StdVideoH264LevelIdc_STD_VIDEO_H264_LEVEL_IDC_INVALID), None);
        let h265 = |l| level_idc(&H265_LEVELS, l);
        assert_eq!(h265(StdVideoH265LevelIdc_STD_VIDEO_H265_LEVEL_IDC_1_0), Some(30));
        assert_eq!(h265(StdVideoH265LevelIdc_STD_VIDEO_H265_LEVEL_IDC_4_1), Some(123));
        assert_eq!(h265(StdVideoH265LevelIdc_STD_VIDEO_H265_LEVEL_IDC_6_2), Some(186));
        assert_eq!(h265(StdVideoH265LevelIdc_STD_VIDEO_H265_LEVEL_IDC_INVALID), None);
    }

    #[test]
    fn extensions_per_codec() {
        let names = |op| required_extensions(op).map(|n| n.to_str().unwrap());
        assert_eq!(
            names(vk::VideoCodecOperationFlagsKHR::DECODE_H265),
            ["VK_KHR_video_queue", "VK_KHR_video_decode_queue", "VK_KHR_video_decode_h265"]
        );
        assert_eq!(
            names(vk::VideoCodecOperationFlagsKHR::DECODE_H264)[2],
            "VK_KHR_video_decode_h264"
        );
    }
}
