//! The UI's ordered compaction (shaders/ui/compact.glsl), GPU against a CPU
//! reference on random keep masks, in both scan modes, at every subgroup
//! size lavapipe offers (4, 8, 16) or the device's own.

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_gpu::{
    Binding, BindingKind, ComputePipeline, PipelineDesc, Submitter, download_buffer, upload_buffer,
};

const WG: usize = 256;

fn check_mode(scan_mode: u32) {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let max_subgroups = (WG as u32 / ctx.info().min_subgroup_size).max(1);
    let pipeline = ComputePipeline::new(
        &ctx,
        &PipelineDesc {
            name: "test/compact",
            spirv: vqscope_shaders::TEST_COMPACT,
            bindings: &[BindingKind::StorageBuffer; 3],
            push_constant_size: 0,
            specialization: &[(0, scan_mode), (1, max_subgroups)],
            subgroup_size: None,
            full_subgroups: true,
        },
    )
    .unwrap();
    let mut rng = Rng(0x1234_5678 ^ u64::from(scan_mode));
    for round in 0..6 {
        let groups = 1 + rng.below(40) as usize;
        // Densities from empty to full, so both extremes are covered.
        let density = [0, 1, 10, 50, 90, 100][round];
        let keep: Vec<u32> =
            (0..groups * WG).map(|_| u32::from(rng.below(100) < density)).collect();
        let keep_buf =
            upload_buffer(&ctx, &mut submitter, "keep", bytemuck::cast_slice(&keep)).unwrap();
        // Poison the outputs: unwritten slots must not look like results.
        let items =
            upload_buffer(&ctx, &mut submitter, "items", &vec![0xEE; groups * WG * 4]).unwrap();
        let counts =
            upload_buffer(&ctx, &mut submitter, "counts", &vec![0xEE; groups * 4]).unwrap();
        submitter
            .run(|rec| {
                rec.dispatch(
                    &pipeline,
                    &[
                        Binding::Buffer(&keep_buf),
                        Binding::Buffer(&items),
                        Binding::Buffer(&counts),
                    ],
                    &[],
                    [groups as u32, 1, 1],
                )
            })
            .unwrap();
        let got_items = words(
            &download_buffer(&ctx, &mut submitter, &items, (groups * WG * 4) as u64).unwrap(),
        );
        let got_counts =
            words(&download_buffer(&ctx, &mut submitter, &counts, (groups * 4) as u64).unwrap());
        for g in 0..groups {
            let expected: Vec<u32> =
                (g * WG..(g + 1) * WG).filter(|&i| keep[i] != 0).map(|i| i as u32).collect();
            assert_eq!(
                got_counts[g] as usize,
                expected.len(),
                "group {g} count (mode {scan_mode})"
            );
            assert_eq!(
                &got_items[g * WG..g * WG + expected.len()],
                &expected[..],
                "group {g} order (mode {scan_mode})"
            );
        }
        drop((keep_buf, items, counts));
    }
    drop((pipeline, submitter));
    assert_no_validation_messages();
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn subgroup_scan_compacts_in_order() {
    if !at_every_lavapipe_subgroup_size("subgroup_scan_compacts_in_order") {
        return;
    }
    check_mode(0);
}

#[test]
fn lane0_scan_compacts_in_order() {
    if !at_every_lavapipe_subgroup_size("lane0_scan_compacts_in_order") {
        return;
    }
    check_mode(1);
}
