//! Compiles every `.comp` under this crate with shaderc for Vulkan 1.3 and
//! writes a Rust file of `pub const NAME: &Shader` records: the SPIR-V words
//! and, read back from them, the kind of each binding and the push-constant
//! size. Errors keep glslang's `file:line: message` form so they point at
//! the source; a layout the pipelines cannot create (a gap in the bindings,
//! a uniform buffer, another descriptor set) fails the build too.
//!
//! A few shaders are compiled once more with a macro defined ([`VARIANTS`]):
//! `ui/fused.comp` with `HDR10_OUTPUT` is `UI_FUSED_HDR10_OUTPUT`, path
//! `ui/fused.comp#HDR10_OUTPUT`. A macro rather than a specialization
//! constant because it changes the storage image's declared format (and,
//! for the SSIM passes' `FROM_FRAME` and ciede's `LAB_TABLE`, the bindings
//! and push constants).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use vqscope_glslang_link as _;

/// The same reflection the crate exports (one copy, read by both).
#[allow(dead_code)]
#[path = "src/reflect.rs"]
mod reflect;

/// Shaders compiled a second time with a macro defined: (source, macro).
const VARIANTS: &[(&str, &str)] = &[
    ("metrics/ciede.comp", "LAB_TABLE"),
    ("metrics/ssim_lpf.comp", "FROM_FRAME"),
    ("metrics/ssim_scale.comp", "FROM_FRAME"),
    ("ui/fused.comp", "HDR10_OUTPUT"),
];

/// Shaders compiled without spirv-opt. Its loop unroller copies the body of
/// a loop marked `[[unroll]]` without the copies' `NoContraction`, and its
/// folder then merges their multiply-adds into float `Fma`s, which NVIDIA
/// rounds once (`tests/precise.rs`). Unoptimized, such a loop reaches the
/// driver with its Unroll hint and every decoration, and the driver unrolls
/// it: for shaders whose blocks must stay in registers through long loops of
/// `precise` arithmetic.
const UNOPTIMIZED: &[&str] = &["metrics/psnr_hvs_block.comp"];

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let mut files = Vec::new();
    // The root too, so that a new folder of shaders is seen (each folder's
    // own line only covers what is added inside it).
    println!("cargo:rerun-if-changed={}", root.display());
    collect(&root, &mut files);
    // Each file plainly, then as each of its variants (right after it, so
    // `ALL` stays sorted by path).
    let mut sources: Vec<(PathBuf, Option<&str>)> = Vec::new();
    files.sort();
    for path in files {
        let rel = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        let variants: Vec<_> =
            VARIANTS.iter().filter(|(source, _)| *source == rel).map(|&(_, m)| Some(m)).collect();
        sources.push((path.clone(), None));
        sources.extend(variants.into_iter().map(|m| (path.clone(), m)));
    }

    let compiler = shaderc::Compiler::new().expect("shaderc compiler");
    let mut generated = String::new();
    let mut all =
        String::from("/// Every shader, in path order.\npub const ALL: &[&Shader] = &[\n");
    let mut failed = false;
    for (path, variant) in &sources {
        println!("cargo:rerun-if-changed={}", path.display());
        let rel = path.strip_prefix(&root).unwrap();
        let mut name = const_name(rel);
        let text = std::fs::read_to_string(path).expect("read shader");
        let mut opts = shaderc::CompileOptions::new().expect("shaderc options");
        if let Some(variant) = variant {
            opts.add_macro_definition(variant, Some("1"));
            name = format!("{name}_{variant}");
        }
        opts.set_target_env(shaderc::TargetEnv::Vulkan, shaderc::EnvVersion::Vulkan1_3 as u32);
        opts.set_target_spirv(shaderc::SpirvVersion::V1_6);
        let rel_path = rel.to_string_lossy().replace('\\', "/");
        opts.set_optimization_level(if UNOPTIMIZED.contains(&rel_path.as_str()) {
            shaderc::OptimizationLevel::Zero
        } else {
            shaderc::OptimizationLevel::Performance
        });
        opts.set_generate_debug_info();
        let dir = path.parent().unwrap().to_path_buf();
        let include_root = root.clone();
        opts.set_include_callback(move |requested, _ty, _from, _depth| {
            for base in [&dir, &include_root] {
                let candidate = base.join(requested);
                if let Ok(content) = std::fs::read_to_string(&candidate) {
                    println!("cargo:rerun-if-changed={}", candidate.display());
                    return Ok(shaderc::ResolvedInclude {
                        resolved_name: candidate.display().to_string(),
                        content,
                    });
                }
            }
            Err(format!("include not found: {requested}"))
        });
        match compiler.compile_into_spirv(
            &text,
            shaderc::ShaderKind::Compute,
            &path.display().to_string(),
            "main",
            Some(&opts),
        ) {
            Ok(artifact) => {
                if artifact.get_num_warnings() > 0 {
                    for line in artifact.get_warning_messages().lines() {
                        println!("cargo:warning={line}");
                    }
                }
                let words = artifact.as_binary();
                let layout = reflect::bindings(words)
                    .and_then(|bindings| Ok((bindings, reflect::push_constant_size(words)?)));
                let (bindings, push_constant_size) = match layout {
                    Ok(layout) => layout,
                    Err(e) => {
                        failed = true;
                        let line = format!("{}: interface: {e}", path.display());
                        println!("cargo:warning={line}");
                        eprintln!("{line}");
                        continue;
                    }
                };
                let spv = out_dir.join(format!("{name}.spv"));
                std::fs::write(&spv, artifact.as_binary_u8()).expect("write spv");
                let mut rel = rel.display().to_string();
                if let Some(variant) = variant {
                    rel = format!("{rel}#{variant}");
                }
                let bindings: Vec<String> =
                    bindings.iter().map(|kind| format!("crate::BindingKind::{kind:?}")).collect();
                writeln!(
                    generated,
                    "/// `shaders/{rel}`.\npub const {name}: &Shader = &Shader {{\n    \
                     path: {rel:?},\n    spirv: &words!({:?}),\n    bindings: &[{}],\n    \
                     push_constant_size: {push_constant_size},\n}};",
                    spv.display().to_string(),
                    bindings.join(", "),
                )
                .unwrap();
                writeln!(all, "    {name},").unwrap();
            }
            Err(e) => {
                failed = true;
                for line in e.to_string().lines() {
                    println!("cargo:warning={line}");
                    eprintln!("{line}");
                }
            }
        }
    }
    if failed {
        panic!("shader build failed (messages above: file:line: error, or file: interface: error)");
    }
    all.push_str("];\n");
    generated.push_str(&all);
    std::fs::write(out_dir.join("spirv.rs"), generated).expect("write spirv.rs");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/reflect.rs");
}

/// Every `.comp` below `dir`, recursively.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read shader dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target" && n != "src") {
                println!("cargo:rerun-if-changed={}", path.display());
                collect(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "comp") {
            out.push(path);
        }
    }
}

/// `ui/fused.comp` → `UI_FUSED`.
fn const_name(rel: &Path) -> String {
    rel.with_extension("").to_string_lossy().replace(['/', '\\', '-', '.'], "_").to_uppercase()
}
