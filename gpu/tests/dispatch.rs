//! The gpu crate end to end on whatever device the tests run on (lavapipe in
//! CI): a pipeline with a specialization constant, push constants and a
//! push-descriptor binding; upload, dispatch, readback, timestamps; every
//! subgroup size the device allows; and no validation message throughout.

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_gpu::{
    Binding, BindingKind, Buffer, ComputePipeline, PipelineDesc, Submitter, Timestamps,
    download_buffer, upload_buffer,
};

fn run_fill(subgroup_size: Option<u32>, workgroup: u32, count: u32) -> Vec<u32> {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 2).unwrap();
    let pipeline = ComputePipeline::new(
        &ctx,
        &PipelineDesc {
            name: "fill",
            spirv: vqscope_shaders::TEST_FILL,
            bindings: &[BindingKind::StorageBuffer],
            push_constant_size: 8,
            specialization: &[(0, workgroup), (1, 1000)],
            subgroup_size,
            full_subgroups: true,
        },
    )
    .unwrap();
    // Poison the output first: a dispatch that writes nothing must fail.
    let poison = vec![0xAB; count as usize * 4];
    let out = upload_buffer(&ctx, &mut submitter, "out", &poison).unwrap();
    let timestamps = Timestamps::new(&ctx, 2).unwrap();
    let mut push = Vec::new();
    push.extend_from_slice(&count.to_le_bytes());
    push.extend_from_slice(&7u32.to_le_bytes());
    submitter
        .run(|rec| {
            rec.reset_timestamps(&timestamps);
            rec.timestamp(&timestamps, 0);
            rec.dispatch(
                &pipeline,
                &[Binding::Buffer(&out)],
                &push,
                [count.div_ceil(workgroup), 1, 1],
            )?;
            rec.timestamp(&timestamps, 1);
            Ok(())
        })
        .unwrap();
    let ms = timestamps.read_intervals_ms().unwrap();
    assert_eq!(ms.len(), 1);
    assert!(ms[0] >= 0.0);
    let bytes = download_buffer(&ctx, &mut submitter, &out, u64::from(count) * 4).unwrap();
    drop((pipeline, out, timestamps, submitter));
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn fill_writes_every_element() {
    let out = run_fill(None, 64, 1000);
    for (i, v) in out.iter().enumerate() {
        assert_eq!(*v, 7 + i as u32 + 1000, "element {i}");
    }
    assert_no_validation_messages();
}

#[test]
fn every_allowed_subgroup_size_works() {
    let ctx = test_context();
    let (min, max) = (ctx.info().min_subgroup_size, ctx.info().max_subgroup_size);
    drop(ctx);
    let mut size = min;
    while size <= max {
        let out = run_fill(Some(size), 64.max(size), 333);
        assert_eq!(out[332], 7 + 332 + 1000, "subgroup size {size}");
        size *= 2;
    }
    assert_no_validation_messages();
}

#[test]
fn wrong_bindings_are_refused_not_crashed() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let pipeline = ComputePipeline::new(
        &ctx,
        &PipelineDesc {
            name: "fill",
            spirv: vqscope_shaders::TEST_FILL,
            bindings: &[BindingKind::StorageBuffer],
            push_constant_size: 8,
            specialization: &[(0, 64)],
            subgroup_size: None,
            full_subgroups: false,
        },
    )
    .unwrap();
    let buffer = Buffer::storage(&ctx, "b", 64).unwrap();
    let err = submitter
        .run(|rec| rec.dispatch(&pipeline, &[Binding::Buffer(&buffer)], &[0; 4], [1, 1, 1]))
        .unwrap_err();
    assert!(err.to_string().contains("push-constant bytes"), "{err}");
    let bad = ComputePipeline::new(
        &ctx,
        &PipelineDesc {
            name: "bad",
            spirv: &[1, 2, 3],
            bindings: &[],
            push_constant_size: 0,
            specialization: &[],
            subgroup_size: None,
            full_subgroups: false,
        },
    );
    assert!(bad.is_err());
    assert_no_validation_messages();
}

/// Every pipeline asks the device to keep denormal floats where it can
/// (libvmaf's float features run on x86 CPUs, which keep them): products
/// that land in the denormal range come back exactly as the CPU computes
/// them. A device that does not offer `DenormPreserve` for 32-bit floats may
/// flush them to zero, nothing else: lavapipe (Mesa 22.3) offers it for no
/// width and keeps them in practice; the H200 (driver 580) offers it for
/// 16-bit floats only and flushes 32-bit ones.
#[test]
fn denormal_floats_are_kept_where_the_device_can() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let pipeline = ComputePipeline::new(
        &ctx,
        &PipelineDesc { name: "denormal", ..PipelineDesc::new(vqscope_shaders::TEST_DENORMAL) },
    )
    .unwrap();
    // 2^-70 * 2^-70 = 2^-140, and neighbours: denormal products, exact or rounded.
    let pairs: Vec<(f32, f32)> = (0..100u32)
        .map(|i| {
            (2f32.powi(-70) * (1.0 + i as f32 / 7.0), 2f32.powi(-70) * (1.5 - i as f32 / 300.0))
        })
        .collect();
    let bytes: Vec<u8> =
        pairs.iter().flat_map(|&(a, b)| [a, b]).flat_map(f32::to_le_bytes).collect();
    let buffer = upload_buffer(&ctx, &mut submitter, "pairs", &bytes).unwrap();
    let n = pairs.len() as u32;
    submitter
        .run(|rec| {
            rec.dispatch(
                &pipeline,
                &[Binding::Buffer(&buffer)],
                &n.to_le_bytes(),
                [n.div_ceil(64), 1, 1],
            )
        })
        .unwrap();
    let out = download_buffer(&ctx, &mut submitter, &buffer, bytes.len() as u64).unwrap();
    let got: Vec<f32> =
        out.chunks_exact(8).map(|c| f32::from_le_bytes(c[4..8].try_into().unwrap())).collect();
    let keeps = ctx.info().denormal_preserving_widths.contains(&32);
    println!(
        "{}: keeps denormals of widths {:?}",
        ctx.info().name,
        ctx.info().denormal_preserving_widths
    );
    for (i, (&(a, b), g)) in pairs.iter().zip(&got).enumerate() {
        let want = a * b;
        assert!(want.is_subnormal(), "pair {i}: {want:e} should be denormal");
        if keeps {
            assert_eq!(g.to_bits(), want.to_bits(), "pair {i}: {a:e} * {b:e}");
        } else {
            assert!(g.to_bits() == want.to_bits() || *g == 0.0, "pair {i}: {g:e}");
        }
    }
    drop((pipeline, buffer, submitter));
    assert_no_validation_messages();
}
