//! A file imported as device memory (`Buffer::import_file`) copies on the
//! GPU exactly as its bytes read from disk, at offsets no page or frame
//! boundary lines up with, for files of odd lengths.

use vqscope_gpu::testing::{Rng, assert_no_validation_messages};
use vqscope_gpu::{Buffer, ContextOptions, GpuContext, Submitter, download_buffer};

#[test]
fn an_imported_file_copies_as_its_bytes() {
    let validation = std::env::var("VQSCOPE_TEST_VALIDATION").map_or(true, |v| v != "0");
    let options = ContextOptions { validation, host_import: true, ..ContextOptions::from_env() };
    let ctx = std::sync::Arc::new(GpuContext::new(&options).expect("a Vulkan context"));
    let mut submitter = Submitter::new(&ctx, 2).unwrap();
    let dir = std::env::temp_dir().join(format!("vqscope-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x5eed_1234_5678_9abc);
    for len in [1u64, 4095, 4096, 3 * 4096 + 123, 1 << 20 | 77] {
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let path = dir.join(format!("{len}.bin"));
        std::fs::write(&path, &bytes).unwrap();
        let imported = Buffer::import_file(&ctx, &path).unwrap_or_else(|e| panic!("{len}: {e}"));
        assert!(
            imported.size() >= len && imported.size().is_multiple_of(4096),
            "{}",
            imported.size()
        );
        let offset = rng.below(len);
        let count = (len - offset).min(1 + rng.below(len));
        let out = Buffer::storage(&ctx, "copied", count).unwrap();
        submitter
            .run(|rec| {
                rec.copy_buffer(&imported, offset, &out, 0, count);
                Ok(())
            })
            .unwrap();
        let copied = download_buffer(&ctx, &mut submitter, &out, count).unwrap();
        let want = &bytes[offset as usize..(offset + count) as usize];
        assert!(copied == want, "{len} bytes from {offset}, {count} copied: differ");
    }
    std::fs::remove_dir_all(&dir).unwrap();
    drop(submitter);
    drop(ctx);
    assert_no_validation_messages();
}
