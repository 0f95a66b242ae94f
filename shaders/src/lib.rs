//! vqscope-shaders: every GLSL compute shader of vqscope, compiled to SPIR-V
//! by this crate's build script (shaderc, Vulkan 1.3). Each shader is a
//! `pub const` [`Shader`] named after its path (`ui/fused.comp` is
//! [`UI_FUSED`]): its SPIR-V words and the layout a pipeline needs — the
//! kind of each binding and the push-constant size — which the build reads
//! from the compiled SPIR-V, so no call site restates them. [`ALL`] lists
//! every shader, and [`set_hash`] names the whole set.

pub mod hash;
pub mod reflect;
pub mod twin;

pub use reflect::BindingKind;

/// One compiled shader and its interface, as the build recorded it from the
/// SPIR-V (see [`reflect::bindings`] and [`reflect::push_constant_size`]).
pub struct Shader {
    /// Path under `shaders/`, e.g. `metrics/psnr.comp`.
    pub path: &'static str,
    pub spirv: &'static [u32],
    /// Binding `i` of descriptor set 0 holds `bindings[i]`; no gaps.
    pub bindings: &'static [BindingKind],
    /// Bytes of the push-constant block (0 when there is none): exactly the
    /// bytes every dispatch must push.
    pub push_constant_size: u32,
}

impl std::fmt::Debug for Shader {
    /// The interface and the code's length, not thousands of words.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shader")
            .field("path", &self.path)
            .field("spirv_words", &self.spirv.len())
            .field("bindings", &self.bindings)
            .field("push_constant_size", &self.push_constant_size)
            .finish()
    }
}

/// A shader reads as its SPIR-V words, so reflection helpers take it as is:
/// `reflect::struct_offsets(UI_FUSED, "Prim")`.
impl std::ops::Deref for Shader {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        self.spirv
    }
}

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

/// A hash of every shader's path and SPIR-V: it changes whenever one does
/// (a key of the pipeline cache). Hashes about 2.5 MB, one word at a time.
pub fn set_hash() -> u64 {
    ALL.iter().fold(hash::FNV_OFFSET, |h, shader| {
        let h = hash::fnv1a(h, shader.path.as_bytes());
        shader.spirv.iter().fold(h, |h, &w| hash::fnv1a_word(h, w))
    })
}
