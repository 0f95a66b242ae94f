//! The CPU twin of `speed_chroma` against libvmaf 3.2.0's float build on
//! every shared clip pair, with the v1 models' three option sets: per frame
//! |ours − libvmaf| ≤ 1e-6 for `speed_chroma_u`, `_v`, `_uv` (the check is
//! `vqscope_tests::speed_parity`).

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::find;
use vqscope_metrics::features::speed::chroma::{chroma_size, speed_chroma, speed_options};
use vqscope_tests::speed_parity::{Backend, check_shared_clips};
use vqscope_video::Frame;

struct Cpu;

impl Backend for Cpu {
    fn score(
        &mut self,
        options: &str,
        frames: &[(Frame, Frame)],
    ) -> (Option<Vec<String>>, Vec<[f64; 3]>) {
        let feature = find("speed_chroma").unwrap();
        let mut opts = feature.default_options();
        opts.parse_list("speed_chroma", options).unwrap();
        let o = speed_options(&opts, opts.int("speed_weight_var_mode"));
        let max_val = opts.double("speed_max_val");
        let values = frames
            .iter()
            .map(|(r, d)| {
                let g = r.geometry;
                let size =
                    chroma_size(g.format.chroma, g.width as usize, g.height as usize).unwrap();
                let samples: Vec<Vec<u16>> = [r, r, d, d]
                    .iter()
                    .zip([1, 2, 1, 2])
                    .map(|(f, i)| f.plane_samples(i))
                    .collect();
                let (cw, ch) = g.plane_size(1);
                let bpc = g.format.bit_depth;
                let v: Vec<PlaneView> = samples
                    .iter()
                    .map(|s| PlaneView::packed(cw as usize, ch as usize, bpc, s))
                    .collect();
                speed_chroma([&v[0], &v[1]], [&v[2], &v[3]], size, &o, max_val).unwrap()
            })
            .collect();
        (None, values)
    }
}

#[test]
fn speed_chroma_matches_libvmaf_on_every_clip() {
    check_shared_clips(&mut Cpu);
}

#[test]
fn speed_temporal_matches_libvmaf_on_a_synthetic_clip() {
    use vqscope_metrics::features::speed::temporal::SpeedTemporal;
    use vqscope_tests::speed_parity::{check_temporal, temporal_clip};
    check_temporal(&mut |bits, options| {
        let mut opts = find("speed_temporal").unwrap().default_options();
        opts.parse_list("speed_temporal", options).unwrap();
        let clip = temporal_clip(bits);
        let g = clip[0].0.geometry;
        let (w, h) = (g.width as usize, g.height as usize);
        let mut scorer =
            SpeedTemporal::new(w, h, speed_options(&opts, 0), opts.bool("speed_use_ref_diff"))
                .unwrap();
        let values = clip
            .iter()
            .map(|(r, d)| {
                let (rs, ds) = (r.plane_samples(0), d.plane_samples(0));
                let rv = PlaneView::packed(w, h, bits, &rs);
                let dv = PlaneView::packed(w, h, bits, &ds);
                scorer.push(&rv, &dv).unwrap()
            })
            .collect();
        (None, values)
    });
}
