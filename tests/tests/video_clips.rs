//! The video crate on the shared clips: geometry and frame counts as listed
//! in `shared/clips/README.md`, and the H.264 encodes decoded through our
//! ffmpeg path bit-identical to the distorted y4m (README: "for the other
//! pairs dis.y4m is bit-identical to decoding dis.mp4"), and for the scaled
//! pair to decoding it and scaling it with `vqscope_video::scale`.

use vqscope_tests::clips::{PAIRS, distorted_y4m, reference_y4m, shared_dir};
use vqscope_video::scale::FrameScale;
use vqscope_video::{
    ChromaFormat, ColorMatrix, ColorRange, Pair, PairOptions, VideoSource, open_input,
};

/// (pair, width, height, bit depth, frames) from the README's table.
const EXPECTED: [(&str, u32, u32, u32, u64); 3] = [
    ("collage_1920x1080_420p8_scaled960x540_x264crf23", 1920, 1080, 8, 8),
    ("retina_576x324_420p10_x264crf35", 576, 324, 10, 8),
    ("rocket_576x324_420p8_x264crf35", 576, 324, 8, 12),
];

fn check(src: &dyn VideoSource, w: u32, h: u32, depth: u32, frames: u64) {
    let i = src.info();
    assert_eq!((i.geometry.width, i.geometry.height), (w, h), "{}", i.path.display());
    assert_eq!(i.geometry.format.chroma, ChromaFormat::Yuv420);
    assert_eq!(i.geometry.format.bit_depth, depth);
    assert_eq!(i.frame_count, Some(frames));
    assert_eq!(i.frame_rate.as_f64(), 25.0);
    assert_eq!(i.color.matrix, ColorMatrix::Bt709);
    assert_eq!(i.color.range, ColorRange::Limited);
}

#[test]
fn clip_geometry_and_counts() {
    assert_eq!(PAIRS.len(), EXPECTED.len());
    for (pair, w, h, depth, frames) in EXPECTED {
        assert!(PAIRS.contains(&pair));
        let r = open_input(&reference_y4m(pair), None).unwrap();
        let d = open_input(&distorted_y4m(pair), None).unwrap();
        check(r.as_ref(), w, h, depth, frames);
        check(d.as_ref(), w, h, depth, frames);
        let mut p = Pair::new(r, d, PairOptions::default()).unwrap();
        assert!(p.warnings().is_empty());
        assert_eq!(p.frame_count(), Some(frames));
        let mut n = 0;
        while let Some(fp) = p.next_pair().unwrap() {
            assert_eq!(fp.reference.data.len(), fp.distorted.data.len());
            n += 1;
        }
        assert_eq!(n, frames);
    }
}

#[test]
fn mp4_through_ffmpeg_is_bit_identical_to_dis_y4m() {
    for (pair, w, h, depth, frames) in EXPECTED {
        let mp4 = shared_dir().join("clips").join(format!("{pair}.dis.mp4"));
        let mut ours = open_input(&mp4, None).unwrap();
        if pair.contains("scaled") {
            // The encode itself is the downscaled one; dis.y4m is its
            // decode upscaled with swscale's C arithmetic, which the
            // scale's CPU twin (the GPU kernels' reference) must repeat.
            let g = ours.info().geometry;
            assert_eq!((g.width, g.height), (960, 540));
            let mut y4m = open_input(&distorted_y4m(pair), None).unwrap();
            let scale = FrameScale::new(g, y4m.info().geometry).unwrap();
            for i in 0..frames {
                let a = scale.scale(&ours.next_frame().unwrap().expect("mp4 frame"));
                assert!(a.data == y4m.read_frame(i).unwrap().data, "{pair}: frame {i} differs");
            }
            continue;
        }
        check(ours.as_ref(), w, h, depth, frames);
        let mut y4m = open_input(&distorted_y4m(pair), None).unwrap();
        for i in 0..frames {
            let a = ours.next_frame().unwrap().expect("mp4 frame");
            let b = y4m.read_frame(i).unwrap();
            assert_eq!(a.index, i);
            assert!(a.data == b.data, "{pair}: frame {i} differs");
        }
        assert!(ours.next_frame().unwrap().is_none());
        // Backward step through the ffmpeg path too.
        let back = ours.read_frame(2).unwrap();
        assert!(back.data == y4m.read_frame(2).unwrap().data);
    }
}
