//! The pipeline cache file on the device the tests run on: a second context
//! reads what the first wrote; a damaged or foreign file is ignored with a
//! note and replaced; a folder that cannot be written is a note, not an
//! error. Validation stays silent throughout.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use vqscope_gpu::testing::assert_no_validation_messages;
use vqscope_gpu::{ComputePipeline, ContextOptions, GpuContext, PipelineDesc};

fn context(dir: &Path) -> Arc<GpuContext> {
    let options = ContextOptions {
        validation: true,
        pipeline_cache: Some(dir.to_path_buf()),
        ..ContextOptions::from_env()
    };
    Arc::new(GpuContext::new(&options).expect("a Vulkan context"))
}

/// A context on `dir`, one pipeline built through it, and the notes on
/// reading and saving the cache.
fn run(dir: &Path) -> (String, String) {
    let ctx = context(dir);
    let desc = PipelineDesc::new(vqscope_shaders::METRICS_PSNR);
    drop(ComputePipeline::new(&ctx, &desc).expect("the pipeline"));
    assert_eq!(ctx.pipeline_stats().pipelines, 1);
    let saved = ctx.save_pipeline_cache().expect("saving is never an error");
    (ctx.pipeline_cache_note().to_owned(), saved)
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The one cache file in `dir`.
fn cache_file(dir: &Path) -> PathBuf {
    let files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
fn a_second_run_reads_what_the_first_wrote() {
    let dir = fresh_dir("pipeline-cache-round-trip");
    let (read, saved) = run(&dir);
    assert!(read.starts_with("none yet"), "{read}");
    assert!(saved.starts_with("wrote"), "{saved}");
    let (read, saved) = run(&dir);
    assert!(read.starts_with("read"), "{read}");
    assert!(saved.starts_with("unchanged"), "{saved}");
    assert_no_validation_messages();
}

#[test]
fn damaged_or_foreign_files_are_ignored_and_replaced() {
    let dir = fresh_dir("pipeline-cache-damaged");
    run(&dir);
    let file = cache_file(&dir);
    let good = std::fs::read(&file).unwrap();
    let mut foreign = good.clone();
    foreign[8] ^= 1; // the key: another device, driver or shader set
    let mut vulkan = good.clone();
    vulkan[32 + 8] ^= 1; // the Vulkan header's vendor id
    let damaged: [(&str, &[u8]); 5] = [
        ("empty", b""),
        ("truncated", &good[..good.len() - 1]),
        ("garbage", &[0x5a; 4096]),
        ("foreign", &foreign),
        ("vulkan", &vulkan),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&file, bytes).unwrap();
        let (read, saved) = run(&dir);
        assert!(read.contains("ignored"), "{what}: {read}");
        assert!(saved.starts_with("wrote"), "{what}: {saved}");
        assert!(run(&dir).0.starts_with("read"), "{what}: not replaced");
    }
    assert_no_validation_messages();
}

#[test]
fn an_unwritable_folder_is_only_a_note() {
    let dir = fresh_dir("pipeline-cache-unwritable");
    std::fs::create_dir_all(&dir).unwrap();
    // A folder below a file cannot be made, even by root (who may write
    // into read-only folders).
    let file = dir.join("a file");
    std::fs::write(&file, b"").unwrap();
    let (read, saved) = run(&file.join("cache"));
    assert!(read.contains("ignored"), "{read}");
    assert!(saved.starts_with("not written"), "{saved}");
    assert_no_validation_messages();
}
