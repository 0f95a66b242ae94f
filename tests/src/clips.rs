//! Access to `../shared/clips` and `../shared/upstream_fixtures`: the shared
//! folder is read-only, so compressed inputs are unpacked into `target/`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The three clip pairs libvmaf's reference output exists for.
pub const PAIRS: [&str; 3] = [
    "collage_1920x1080_420p8_scaled960x540_x264crf23",
    "retina_576x324_420p10_x264crf35",
    "rocket_576x324_420p8_x264crf35",
];

/// Root of the workspace (the folder holding the top Cargo.toml);
/// `VQSCOPE_ROOT` overrides it for test binaries run on another machine.
pub fn workspace_root() -> PathBuf {
    if let Some(root) = std::env::var_os("VQSCOPE_ROOT") {
        return PathBuf::from(root);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// `../shared` beside the checkout; `VQSCOPE_SHARED` overrides it.
pub fn shared_dir() -> PathBuf {
    std::env::var_os("VQSCOPE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared"))
}

/// Where unpacked inputs go.
fn unpack_dir() -> PathBuf {
    workspace_root().join("target/shared-unpacked")
}

static UNPACK: Mutex<()> = Mutex::new(());

/// Path of `name` unpacked from `shared/<sub>/<name>.zst` (done once, with the
/// `zstd` tool, into `target/shared-unpacked`).
pub fn unpacked(sub: &str, name: &str) -> PathBuf {
    let _guard = UNPACK.lock().unwrap_or_else(|e| e.into_inner());
    let out = unpack_dir().join(name);
    if out.exists() {
        return out;
    }
    std::fs::create_dir_all(unpack_dir()).expect("create unpack dir");
    let src = shared_dir().join(sub).join(format!("{name}.zst"));
    let tmp = out.with_extension("partial");
    let status = Command::new("zstd")
        .arg("-q")
        .arg("-f")
        .arg("-d")
        .arg(&src)
        .arg("-o")
        .arg(&tmp)
        .status()
        .unwrap_or_else(|e| panic!("running zstd on {}: {e}", src.display()));
    assert!(status.success(), "zstd -d {} failed", src.display());
    std::fs::rename(&tmp, &out).expect("rename unpacked file");
    out
}

/// Reference y4m of a clip pair, unpacked.
pub fn reference_y4m(pair: &str) -> PathBuf {
    unpacked("clips", &format!("{pair}.ref.y4m"))
}

/// Distorted y4m of a clip pair, unpacked.
pub fn distorted_y4m(pair: &str) -> PathBuf {
    unpacked("clips", &format!("{pair}.dis.y4m"))
}

/// libvmaf's JSON output for a pair: `kind` is "vmaf" or "features".
pub fn libvmaf_json(pair: &str, kind: &str) -> serde_json::Value {
    read_json(&shared_dir().join("clips").join(format!("{pair}.{kind}.json")))
}

fn read_json(path: &std::path::Path) -> serde_json::Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

/// libvmaf 3.2.0's report for a pair with other models, presets and
/// features (`clips/refs/`): `kind` is "models", "extra" or "aomctc".
pub fn libvmaf_ref_json(pair: &str, kind: &str) -> serde_json::Value {
    read_json(&shared_dir().join("clips/refs").join(format!("{pair}.{kind}.json")))
}

/// libvmaf's per-frame value of `key` for every frame, in frame order.
pub fn libvmaf_frames(json: &serde_json::Value, key: &str) -> Vec<f64> {
    json["frames"]
        .as_array()
        .expect("frames array")
        .iter()
        .map(|f| f["metrics"][key].as_f64().unwrap_or_else(|| panic!("frame lacks {key}")))
        .collect()
}

/// libvmaf prints `%.6f`: the string our value must equal.
pub fn printed(v: f64) -> String {
    format!("{v:.6}")
}
