//! H.265 SPS, PPS and slice segment headers, picture order and output
//! order, on the committed x265 streams, with no device involved. Expected
//! values come from ffmpeg: syntax elements from `ffmpeg -loglevel trace -i
//! S -c:v copy -bsf:v trace_headers -f null -` (quoted in the comments), the
//! order pictures are shown in from the encoder's timestamps as ffprobe
//! reads them from the mkv the Annex B stream was cut from (`ffprobe
//! -show_entries packet=pts`, in decoding order), and the pictures ffmpeg
//! outputs for a stream that starts at a CRA from its `framemd5` (see
//! `tests/data/bitstream/README.md`).

use std::path::PathBuf;

use vqscope_video::bitstream::h265_dpb::{Dpb, PicturePlan};
use vqscope_video::bitstream::h265_stream::H265Stream;
use vqscope_video::device_decode::{SeekPoint, check_h264, check_h265};

fn read(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/bitstream").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs every picture of `stream` through the DPB: the plans of the
/// decoded pictures (`None` for skipped ones) and the output order (by
/// decoding-order index) including the end-of-stream flush.
fn run(stream: &H265Stream<'_>) -> (Vec<Option<PicturePlan>>, Vec<u64>) {
    let first = stream.sps.values().next().unwrap();
    let mut dpb = Dpb::new(first.max_dec_pic_buffering);
    let mut output = Vec::new();
    let plans = stream
        .pictures
        .iter()
        .map(|p| {
            let plan = dpb.picture(p.header(), stream.sps_of(p.header()), p.after_end_of_sequence);
            let plan = plan.unwrap();
            if let Some(plan) = &plan {
                output.extend(&plan.output);
            }
            plan
        })
        .collect();
    output.extend(dpb.flush());
    (plans, output)
}

/// Decoding-order indices sorted by presentation time: the order a
/// decoder shows the pictures in.
fn by_pts(pts: &[i64]) -> Vec<u64> {
    let mut order: Vec<u64> = (0..pts.len() as u64).collect();
    order.sort_by_key(|&i| pts[i as usize]);
    order
}

const OPEN_GOP: &str = "hevc_main_opengop_pyramid_320x240.hevc";

/// `nal_unit_type` and `slice_pic_order_cnt_lsb` of each picture's first
/// slice segment in the open-GOP stream, in decoding order: an IDR_N_LP,
/// then CRA pictures (21) at POC 16 and 32, each followed by RASL
/// pictures (9 RASL_R, 8 RASL_N).
const OPEN_GOP_PICTURES: [(u8, u32); 40] = [
    (20, 0),
    (1, 4),
    (1, 2),
    (0, 1),
    (0, 3),
    (1, 8),
    (1, 6),
    (0, 5),
    (0, 7),
    (1, 12),
    (1, 10),
    (0, 9),
    (0, 11),
    (21, 16),
    (9, 14),
    (8, 13),
    (8, 15),
    (1, 20),
    (1, 18),
    (0, 17),
    (0, 19),
    (1, 24),
    (1, 22),
    (0, 21),
    (0, 23),
    (1, 28),
    (1, 26),
    (0, 25),
    (0, 27),
    (21, 32),
    (9, 30),
    (8, 29),
    (8, 31),
    (1, 36),
    (1, 34),
    (0, 33),
    (0, 35),
    (1, 39),
    (1, 38),
    (0, 37),
];

#[test]
fn sps_pps_and_slice_headers_of_the_open_gop_stream() {
    let data = read(OPEN_GOP);
    let stream = H265Stream::parse(&data).unwrap();
    let sps = &stream.sps[&0];
    // pic_width/height_in_luma_samples 320, 240; log2_max_pic_order_cnt_lsb_minus4 4;
    // sps_max_dec_pic_buffering_minus1 4, sps_max_num_reorder_pics 2,
    // sps_max_latency_increase_plus1 4; log2_min_luma_coding_block_size_minus3 0,
    // log2_diff_max_min_luma_coding_block_size 3, transform block 0 and 3,
    // hierarchy depths 0 and 0.
    assert_eq!((sps.width, sps.height, sps.log2_max_pic_order_cnt_lsb), (320, 240, 8));
    assert_eq!(
        (sps.max_dec_pic_buffering, sps.max_num_reorder_pics, sps.max_latency_increase_plus1),
        (5, 2, 4)
    );
    assert_eq!(
        (
            sps.log2_min_luma_coding_block_size,
            sps.log2_diff_max_min_luma_coding_block_size,
            sps.log2_min_luma_transform_block_size,
            sps.log2_diff_max_min_luma_transform_block_size,
            sps.max_transform_hierarchy_depth_inter,
            sps.max_transform_hierarchy_depth_intra,
        ),
        (3, 3, 2, 3, 0, 0)
    );
    // scaling_list_enabled_flag 0, amp_enabled_flag 0,
    // sample_adaptive_offset_enabled_flag 1, pcm_enabled_flag 0,
    // num_short_term_ref_pic_sets 0, long_term_ref_pics_present_flag 0,
    // sps_temporal_mvp_enabled_flag 1, strong_intra_smoothing_enabled_flag 1;
    // then a VUI with NAL HRD parameters, and sps_extension_present_flag 0.
    assert!(!sps.scaling_list_enabled && !sps.amp_enabled && sps.sample_adaptive_offset_enabled);
    assert_eq!(sps.pcm, None);
    assert!(sps.short_term_rps.is_empty() && !sps.long_term_ref_pics_present);
    assert!(sps.temporal_mvp_enabled && sps.strong_intra_smoothing_enabled);
    assert!(!sps.range_extension && !sps.scc_extension);

    let pps = &stream.pps[&0];
    // sign_data_hiding_enabled_flag 1, cu_qp_delta_enabled_flag 1 with
    // diff_cu_qp_delta_depth 1, weighted_pred_flag 1, weighted_bipred_flag 1,
    // entropy_coding_sync_enabled_flag 1, tiles_enabled_flag 0,
    // pps_loop_filter_across_slices_enabled_flag 0,
    // deblocking_filter_control_present_flag 0, lists_modification_present_flag 0,
    // log2_parallel_merge_level_minus2 0, num_ref_idx defaults 0 and 0.
    assert!(pps.sign_data_hiding_enabled && pps.weighted_pred && pps.weighted_bipred);
    assert_eq!(pps.cu_qp_delta_depth, Some(1));
    assert!(pps.entropy_coding_sync_enabled && pps.tiles.is_none());
    assert!(!pps.loop_filter_across_slices_enabled && !pps.deblocking_filter_control_present);
    assert!(!pps.lists_modification_present && !pps.output_flag_present);
    assert_eq!((pps.num_ref_idx_l0_default_active, pps.num_ref_idx_l1_default_active), (1, 1));
    assert_eq!((pps.init_qp_minus26, pps.log2_parallel_merge_level), (0, 2));

    // 40 pictures of two slice segments each (the second at
    // slice_segment_address 10 of 20 CTBs).
    let types: Vec<(u8, u32)> = stream
        .pictures
        .iter()
        .map(|p| (p.header().nal_unit_type, p.header().pic_order_cnt_lsb))
        .collect();
    assert_eq!(types, OPEN_GOP_PICTURES);
    assert!(stream.pictures.iter().all(|p| p.slices.len() == 2
        && p.slices[1].0.segment_address == 10
        && !p.slices[1].0.dependent_slice_segment));

    let h = |i: usize, s: usize| &stream.pictures[i].slices[s].0;
    // Picture 0 (IDR): slice_type 2, slice_qp_delta 19, one entry point,
    // the alignment ends at bit 56; its second segment's at bit 64.
    assert_eq!((h(0, 0).slice_type, h(0, 0).slice_qp_delta), (2, 19));
    assert_eq!((h(0, 0).num_entry_point_offsets, h(0, 0).header_bytes), (1, 7));
    assert_eq!(h(0, 1).header_bytes, 8);
    // Picture 1 (P, POC 4): num_negative_pics 1, delta_poc_s0_minus1 3, used;
    // no override (one reference each list); ends at bit 96.
    let p1 = h(1, 0);
    assert_eq!((p1.slice_type, p1.slice_qp_delta, p1.header_bytes), (1, 19, 12));
    assert_eq!(p1.short_term_rps.negative, [(-4, true)]);
    assert!(p1.short_term_rps.positive.is_empty() && p1.short_term_rps_idx.is_none());
    assert!(p1.temporal_mvp_enabled && p1.num_ref_idx_l0_active == 1);
    // The slice's st_ref_pic_set: bits 30 to 40 (num_negative_pics at 30,
    // slice_temporal_mvp_enabled_flag at 40).
    assert_eq!(p1.short_term_rps_bits, 10);
    // Picture 13 (CRA, POC 16): four earlier pictures kept, none used:
    // delta_poc_s0_minus1 3, 1, 1, 1.
    let cra = h(13, 0);
    assert!(cra.irap() && !cra.no_output_of_prior_pics);
    assert_eq!(cra.short_term_rps.negative, [(-4, false), (-6, false), (-8, false), (-10, false)]);
    // Picture 14 (RASL_R, B, POC 14): S0 -2, -4, -8, S1 +2, all used;
    // num_ref_idx_l0_active_minus1 2, l1 0; slice_qp_delta 21; ends at bit 120.
    let rasl = h(14, 0);
    assert!(rasl.rasl() && rasl.slice_type == 0);
    assert_eq!(rasl.short_term_rps.negative, [(-2, true), (-4, true), (-8, true)]);
    assert_eq!(rasl.short_term_rps.positive, [(2, true)]);
    assert_eq!((rasl.num_ref_idx_l0_active, rasl.num_ref_idx_l1_active), (3, 1));
    assert_eq!((rasl.slice_qp_delta, rasl.header_bytes, rasl.num_pic_total_curr()), (21, 15, 4));
}

#[test]
fn open_gop_pictures_leave_in_presentation_order() {
    let data = read(OPEN_GOP);
    let stream = H265Stream::parse(&data).unwrap();
    let (plans, output) = run(&stream);
    // The POCs are the lsb values: one coded video sequence, below 256.
    let pocs: Vec<i32> = plans.iter().map(|p| p.as_ref().unwrap().poc).collect();
    let lsbs: Vec<i32> = OPEN_GOP_PICTURES.iter().map(|&(_, lsb)| lsb as i32).collect();
    assert_eq!(pocs, lsbs);
    // Packet pts of the mkv the stream was cut from, in decoding order.
    let pts = [
        0, 160, 80, 40, 120, 320, 240, 200, 280, 480, 400, 360, 440, 640, 560, 520, 600, 800, 720,
        680, 760, 960, 880, 840, 920, 1120, 1040, 1000, 1080, 1280, 1200, 1160, 1240, 1440, 1360,
        1320, 1400, 1560, 1520, 1480,
    ];
    assert_eq!(output, by_pts(&pts));
    // The RASL picture at POC 14 predicts from POC 12 and 10 (before the
    // CRA), 6 and 16: all in the DPB, since the CRA does not start the stream.
    let rasl = plans[14].as_ref().unwrap();
    let pocs = |refs: &[vqscope_video::bitstream::h265_dpb::Reference]| -> Vec<i32> {
        refs.iter().map(|r| r.poc).collect()
    };
    assert_eq!(pocs(&rasl.st_curr_before), [12, 10, 6]);
    assert_eq!(pocs(&rasl.st_curr_after), [16]);
    // No two references share a slot, nor the picture decoded.
    for plan in plans.iter().flatten() {
        let mut slots: Vec<u32> = plan.references.iter().map(|r| r.slot).collect();
        slots.push(plan.slot);
        slots.sort();
        slots.dedup();
        assert_eq!(slots.len(), plan.references.len() + 1, "picture {}", plan.index);
        assert!(plan.slot < 5);
    }
    assert_eq!(check_h265(&data).unwrap().pictures, 40);
}

#[test]
fn a_stream_starting_at_a_cra_skips_its_rasl_pictures_as_ffmpeg_does() {
    // The open-GOP stream from its second CRA on: the CRA (POC 32), three
    // RASL pictures (30, 29, 31) that refer to pictures before it, then
    // trailing pictures 36, 34, 33, 35, 39, 38, 37. ffmpeg outputs 8
    // frames, whose framemd5 hashes are those of the whole stream's frames
    // 32 to 39 (POC 32 to 39).
    let data = read("hevc_main_cra_first_320x240.hevc");
    let stream = H265Stream::parse(&data).unwrap();
    assert_eq!(stream.pictures.len(), 11);
    let (plans, output) = run(&stream);
    let skipped: Vec<usize> = (0..11).filter(|&i| plans[i].is_none()).collect();
    assert_eq!(skipped, [1, 2, 3]);
    // POC 32, 33, ..., 39 by decoding index.
    assert_eq!(output, [0, 6, 5, 7, 4, 10, 9, 8]);
    assert_eq!(plans[0].as_ref().unwrap().poc, 32);
    let summary = check_h265(&data).unwrap();
    assert_eq!(summary.pictures, 8);
    assert_eq!(summary.sequence.display_size(), (320, 240));
}

#[test]
fn sub_layer_non_reference_pictures_do_not_anchor_the_poc() {
    // nal_unit_type, TemporalId and slice_pic_order_cnt_lsb: IDR_N_LP,
    // TRAIL_R 4, TSA_N 1, 2, 3 in sub-layer 1, TRAIL_R 7, TSA_N 5, 6.
    let data = read("hevc_main_2sublayers_352x288.hevc");
    let stream = H265Stream::parse(&data).unwrap();
    let headers: Vec<(u8, u8, u32)> = stream
        .pictures
        .iter()
        .map(|p| (p.header().nal_unit_type, p.header().temporal_id, p.header().pic_order_cnt_lsb))
        .collect();
    assert_eq!(
        headers,
        [(20, 0, 0), (1, 0, 4), (2, 1, 1), (2, 1, 2), (2, 1, 3), (1, 0, 7), (2, 1, 5), (2, 1, 6)]
    );
    // sps_max_dec_pic_buffering_minus1 3, sps_max_num_reorder_pics 1 for
    // both sub-layers.
    let sps = &stream.sps[&0];
    assert_eq!(
        (sps.max_sub_layers, sps.max_dec_pic_buffering, sps.max_num_reorder_pics),
        (2, 4, 1)
    );
    let (_, output) = run(&stream);
    // One sequence, lsb below 128: presentation follows the POC.
    assert_eq!(output, [0, 2, 3, 4, 1, 6, 7, 5]);
    assert_eq!(check_h265(&data).unwrap().pictures, 8);
}

/// A decode may start at an IDR picture that every earlier picture is
/// shown before, its leading (RADL) pictures shown first as in the whole
/// stream's decode. x265 with closed GOPs of 8 and `radl=2` (README);
/// `trace_headers` gives, by decoding position, nal_unit_type and
/// slice_pic_order_cnt_lsb (8 bits): IDR_N_LP, TRAIL 4, 2, 1, 3, 5; then
/// twice IDR_W_RADL at 6 and 14, RADL_R 255 (-1), RADL_N 254 (-2), TRAIL
/// 4, 2, 1, 3, 5 (and 7, 6 at the end).
#[test]
fn idr_pictures_with_leading_pictures_are_seek_points() {
    let data = read("hevc_main10_idr_radl_210x118.hevc");
    let stream = H265Stream::parse(&data).unwrap();
    let types: Vec<u8> = stream.pictures.iter().map(|p| p.header().nal_unit_type).collect();
    assert_eq!(&types[..9], [20, 1, 1, 0, 0, 1, 19, 7, 6]);
    assert_eq!(types[14], 19);
    let (_, output) = run(&stream);
    assert_eq!(
        output,
        [0, 3, 2, 4, 1, 5, 8, 7, 6, 11, 10, 12, 9, 13, 16, 15, 14, 19, 18, 20, 17, 21, 23, 22]
    );
    let summary = check_h265(&data).unwrap();
    assert_eq!(summary.pictures, 24);
    let idr = |p| SeekPoint { frame: p, picture: p, leading_end: p };
    assert_eq!(summary.seek_points, [SeekPoint::START, idr(6), idr(14)]);
    assert_eq!(summary.sequence.display_size(), (210, 118));
}

/// The open GOPs start at CRA pictures (`OPEN_GOP_PICTURES`): at decoding
/// positions 13 and 29, POC 16 and 32, each followed by three RASL
/// pictures (POC 13 to 15, 29 to 31), which a decode from the CRA picture
/// skips. Every picture before each shows before it (one coded video
/// sequence: POC order is display order), so both are seek points, their
/// first frames 16 and 32; a decode of the pictures before one runs on over
/// its RASL pictures, to 17 and 33.
#[test]
fn cra_pictures_whose_skipped_pictures_show_first_are_seek_points() {
    let open = check_h265(&read(OPEN_GOP)).unwrap();
    let cra = |frame, picture, leading_end| SeekPoint { frame, picture, leading_end };
    assert_eq!(open.seek_points, [SeekPoint::START, cra(16, 13, 17), cra(32, 29, 33)]);
    // From its CRA picture on: the RASL pictures before it are gone, and
    // the stream's start is the only seek point.
    let cut = check_h265(&read("hevc_main_cra_first_320x240.hevc")).unwrap();
    assert_eq!(cut.seek_points, [SeekPoint::START]);
}

#[test]
fn main10_stream_is_checked_for_the_device() {
    // IDR_N_LP, TRAIL_R 3, TRAIL_R 2, TRAIL_N 1 (bframes 2).
    let data = read("hevc_main10_1918x1078.hevc");
    let stream = H265Stream::parse(&data).unwrap();
    let (_, output) = run(&stream);
    assert_eq!(output, [0, 3, 2, 1]);
    let summary = check_h265(&data).unwrap();
    assert_eq!(summary.pictures, 4);
    assert_eq!(summary.sequence.describe(), "H.265 Main 10, 4:2:0 10-bit");
    assert_eq!(summary.sequence.display_size(), (1918, 1078));
}

#[test]
fn what_the_device_session_cannot_fill_is_refused_in_one_line() {
    // chroma_format_idc 2 (x265 with yuv422p, a range extensions
    // profile): the SPS parses, the check refuses it.
    let data = read("hevc_main422_64x64.hevc");
    let stream = H265Stream::parse(&data).unwrap();
    assert_eq!(stream.sps[&0].chroma_format_idc, 2);
    assert_eq!(
        check_h265(&data).unwrap_err().to_string(),
        "H.265 stream: device decode of H.265 other than 4:2:0 with one bit depth is not supported yet"
    );
    // Another codec's stream is not taken for H.265.
    let h264 = read("h264_high_854x480.h264");
    assert!(check_h265(&h264).unwrap_err().to_string().starts_with("H.265 stream: "));
    assert!(check_h264(&h264).is_ok());
}

/// Damaged streams (cut short, bits flipped) give errors or other pictures,
/// never a panic: the parser and DPB size loops and arrays from the stream.
#[test]
fn damaged_streams_give_errors_not_panics() {
    let data = read(OPEN_GOP);
    let mut seed = 0x9e37_79b9_u32;
    let mut next = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        seed
    };
    // Flips land in the first 12 bytes after a start code (NAL headers,
    // parameter sets, slice headers), where the parsing is.
    let starts: Vec<usize> =
        data.windows(3).enumerate().filter(|(_, w)| *w == [0, 0, 1]).map(|(i, _)| i + 3).collect();
    for _ in 0..1000 {
        let mut damaged = data.clone();
        for _ in 0..1 + next() % 4 {
            let at = starts[next() as usize % starts.len()] + next() as usize % 12;
            damaged[at.min(data.len() - 1)] ^= 0x80 >> (next() % 8);
        }
        let _ = check_h265(&damaged);
        let _ = check_h265(&data[..next() as usize % data.len()]);
    }
}
