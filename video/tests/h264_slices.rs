//! H.264 PPS and slice headers, picture order and output order, on the
//! committed x264 streams, with no device involved. Expected values come
//! from ffmpeg: syntax elements from `ffmpeg -loglevel trace -i S -c:v copy
//! -bsf:v trace_headers -f null -` (quoted in the comments), and the order
//! pictures are output in from `ffprobe -show_entries
//! frame=coded_picture_number -of csv=p=0 S` (each output frame's position
//! in decoding order).

use std::path::PathBuf;

use vqscope_video::bitstream::h264_dpb::Dpb;
use vqscope_video::bitstream::h264_slice::Mmco;
use vqscope_video::bitstream::h264_stream::H264Stream;

fn read(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/bitstream").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn pps_and_slice_headers_of_the_pyramid_stream() {
    let data = read("h264_high_pyramid_slices_640x360.h264");
    let stream = H264Stream::parse(&data).unwrap();
    let pps = &stream.pps[&0];
    // entropy_coding_mode_flag 1, num_ref_idx_l0_default_active_minus1 3,
    // weighted_pred_flag 1, weighted_bipred_idc 2, pic_init_qp_minus26 12,
    // deblocking_filter_control_present_flag 1, transform_8x8_mode_flag 1.
    assert!(pps.entropy_coding_mode && pps.weighted_pred && pps.transform_8x8_mode);
    assert_eq!((pps.num_ref_idx_l0_default_active, pps.weighted_bipred_idc), (4, 2));
    assert_eq!((pps.pic_init_qp_minus26, pps.second_chroma_qp_index_offset), (12, 0));
    assert!(pps.deblocking_filter_control_present && pps.scaling_lists.is_none());

    // 30 pictures of two slices each (first_mb_in_slice 0 and 480).
    assert_eq!(stream.pictures.len(), 30);
    assert!(stream.pictures.iter().all(|p| p.len() == 2 && p[1].0.first_mb_in_slice == 480));
    let summary: Vec<(u32, u32, u32, u32)> = stream
        .pictures
        .iter()
        .map(|p| {
            (p[0].0.nal_unit_type, p[0].0.nal_ref_idc, p[0].0.frame_num, p[0].0.pic_order_cnt_lsb)
        })
        .collect();
    // nal_unit_type, nal_ref_idc, frame_num, pic_order_cnt_lsb of the first
    // pictures and of the second IDR (idr_pic_id 1).
    assert_eq!(
        summary[..7],
        [
            (5, 3, 0, 0),
            (1, 2, 1, 4),
            (1, 0, 2, 2),
            (1, 2, 2, 8),
            (1, 0, 3, 6),
            (1, 2, 3, 16),
            (1, 2, 4, 12)
        ]
    );
    assert_eq!(summary[15], (5, 3, 0, 0));
    assert_eq!(stream.pictures[15][0].0.idr_pic_id, 1);
    // Picture 6 (a B reference): adaptive_ref_pic_marking_mode_flag 1 with
    // MMCO 1 (difference_of_pic_nums_minus1 3), MMCO 1 (2), then 0.
    let marking = stream.pictures[6][0].0.marking.clone().unwrap();
    assert_eq!(
        marking.adaptive,
        Some(vec![
            Mmco::ForgetShortTerm { difference_of_pic_nums_minus1: 3 },
            Mmco::ForgetShortTerm { difference_of_pic_nums_minus1: 2 },
        ])
    );
    // Picture 25: MMCO 1 (4), MMCO 1 (1).
    let marking = stream.pictures[25][0].0.marking.clone().unwrap();
    assert_eq!(
        marking.adaptive,
        Some(vec![
            Mmco::ForgetShortTerm { difference_of_pic_nums_minus1: 4 },
            Mmco::ForgetShortTerm { difference_of_pic_nums_minus1: 1 },
        ])
    );
    // Non-reference pictures carry no marking; the IDR's flags are both 0.
    assert_eq!(stream.pictures[2][0].0.marking, None);
    let idr = stream.pictures[0][0].0.marking.clone().unwrap();
    assert!(!idr.no_output_of_prior_pics && !idr.long_term_reference && idr.adaptive.is_none());
}

/// Runs the DPB over a stream: the decoding-order index of each output
/// picture, and the largest number of references any picture read.
fn output_order(name: &str) -> (Vec<u64>, usize) {
    let data = read(name);
    let stream = H264Stream::parse(&data).unwrap();
    let info = stream.sps[&0].info().unwrap();
    let slots = info.max_num_ref_frames + 1;
    let mut dpb = Dpb::new(slots, info.max_dpb_frames);
    let (mut order, mut most) = (Vec::new(), 0);
    for picture in &stream.pictures {
        let header = &picture[0].0;
        let plan = dpb.picture(header, stream.sps_of(header)).unwrap();
        assert!(plan.setup.slot < slots);
        assert!(plan.references.iter().all(|r| r.slot != plan.setup.slot));
        most = most.max(plan.references.len());
        order.extend(plan.output);
    }
    order.extend(dpb.flush());
    (order, most)
}

#[test]
fn output_order_matches_ffmpeg() {
    // ffprobe's coded_picture_number of each output frame.
    assert_eq!(output_order("h264_high_854x480.h264").0, [0, 2, 1, 4, 3, 5]);
    assert_eq!(output_order("h264_high_1918x1078.h264").0, [0, 1, 3, 2]);
    let (order, most) = output_order("h264_high_pyramid_slices_640x360.h264");
    assert_eq!(
        order,
        [
            0, 2, 1, 4, 3, 7, 6, 8, 5, 11, 10, 12, 9, 14, 13, 15, 18, 17, 19, 16, 22, 21, 23, 20,
            26, 25, 27, 24, 29, 28
        ]
    );
    // max_num_ref_frames 4 (x264 -refs 4): the MMCOs keep the DPB within it.
    assert!(most <= 4, "{most}");
    // pic_order_cnt_type 2, no B-frames: output in decoding order.
    let (order, most) = output_order("h264_main_cavlc_poc2_352x288.h264");
    assert_eq!(order, (0..20).collect::<Vec<u64>>());
    assert!(most <= 3, "{most}"); // max_num_ref_frames 3
    // Open GOPs (non-IDR I pictures with leading B-frames), strict pyramid.
    let (order, most) = output_order("h264_high_refs8_opengop_426x240.h264");
    assert_eq!(
        order,
        [
            0, 3, 2, 4, 1, 7, 6, 8, 5, 11, 10, 12, 9, 15, 14, 16, 13, 19, 18, 20, 17, 23, 22, 24,
            21, 27, 26, 28, 25, 30, 31, 29, 34, 33, 35, 32, 38, 37, 39, 36
        ]
    );
    assert!(most <= 7, "{most}"); // max_num_ref_frames 7
}

/// The pictures a decode may start at: the IDR pictures that every earlier
/// picture is shown before. ffmpeg's `trace_headers` puts the IDR slices
/// (nal_unit_type 5) of the pyramid stream at picture 15 and of the POC
/// type 2 stream at picture 10 (each after a repeated SPS and PPS), and
/// ffprobe's output order above shows every earlier picture first; the open
/// GOP stream's second I picture is not an IDR picture (type 1, with a
/// recovery point SEI), so it is not one.
#[test]
fn seek_points_are_the_idr_pictures_after_everything_earlier_is_shown() {
    use vqscope_video::device_decode::check_h264;
    let points = |name: &str| -> Vec<u64> {
        let points = check_h264(&read(name)).unwrap().seek_points;
        // IDR pictures: each is its own first frame and ends the part before.
        assert!(points.iter().all(|p| p.frame == p.picture && p.leading_end == p.picture));
        points.iter().map(|p| p.picture).collect()
    };
    assert_eq!(points("h264_high_pyramid_slices_640x360.h264"), [0, 15]);
    assert_eq!(points("h264_main_cavlc_poc2_352x288.h264"), [0, 10]);
    assert_eq!(points("h264_high_refs8_opengop_426x240.h264"), [0]);
    assert_eq!(points("h264_high_854x480.h264"), [0]);
}
