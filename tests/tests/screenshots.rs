//! Golden screenshots of every test scene, rendered headless by the fused
//! shader (lavapipe in CI) with validation on.

use vqscope_gpu::Submitter;
use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_renderer::{Renderer, ScanMode, Scene, scenes};
use vqscope_tests::golden::check_golden;

fn render(scene: &Scene, mode: ScanMode) -> Vec<u8> {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut renderer = Renderer::new(&ctx, mode, None).unwrap();
    let rgba = renderer.render_to_rgba(&mut submitter, scene).unwrap();
    drop((renderer, submitter));
    rgba
}

fn golden_scene(name: &str, width: u32, height: u32) {
    let scene = scenes::build(name, width, height).unwrap();
    let rgba = render(&scene, ScanMode::Subgroup);
    check_golden(name, width, height, &rgba);
    assert_no_validation_messages();
}

#[test]
fn showcase() {
    golden_scene("showcase", 960, 540);
}

#[test]
fn rects() {
    golden_scene("rects", 320, 200);
}

#[test]
fn circles() {
    golden_scene("circles", 320, 120);
}

#[test]
fn lines() {
    golden_scene("lines", 320, 200);
}

#[test]
fn images() {
    golden_scene("images", 320, 140);
}

#[test]
fn yuv10() {
    golden_scene("yuv10", 320, 120);
}

#[test]
fn text() {
    golden_scene("text", 360, 240);
}

#[test]
fn clips() {
    golden_scene("clips", 320, 200);
}

#[test]
fn translucent() {
    golden_scene("translucent", 240, 200);
}

#[test]
fn dashboard() {
    golden_scene("dashboard", 1280, 720);
}

#[test]
fn ten_thousand_primitives() {
    golden_scene("10k", 800, 600);
}

#[test]
fn hundred_thousand_primitives() {
    golden_scene("100k", 1280, 720);
}

/// Draw order is honoured: the same shapes in reverse order must render
/// differently (so the golden above can fail on a scrambled order).
#[test]
fn scrambled_order_renders_differently() {
    let ordered = render(&scenes::build("translucent", 240, 200).unwrap(), ScanMode::Subgroup);
    let scrambled = render(&scenes::translucent_scrambled(240, 200), ScanMode::Subgroup);
    let differing =
        ordered.chunks_exact(4).zip(scrambled.chunks_exact(4)).filter(|(a, b)| a != b).count();
    assert!(differing > 1000, "only {differing} pixels changed when the order was reversed");
    assert_no_validation_messages();
}

/// The lane-0 serial scan is the same compaction: identical pixels.
#[test]
fn lane0_scan_matches_subgroup_scan() {
    let scene = scenes::build("10k", 400, 300).unwrap();
    assert_eq!(render(&scene, ScanMode::Subgroup), render(&scene, ScanMode::Lane0));
    assert_no_validation_messages();
}
