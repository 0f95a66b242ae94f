//! SpEED's GPU kernels (`speed::gpu`) against their CPU twin
//! (`speed::{float_plane, decimate, remove_local_mean, window_means,
//! covariance_sum, covariance_matrix}`): random planes of random sizes at 8,
//! 10, 12 and 16 bits, several kernel scales, prescales and methods (but
//! Lanczos, which the host keeps), one to four planes at odd
//! offsets and strides in a shared buffer, planes wider and taller than the
//! size SpEED reads (as 4:2:0 chroma of an odd-sized frame is) — every
//! centered float and every covariance sum (a double) must equal the twin's
//! bit for bit, at every subgroup size lavapipe offers. The sizes reach
//! windows wider than 16 samples, so that every step of the covariance
//! order is taken, and wider than the kernels' 256-column tiles, with the
//! 8-step and the tail, or the 16-steps, on both sides of a tile's edge. Half the cases work on the float difference of two
//! planes (`speed_temporal`'s previous minus current frame).

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_gpu::{Submitter, Timestamps, upload_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, PlaneDesc, plane_bytes};
use vqscope_metrics::features::float_vif::PrescaleMethod;
use vqscope_metrics::features::float_vif::filter::FloatPlane;
use vqscope_metrics::features::speed::gpu::SpeedKernel;
use vqscope_metrics::features::speed::{
    BLOCK, Dimensions, SpeedOptions, covariance_entry, covariance_matrix, covariance_pairs,
    covariance_sum, decimate, float_plane, remove_local_mean, window_means,
};
use vqscope_metrics::testing::poisoned_results;

fn random_samples(rng: &mut Rng, n: usize, bpc: u32) -> Vec<u16> {
    let max = (1u64 << bpc) - 1;
    let style = rng.below(3);
    let base = rng.below(max + 1);
    (0..n)
        .map(|i| {
            let v = match style {
                0 => rng.below(max + 1),
                1 => (base + i as u64 * 7 + rng.below(9)) % (max + 1),
                _ if rng.below(20) == 0 => rng.below(max + 1),
                _ => base,
            };
            v as u16
        })
        .collect()
}

#[test]
fn kernels_match_the_twin() {
    if !at_every_lavapipe_subgroup_size("kernels_match_the_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5EED_5BEED);
    for case in 0..14 {
        // Random sizes, then a 1080p frame's chroma and luma, then windows
        // 271 (16·16 + 8 + 7) and 321 (20·16 + 1) columns wide.
        let wide = case % 3 == 0;
        let (w, h) = match case {
            10 => (960, 540),
            11 => (1920, 1080),
            12 => (4400, 180),
            13 => (2600, 170),
            _ => (
                170 + rng.below(if wide { 1000 } else { 220 }) as usize,
                170 + rng.below(160) as usize,
            ),
        };
        let bpc = [8, 10, 12, 16][rng.below(4) as usize];
        let ks = [1.0, 0.5, 1.5, 2.0, 4.0 / 3.0, 3.0][rng.below(6) as usize];
        // Half the cases resample first, as the 2160 models' 0.5 bilinear.
        let prescale = match case {
            13 => 2.0,
            _ if case % 2 == 1 => [0.5, 0.6, 1.5, 2.0][rng.below(4) as usize],
            _ => 1.0,
        };
        let method = ["nearest", "bilinear", "bicubic"][case / 2 % 3];
        let o = SpeedOptions {
            kernelscale: ks,
            prescale,
            prescale_method: PrescaleMethod::from_name(method).unwrap(),
            ..SpeedOptions::default()
        };
        let count = 1 + rng.below(4) as usize;
        let subtract = rng.below(2) == 1;
        // The planes are up to one sample wider and taller than SpEED reads.
        let (pw, ph) = (w + rng.below(2) as usize, h + rng.below(2) as usize);
        let mut bytes = Vec::new();
        let mut descs = Vec::new();
        let mut planes = Vec::new();
        for _ in 0..count * (1 + usize::from(subtract)) {
            let stride = pw + rng.below(3) as usize;
            let samples = random_samples(&mut rng, stride * ph, bpc);
            bytes.extend((0..4 * rng.below(3)).map(|_| rng.below(256) as u8));
            let offset = bytes.len() as u32;
            bytes.extend(plane_bytes(&PlaneView::packed(stride, ph, bpc, &samples)));
            descs.push(PlaneDesc {
                offset,
                width: pw as u32,
                height: ph as u32,
                stride: stride as u32,
                bytes_per_sample: if bpc <= 8 { 1 } else { 2 },
                bpc,
                pad: [0; 2],
            });
            planes.push((stride, samples));
        }
        bytes.extend([0u8; 4]);
        let buffer = upload_buffer(&ctx, &mut submitter, "test planes", &bytes).unwrap();
        let kernel =
            SpeedKernel::new(&ctx, "speed", w as u32, h as u32, bpc, &o, count as u32).unwrap();
        let plane = |i: usize| DevicePlane { buffer: &buffer, desc: descs[i] };
        let device: Vec<(DevicePlane, Option<DevicePlane>)> =
            (0..count)
                .map(|i| {
                    if subtract { (plane(2 * i), Some(plane(2 * i + 1))) } else { (plane(i), None) }
                })
                .collect();
        // Odd cases record with a timestamp after every pass (the
        // benchmark's per-dispatch timing), which must not change a bit.
        let stamps = Timestamps::new(&ctx, kernel.phases().len() as u32 + 1).unwrap();
        let n = kernel.result_words();
        let words = poisoned_results(&ctx, &mut submitter, n, |rec, results, at| {
            if case % 2 == 1 {
                rec.reset_timestamps(&stamps);
                kernel.record_profiled(rec, &device, results, at, &stamps)
            } else {
                kernel.record(rec, &device, results, at)
            }
        });
        if case % 2 == 1 {
            let passes = stamps.read_intervals_ms().unwrap();
            assert_eq!(passes.len(), if prescale == 1.0 { 5 } else { 6 });
            assert!(passes.iter().all(|ms| ms.is_finite() && *ms >= 0.0), "{passes:?}");
        }
        let got = kernel.decode(&words);
        assert_eq!(got.len(), count);
        let dims = Dimensions::new("speed", w, h, prescale).unwrap();
        let input = |i: usize| {
            let (stride, samples) = &planes[i];
            let view = PlaneView { width: pw, height: ph, stride: *stride, bpc, samples };
            float_plane(&view, w, h).unwrap()
        };
        let (dw, dh) = dims.operating;
        let centered_words = (count * dw * dh).div_ceil(2);
        let (ww, wh) = (dims.blocks.0 * BLOCK - BLOCK + 1, dims.blocks.1 * BLOCK - BLOCK + 1);
        let at = |e: usize| (e % BLOCK, e / BLOCK);
        for (i, got) in got.iter().enumerate() {
            let src = if subtract {
                let (a, b) = (input(2 * i), input(2 * i + 1));
                let data = a.data.iter().zip(&b.data).map(|(&x, &y)| x - y).collect();
                FloatPlane { data, ..a }
            } else {
                input(i)
            };
            let want = remove_local_mean(&decimate(&src, &dims, &o), &o);
            let what = format!(
                "case {case}: {w}x{h} ({pw}x{ph}) {bpc}-bit ks {ks} prescale {prescale} {method:?} \
                 subtract {subtract} plane {i}"
            );
            assert_eq!((got.plane.width, got.plane.height), (want.width, want.height));
            for (k, (g, t)) in got.plane.data.iter().zip(&want.data).enumerate() {
                assert_eq!(g.to_bits(), t.to_bits(), "{what} sample {k}: gpu {g} twin {t}");
            }
            let means = window_means(&want, &dims);
            for (p, &(x, y)) in covariance_pairs().iter().enumerate() {
                let (mx, my) = (f64::from(means[x]), f64::from(means[y]));
                let sum = covariance_sum(&want, at(x), at(y), ww, wh, mx, my);
                let word = words[centered_words + i * 325 + p];
                let gpu = f64::from_bits(word as u64);
                assert_eq!(
                    gpu.to_bits(),
                    sum.to_bits(),
                    "{what} pair {x},{y}: gpu {gpu} twin {sum}"
                );
                assert_eq!(got.covariance.at(x, y), covariance_entry(sum, &dims));
            }
            assert_eq!(got.covariance, covariance_matrix(&want, &dims), "{what}");
        }
        println!(
            "case {case}: {count} planes {w}x{h} (windows {ww}x{wh}) {bpc}-bit ks {ks} \
             prescale {prescale} {method:?} subtract {subtract}: equal"
        );
    }
    assert_no_validation_messages();
}

#[test]
fn refuses_what_the_twin_refuses() {
    let ctx = test_context();
    let o = SpeedOptions::default();
    assert!(SpeedKernel::new(&ctx, "speed", 79, 200, 8, &o, 1).is_err());
    assert!(SpeedKernel::new(&ctx, "speed", 200, 200, 9, &o, 1).is_err());
    assert!(
        SpeedKernel::new(&ctx, "speed", 150, 150, 8, &SpeedOptions { prescale: 0.5, ..o }, 1)
            .is_err()
    );
    let lanczos = PrescaleMethod::from_name("lanczos4").unwrap();
    let o = SpeedOptions { prescale: 2.0, prescale_method: lanczos, ..o };
    assert!(!SpeedKernel::runs(&o));
    assert!(SpeedKernel::new(&ctx, "speed", 200, 200, 8, &o, 1).is_err());
    assert!(SpeedKernel::runs(&SpeedOptions { prescale: 1.0, ..o }));
}
