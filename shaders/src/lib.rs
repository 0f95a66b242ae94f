//! vqscope-shaders: every GLSL compute shader of vqscope, compiled to SPIR-V
//! by this crate's build script (shaderc, Vulkan 1.3). Each shader is a
//! `pub const` of SPIR-V words named after its path: `ui/fused.comp` is
//! [`UI_FUSED`].

pub mod reflect;

/// Loads a `.spv` file as aligned `u32` words at compile time.
macro_rules! words {
    ($path:expr) => {{
        const BYTES: &[u8] = include_bytes!($path);
        const N: usize = BYTES.len() / 4;
        const fn to_words() -> [u32; N] {
            let mut out = [0u32; N];
            let mut i = 0;
            while i < N {
                out[i] = u32::from_le_bytes([
                    BYTES[4 * i],
                    BYTES[4 * i + 1],
                    BYTES[4 * i + 2],
                    BYTES[4 * i + 3],
                ]);
                i += 1;
            }
            out
        }
        to_words()
    }};
}

include!(concat!(env!("OUT_DIR"), "/spirv.rs"));
