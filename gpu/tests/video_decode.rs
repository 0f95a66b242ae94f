//! The video decode query on the device the tests run on. lavapipe offers
//! no Vulkan Video extension, so there it must say which are missing; on a
//! device with video queues (the H200) it must find the decode queue family
//! and sane limits for the profiles issue 18 needs. Validation stays silent.

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_gpu::{ContextOptions, DecodeProfile, DecodeSupport, GpuContext, vk};

fn profile(operation: vk::VideoCodecOperationFlagsKHR, idc: u32, depth: u32) -> DecodeProfile {
    DecodeProfile {
        operation,
        profile_idc: idc,
        chroma: vk::VideoChromaSubsamplingFlagsKHR::TYPE_420,
        luma_bit_depth: depth,
        chroma_bit_depth: depth,
        interlaced: false,
    }
}

#[test]
fn decode_support_for_h264_high_and_h265_main10() {
    let ctx = test_context();
    let lavapipe = ctx.info().name.contains("llvmpipe");
    let cases = [
        (profile(vk::VideoCodecOperationFlagsKHR::DECODE_H264, 100, 8), "VK_KHR_video_decode_h264"),
        (profile(vk::VideoCodecOperationFlagsKHR::DECODE_H265, 2, 10), "VK_KHR_video_decode_h265"),
    ];
    for (profile, codec_extension) in cases {
        let support = ctx.video_decode_support(&profile).expect("the query itself succeeds");
        println!("{}: {profile:?}: {support:?}", ctx.info().name);
        match support {
            DecodeSupport::MissingExtensions(missing) if lavapipe => assert_eq!(
                missing,
                ["VK_KHR_video_queue", "VK_KHR_video_decode_queue", codec_extension]
            ),
            _ if lavapipe => panic!("lavapipe now offers video decode: {support:?}"),
            DecodeSupport::Supported { queue_count, capabilities: c, .. } => {
                assert!(queue_count >= 1);
                // Every profile in issue 18 is at least 1080p with a DPB of 16 pictures.
                assert!(c.max_coded_extent.0 >= 1920 && c.max_coded_extent.1 >= 1080, "{c:?}");
                assert!(c.min_coded_extent.0 <= c.max_coded_extent.0, "{c:?}");
                assert!(c.max_dpb_slots >= 16 && c.max_active_reference_pictures >= 15, "{c:?}");
                assert!(c.max_level_idc.is_some(), "{c:?}");
            }
            // Other devices may lack a codec; the answer just has to be one of these.
            DecodeSupport::MissingExtensions(_)
            | DecodeSupport::NoDecodeQueue
            | DecodeSupport::ProfileNotSupported(_) => {}
        }
    }
    // 14-bit samples have no Vulkan Video flag: refused without asking the driver.
    let odd = ctx
        .video_decode_support(&profile(vk::VideoCodecOperationFlagsKHR::DECODE_H265, 4, 14))
        .unwrap();
    assert!(
        matches!(
            odd,
            DecodeSupport::MissingExtensions(_)
                | DecodeSupport::NoDecodeQueue
                | DecodeSupport::ProfileNotSupported(
                    vk::Result::ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR
                )
        ),
        "{odd:?}"
    );
    assert_no_validation_messages();
}

/// A context made without `video_decode` has no decode queue, whatever the
/// device offers: commands that decode nothing do not pay for the queues.
#[test]
fn a_context_without_video_decode_has_no_decode_queue() {
    let options = ContextOptions { video_decode: false, ..ContextOptions::from_env() };
    let ctx = GpuContext::new(&options).expect("a context");
    let h264 = profile(vk::VideoCodecOperationFlagsKHR::DECODE_H264, 100, 8);
    let support = ctx.video_decode_support(&h264).expect("the query itself succeeds");
    assert!(
        matches!(support, DecodeSupport::MissingExtensions(_) | DecodeSupport::NoDecodeQueue),
        "{support:?}"
    );
    assert_eq!(ctx.decode_queue_count(), 0);
}
