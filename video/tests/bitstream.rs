//! The parameter sets of small encodes made with Debian's ffmpeg 5.1
//! (libx264, libx265; see tests/data/bitstream/README.md), read from raw
//! Annex B files and from mp4 and mkv through ffmpeg.
//!
//! Every expected value below comes from ffmpeg, not from our parser:
//! profile name, level and display size from `ffprobe -show_streams`; the
//! coded size, crop offsets, bit depths, chroma_format_idc and DPB fields
//! from ffmpeg's own parameter-set parser, `ffmpeg -loglevel trace -i F
//! -c:v copy -bsf:v trace_headers -f null -` (its syntax element values are
//! quoted in the comments).

use std::path::{Path, PathBuf};

use vqscope_video::ChromaFormat;
use vqscope_video::VideoError;
use vqscope_video::bitstream::{Codec, Crop, ParameterSets, read_parameter_sets};
use vqscope_video::ffmpeg::FfmpegTools;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bitstream").join(name)
}

fn read(name: &str) -> ParameterSets {
    match read_parameter_sets(&data(name), &FfmpegTools::default()) {
        Ok(sets) => sets,
        Err(e) => panic!("{name}: {e}"),
    }
}

#[test]
fn h264_high_854x480_raw_annexb() {
    let s = read("h264_high_854x480.h264").sequence;
    assert_eq!((s.codec, s.profile, s.profile_idc, s.level_idc), (Codec::H264, "High", 100, 30));
    // chroma_format_idc 1, bit_depth_luma_minus8 0, bit_depth_chroma_minus8 0.
    assert_eq!((s.chroma, s.bit_depth_luma, s.bit_depth_chroma), (ChromaFormat::Yuv420, 8, 8));
    // pic_width_in_mbs_minus1 53, pic_height_in_map_units_minus1 29, frame_mbs_only_flag 1.
    assert_eq!((s.coded_width, s.coded_height), (54 * 16, 30 * 16));
    // frame_crop_right_offset 5, in 4:2:0 chroma samples.
    assert_eq!(s.crop, Crop { left: 0, right: 5 * 2, top: 0, bottom: 0 });
    assert_eq!(s.display_size(), (854, 480));
    assert!(!s.interlaced, "frame_mbs_only_flag 1");
    // VUI max_dec_frame_buffering 4, max_num_ref_frames 4.
    assert_eq!((s.max_dpb_frames, s.max_num_ref_frames), (4, 4));
}

#[test]
fn h264_high_1918x1078_mp4() {
    let s = read("h264_high_1918x1078.mp4").sequence;
    assert_eq!((s.codec, s.profile, s.profile_idc, s.level_idc), (Codec::H264, "High", 100, 40));
    assert_eq!((s.chroma, s.bit_depth_luma, s.bit_depth_chroma), (ChromaFormat::Yuv420, 8, 8));
    // pic_width_in_mbs_minus1 119, pic_height_in_map_units_minus1 67.
    assert_eq!((s.coded_width, s.coded_height), (120 * 16, 68 * 16));
    // frame_crop_right_offset 1, frame_crop_bottom_offset 5.
    assert_eq!(s.crop, Crop { left: 0, right: 2, top: 0, bottom: 10 });
    assert_eq!(s.display_size(), (1918, 1078));
    assert_eq!((s.max_dpb_frames, s.max_num_ref_frames), (4, 4));
}

#[test]
fn h264_high422_10bit_mkv() {
    let s = read("h264_high422_10bit_352x288.mkv").sequence;
    assert_eq!(
        (s.codec, s.profile, s.profile_idc, s.level_idc),
        (Codec::H264, "High 4:2:2", 122, 13)
    );
    // chroma_format_idc 2, bit_depth_*_minus8 2 (ffprobe: yuv422p10le).
    assert_eq!((s.chroma, s.bit_depth_luma, s.bit_depth_chroma), (ChromaFormat::Yuv422, 10, 10));
    // pic_width_in_mbs_minus1 21, pic_height_in_map_units_minus1 17, frame_cropping_flag 0.
    assert_eq!((s.coded_width, s.coded_height), (352, 288));
    assert_eq!(s.crop, Crop::default());
    // max_dec_frame_buffering 2, max_num_ref_frames 2.
    assert_eq!((s.max_dpb_frames, s.max_num_ref_frames), (2, 2));
    assert_eq!(s.describe(), "H.264 High 4:2:2, 4:2:2 10-bit");
}

#[test]
fn h264_with_nal_hrd_parameters_in_the_vui() {
    // x264 nal-hrd=vbr: nal_hrd_parameters_present_flag 1 (cpb_cnt_minus1 0) comes before
    // bitstream_restriction in the VUI; max_dec_frame_buffering 4 lies beyond it. (Level 1.3
    // alone would allow 2376 / (22 x 18) = 6 frames, so a misread VUI shows.)
    let s = read("h264_nal_hrd_352x288.h264").sequence;
    assert_eq!((s.profile, s.level_idc), ("High", 13));
    assert_eq!((s.coded_width, s.coded_height, s.crop), (352, 288, Crop::default()));
    assert_eq!((s.max_dpb_frames, s.max_num_ref_frames), (4, 4));
}

#[test]
fn h264_interlaced_fields() {
    // x264 tff: frame_mbs_only_flag 0, pic_width_in_mbs_minus1 43,
    // pic_height_in_map_units_minus1 17 (map units of two macroblock rows),
    // frame_crop_bottom_offset 1 (in units of 2 x 2 rows); ffprobe: 704x572, field_order tt.
    let s = read("h264_interlaced_704x572.h264").sequence;
    assert_eq!((s.profile, s.level_idc), ("High", 30));
    assert_eq!((s.coded_width, s.coded_height), (44 * 16, 18 * 2 * 16));
    assert_eq!(s.crop, Crop { left: 0, right: 0, top: 0, bottom: 4 });
    assert_eq!(s.display_size(), (704, 572));
    assert!(s.interlaced);
    assert_eq!(s.describe(), "H.264 High, 4:2:0 8-bit, interlaced");
    // max_dec_frame_buffering 1, max_num_ref_frames 1.
    assert_eq!((s.max_dpb_frames, s.max_num_ref_frames), (1, 1));
}

#[test]
fn h265_main10_1918x1078_raw_annexb() {
    let sets = read("hevc_main10_1918x1078.hevc");
    let s = &sets.sequence;
    assert_eq!((s.codec, s.profile, s.profile_idc, s.level_idc), (Codec::H265, "Main 10", 2, 120));
    assert_eq!((s.chroma, s.bit_depth_luma, s.bit_depth_chroma), (ChromaFormat::Yuv420, 10, 10));
    // pic_width_in_luma_samples 1920, pic_height_in_luma_samples 1080
    // (ffprobe's coded_width and coded_height too).
    assert_eq!((s.coded_width, s.coded_height), (1920, 1080));
    // conf_win_right_offset 1, conf_win_bottom_offset 1, in chroma samples.
    assert_eq!(s.crop, Crop { left: 0, right: 2, top: 0, bottom: 2 });
    assert_eq!(s.display_size(), (1918, 1078));
    // sps_max_dec_pic_buffering_minus1[0] 4.
    assert_eq!(s.max_dpb_frames, 5);
    assert_eq!(s.describe(), "H.265 Main 10, 4:2:0 10-bit");
    // vps_video_parameter_set_id 0, vps_max_sub_layers_minus1 0,
    // vps_max_dec_pic_buffering_minus1[0] 4.
    let v = sets.video.expect("a VPS comes before the SPS");
    assert_eq!(
        (v.id, v.max_sub_layers, v.profile_idc, v.level_idc, v.max_dpb_frames),
        (0, 1, 2, 120, 5)
    );
}

#[test]
fn h265_main_854x480_mkv() {
    let sets = read("hevc_main_854x480.mkv");
    let s = &sets.sequence;
    assert_eq!((s.codec, s.profile, s.profile_idc, s.level_idc), (Codec::H265, "Main", 1, 90));
    assert_eq!((s.chroma, s.bit_depth_luma, s.bit_depth_chroma), (ChromaFormat::Yuv420, 8, 8));
    // pic_width_in_luma_samples 856 (ffprobe coded_width 856), height 480.
    assert_eq!((s.coded_width, s.coded_height), (856, 480));
    // conf_win_right_offset 1.
    assert_eq!(s.crop, Crop { left: 0, right: 2, top: 0, bottom: 0 });
    assert_eq!(s.display_size(), (854, 480));
    assert_eq!(s.max_dpb_frames, 5);
    // hevc_mp4toannexb puts the mkv's VPS before the SPS.
    assert_eq!(sets.video.map(|v| v.max_dpb_frames), Some(5));
}

#[test]
fn h265_two_temporal_sub_layers() {
    // x265 --temporal-layers: sps_max_sub_layers_minus1 1, with
    // sub_layer_profile_present_flag[0] 0 and sub_layer_level_present_flag[0] 0
    // in profile_tier_level, and ordering info for both sub-layers
    // (sps_max_dec_pic_buffering_minus1[0] 3, [1] 3).
    let sets = read("hevc_main_2sublayers_352x288.hevc");
    let s = &sets.sequence;
    assert_eq!((s.profile, s.level_idc), ("Main", 60));
    assert_eq!((s.coded_width, s.coded_height, s.crop), (352, 288, Crop::default()));
    assert_eq!((s.chroma, s.bit_depth_luma), (ChromaFormat::Yuv420, 8));
    assert_eq!(s.max_dpb_frames, 4);
    let v = sets.video.expect("VPS");
    assert_eq!((v.max_sub_layers, v.max_dpb_frames), (2, 4));
}

#[test]
fn other_codecs_are_named_in_one_line() {
    let path = data("vp9_64x48.webm");
    let err = read_parameter_sets(&path, &FfmpegTools::default()).unwrap_err();
    assert!(matches!(err, VideoError::Unsupported { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "{}: unsupported input: vp9 video: device decode covers H.264 and H.265 only",
            path.display()
        )
    );
}

#[test]
fn a_raw_file_of_another_codec_has_no_sps() {
    // An H.265 stream named .h264: no H.264 SPS (type 7) in it. (H.265's
    // first header byte 0x40 has H.264 type 0, 0x42 type 2, 0x44 type 4.)
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bitstream-misnamed");
    std::fs::create_dir_all(&dir).unwrap();
    let misnamed = dir.join("really-hevc.h264");
    std::fs::copy(data("hevc_main10_1918x1078.hevc"), &misnamed).unwrap();
    let err = read_parameter_sets(&misnamed, &FfmpegTools::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}: H.264 stream: the file has no sequence parameter set", misnamed.display())
    );
}

#[test]
fn missing_ffmpeg_is_one_clear_line() {
    let tools = FfmpegTools { ffmpeg: "no-such-ffmpeg".into(), ffprobe: "no-such-ffprobe".into() };
    let path = data("h264_high_1918x1078.mp4");
    let err = read_parameter_sets(&path, &tools).unwrap_err();
    assert!(matches!(err, VideoError::FfmpegMissing { .. }), "{err:?}");
    // Raw streams need no ffmpeg at all.
    assert!(read_parameter_sets(&data("h264_high_854x480.h264"), &tools).is_ok());
}

#[test]
fn damaged_parameter_sets_give_errors_not_panics() {
    // Every truncation and every single-bit flip of the first parameter
    // sets of real streams: the parser must answer Ok or Err (overflow
    // checks are on in tests, so arithmetic on garbage shows too).
    use vqscope_video::bitstream::parameter_sets;
    for (name, codec) in [
        ("h264_high_854x480.h264", Codec::H264),
        ("h264_interlaced_704x572.h264", Codec::H264),
        ("h264_nal_hrd_352x288.h264", Codec::H264),
        ("hevc_main10_1918x1078.hevc", Codec::H265),
        ("hevc_main_2sublayers_352x288.hevc", Codec::H265),
    ] {
        let bytes = std::fs::read(data(name)).unwrap();
        // The parameter sets sit in the first 200 bytes of these streams.
        let head = &bytes[..200];
        assert!(parameter_sets(head, codec, false).unwrap().is_some(), "{name}");
        let mut outcomes = [0usize; 2];
        for len in 0..head.len() {
            outcomes[parameter_sets(&head[..len], codec, true).is_ok() as usize] += 1;
        }
        for bit in 0..head.len() * 8 {
            let mut flipped = head.to_vec();
            flipped[bit / 8] ^= 0x80 >> (bit % 8);
            outcomes[parameter_sets(&flipped, codec, false).is_ok() as usize] += 1;
        }
        // Both kinds of answer happen: the damage reaches the parser.
        assert!(outcomes[0] > 0 && outcomes[1] > 0, "{name}: {outcomes:?}");
    }
}

/// The whole stream comes from the ffmpeg child that gave the parameter
/// sets, read on rather than started again: the same bytes as a separate
/// `ffmpeg -c:v copy` run, and for a raw stream the file itself. A stream
/// over the limit is `None`.
#[test]
fn the_whole_stream_from_the_child_that_gave_the_parameter_sets() {
    use vqscope_video::bitstream::AnnexBReader;
    let tools = FfmpegTools::default();
    let mp4 = data("h264_high_1918x1078.mp4");
    let mut reader = AnnexBReader::open(&mp4, Codec::H264, true, &tools).unwrap();
    let sets = reader.parameter_sets().unwrap();
    assert_eq!(sets, read("h264_high_1918x1078.mp4"));
    let whole = reader.read_all(1 << 30).unwrap().expect("under the limit");
    let separate = std::process::Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-i"])
        .arg(&mp4)
        .args(["-map", "0:v:0", "-c:v", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264", "-"])
        .output()
        .unwrap();
    assert!(separate.status.success());
    assert_eq!(whole.len(), separate.stdout.len());
    assert!(whole == separate.stdout, "the bytes differ");

    let raw = data("hevc_main_854x480.mkv");
    let mut reader = AnnexBReader::open(&raw, Codec::H265, true, &tools).unwrap();
    reader.parameter_sets().unwrap();
    assert_eq!(reader.read_all(1000).unwrap(), None, "a stream over the limit");

    let raw = data("h264_high_854x480.h264");
    let mut reader = AnnexBReader::open(&raw, Codec::H264, false, &tools).unwrap();
    reader.parameter_sets().unwrap();
    assert_eq!(reader.read_all(1 << 30).unwrap(), Some(std::fs::read(&raw).unwrap()));
    let size = std::fs::metadata(&raw).unwrap().len();
    let reader = AnnexBReader::open(&raw, Codec::H264, false, &tools).unwrap();
    assert_eq!(reader.read_all(size - 1).unwrap(), None, "a raw file over the limit");
}
