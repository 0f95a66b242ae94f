//! Rust `#[repr(C)]` twins of GLSL structs, checked against the compiled
//! SPIR-V: the same members at the same byte offsets, and the same size.
//! Describe a twin with [`twin!`](crate::twin!) where the struct is defined
//! (the macro reads private fields there) and check it with
//! [`Twin::check`] in a test.

use crate::Shader;
use crate::reflect::{struct_offsets, struct_size};

/// A Rust struct and the GLSL struct it mirrors in one or more shaders.
#[derive(Debug)]
pub struct Twin {
    /// The Rust type, for messages.
    pub rust: &'static str,
    /// The GLSL struct's name (a push-constant block's is its block name,
    /// e.g. `Push`).
    pub glsl: &'static str,
    /// Every shader whose declaration of `glsl` this twin must match.
    pub shaders: Vec<&'static Shader>,
    /// `size_of` the Rust type.
    pub size: usize,
    /// For each GLSL member in declaration order, its name and the byte
    /// offset of the Rust field holding it.
    pub members: Vec<(&'static str, usize)>,
}

impl Twin {
    /// Every way the twin disagrees with a shader, one line each.
    pub fn check(&self) -> Result<(), String> {
        let mut problems = Vec::new();
        for shader in &self.shaders {
            let at = format!("{} vs `{}` in {}", self.rust, self.glsl, shader.path);
            let Some(glsl) = struct_offsets(shader, self.glsl) else {
                problems.push(format!("{at}: the shader has no such struct with offsets"));
                continue;
            };
            let glsl_names: Vec<&str> = glsl.iter().map(|(n, _)| n.as_str()).collect();
            let rust_names: Vec<&str> = self.members.iter().map(|(n, _)| *n).collect();
            if glsl_names != rust_names {
                problems
                    .push(format!("{at}: members {glsl_names:?} in GLSL, {rust_names:?} listed"));
                continue;
            }
            for ((name, glsl_offset), (_, rust_offset)) in glsl.iter().zip(&self.members) {
                if *glsl_offset as usize != *rust_offset {
                    problems.push(format!(
                        "{at}: `{name}` at byte {glsl_offset} in GLSL, {rust_offset} in Rust"
                    ));
                }
            }
            match struct_size(shader, self.glsl) {
                Ok(size) if size as usize == self.size => {}
                Ok(size) => {
                    problems.push(format!("{at}: {size} bytes in GLSL, {} in Rust", self.size))
                }
                Err(e) => problems.push(format!("{at}: {e}")),
            }
        }
        if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
    }
}

/// Describes a [`Twin`]: the Rust type, the GLSL struct's name, the shaders
/// declaring it (`[A, B]`, or a variable holding anything that yields
/// `&Shader`s), then every member of the GLSL struct in order — a bare name
/// is the Rust field of that name; `name = field.path` a nested field,
/// `name = field + 4` a byte offset into one (an array element).
///
/// ```
/// #[repr(C)]
/// struct Inner { left: u32, right: u32 }
/// #[repr(C)]
/// struct ReducePush { fields: u32, pair: Inner }
///
/// let twin = vqscope_shaders::twin!(ReducePush as "Push" in [vqscope_shaders::METRICS_REDUCE] {
///     fields, groups = pair.left, out_base = pair + 4,
/// });
/// assert_eq!(twin.check(), Ok(()));
/// ```
#[macro_export]
macro_rules! twin {
    ($ty:ty as $glsl:literal in $shaders:tt {
        $($member:ident $(= $($field:ident).+ $(+ $add:literal)?)?),* $(,)?
    }) => {
        $crate::twin::Twin {
            rust: stringify!($ty),
            glsl: $glsl,
            shaders: ::core::iter::IntoIterator::into_iter($shaders).collect(),
            size: ::core::mem::size_of::<$ty>(),
            members: vec![$((
                stringify!($member),
                $crate::twin!(@offset $ty; $member $(= $($field).+ $(+ $add)?)?),
            )),*],
        }
    };
    (@offset $ty:ty; $member:ident) => {
        ::core::mem::offset_of!($ty, $member)
    };
    (@offset $ty:ty; $member:ident = $($field:ident).+ $(+ $add:literal)?) => {
        ::core::mem::offset_of!($ty, $($field).+) $(+ $add)?
    };
}
