//! Debian's `libshaderc_combined.a` does not contain glslang or SPIRV-Tools
//! (and its `libshaderc.so` is underlinked), so whatever links shaderc must
//! also link these archives. Emitting them from this crate's build script
//! makes cargo add them to every binary that depends on it, including the
//! shaders crate's build script.
//!
//! The archives live in the multiarch folder of the host (x86_64 or aarch64
//! Debian and Ubuntu). Each is linked only where it exists: glslang 14
//! (Ubuntu 24.04) folded `OGLCompiler` and `OSDependent` into `glslang`.

use std::path::Path;

fn main() {
    let multiarch = match std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() {
        Ok("aarch64") => "aarch64-linux-gnu",
        _ => "x86_64-linux-gnu",
    };
    let dir = Path::new("/usr/lib").join(multiarch);
    println!("cargo:rustc-link-search=native={}", dir.display());
    for lib in [
        "glslang",
        "MachineIndependent",
        "OSDependent",
        "GenericCodeGen",
        "OGLCompiler",
        "SPIRV",
        "SPIRV-Tools-opt",
        "SPIRV-Tools",
    ] {
        if dir.join(format!("lib{lib}.a")).exists() {
            println!("cargo:rustc-link-lib=static={lib}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
