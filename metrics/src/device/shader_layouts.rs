//! Every `#[repr(C)]` Rust twin of a GLSL struct in this crate — push
//! constants and the structs inside them — against the compiled SPIR-V of
//! every shader that declares it: the same members at the same offsets and
//! the same size. Each twin is described next to its struct (a `twins()`
//! test hook, so private fields stay private); this test walks every metric
//! shader so that no push block goes unchecked.

use vqscope_shaders::reflect::push_constant_structs;
use vqscope_shaders::twin::Twin;
use vqscope_shaders::{ALL, Shader};

/// The shared structs' twins, then every registry feature's.
fn all_twins() -> Vec<Twin> {
    let shared = [
        crate::device::twins(),
        crate::reduce::twins(),
        crate::row_sums::twins(),
        crate::scale::twins(),
    ];
    let features = crate::features::REGISTRY.iter().map(|f| f.twins());
    shared.into_iter().chain(features).flatten().collect()
}

fn metric_shaders() -> impl Iterator<Item = &'static Shader> {
    ALL.iter().copied().filter(|s| s.path.starts_with("metrics/"))
}

fn lists(twin: &Twin, shader: &Shader) -> bool {
    twin.shaders.iter().any(|s| s.path == shader.path)
}

#[test]
fn every_twin_matches_its_shaders() {
    let twins = all_twins();
    let problems: Vec<String> = twins.iter().filter_map(|t| t.check().err()).collect();
    assert!(
        problems.is_empty(),
        "Rust twins that disagree with the SPIR-V:\n{}",
        problems.join("\n")
    );
    for twin in &twins {
        assert!(!twin.shaders.is_empty(), "{}: checked against no shader", twin.rust);
    }
}

/// Each metric shader's push block, and each struct inside it, has a twin
/// that lists the shader: a new kernel or a new struct cannot skip the
/// check above.
#[test]
fn every_push_struct_has_a_twin() {
    let twins = all_twins();
    let mut missing = Vec::new();
    for shader in metric_shaders() {
        for name in push_constant_structs(shader).unwrap() {
            if !twins.iter().any(|t| t.glsl == name && lists(t, shader)) {
                missing.push(format!("{}: `{name}`", shader.path));
            }
        }
    }
    assert!(missing.is_empty(), "no Rust twin checked for:\n{}", missing.join("\n"));
}

/// The push-constant twin of each shader is exactly as large as the block
/// the build recorded: the size every dispatch must push.
#[test]
fn push_twins_fill_the_recorded_size() {
    let twins = all_twins();
    for shader in metric_shaders() {
        let Some(block) = push_constant_structs(shader).unwrap().into_iter().next() else {
            assert_eq!(shader.push_constant_size, 0, "{}", shader.path);
            continue;
        };
        for twin in twins.iter().filter(|t| t.glsl == block && lists(t, shader)) {
            assert_eq!(
                twin.size, shader.push_constant_size as usize,
                "{} pushes {} bytes, {} records {}",
                twin.rust, twin.size, shader.path, shader.push_constant_size
            );
        }
    }
}

/// The VIF scales are created with scale 3's layout (scales 0 and 1 never
/// write `results`, so their SPIR-V lacks binding 4): every scale's own
/// bindings must be a prefix of it.
#[test]
fn vif_scales_fit_scale3_layout() {
    let full = vqscope_shaders::METRICS_VIF_SCALE3.bindings;
    for shader in [
        vqscope_shaders::METRICS_VIF_SCALE0,
        vqscope_shaders::METRICS_VIF_SCALE1,
        vqscope_shaders::METRICS_VIF_SCALE2,
    ] {
        assert!(full.starts_with(shader.bindings), "{}", shader.path);
        assert_eq!(
            shader.push_constant_size,
            vqscope_shaders::METRICS_VIF_SCALE3.push_constant_size,
            "{}",
            shader.path
        );
    }
    assert_eq!(full.len(), 5);
}
