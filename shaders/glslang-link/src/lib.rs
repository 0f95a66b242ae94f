//! Carries no code: its build script adds Debian's static glslang and
//! SPIRV-Tools archives to the link of every dependent (see build.rs).
