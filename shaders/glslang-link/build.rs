//! Debian's `libshaderc_combined.a` does not contain glslang or SPIRV-Tools
//! (and its `libshaderc.so` is underlinked), so whatever links shaderc must
//! also link these archives. Emitting them from this crate's build script
//! makes cargo add them to every binary that depends on it, including the
//! shaders crate's build script.

fn main() {
    println!("cargo:rustc-link-search=native=/usr/lib/x86_64-linux-gnu");
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
        println!("cargo:rustc-link-lib=static={lib}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
