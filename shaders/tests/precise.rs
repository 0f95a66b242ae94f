//! libvmaf computes its floating-point steps without FMA contraction, and a
//! GPU driver may fuse `a * b + c` unless the SPIR-V forbids it (lavapipe
//! never fuses, so CI could not see the fault at run time). This test reads
//! the compiled SPIR-V of every metric shader and fails when a float
//! multiply feeds an add or subtract without `NoContraction` (GLSL
//! `precise`) on both instructions, or when the compiled code holds a
//! 32-bit float `Fma`: no metric shader calls `fma()` on floats (libvmaf
//! rounds the product and the sum apart), so such an `Fma` is one that
//! shaderc's optimizer made itself. It does so in loops marked `[[unroll]]`:
//! it unrolls them, the copies of the body lose `NoContraction`, and its
//! folder fuses their multiply-adds. lavapipe splits an undecorated `Fma`
//! again, so every lavapipe test passes; NVIDIA rounds it once (float_vif's
//! and float_motion's tiled kernels differed from their twins by an ulp on
//! an H100 for that reason).

use std::collections::{HashMap, HashSet};

use vqscope_shaders::reflect::{all_instructions, no_contraction_ids};

const OP_F_ADD: u32 = 129;
const OP_F_SUB: u32 = 131;
const OP_F_MUL: u32 = 133;
const OP_VECTOR_TIMES_SCALAR: u32 = 142;
const OP_EXT_INST_IMPORT: u32 = 11;
const OP_EXT_INST: u32 = 12;
const OP_TYPE_FLOAT: u32 = 22;
const OP_TYPE_VECTOR: u32 = 23;
/// `Fma` in the GLSL.std.450 extended instruction set.
const GLSL_STD_450_FMA: u32 = 50;

/// `(add id, mul id)` pairs that a driver could contract.
fn contractible(spirv: &[u32]) -> Vec<(u32, u32)> {
    let precise: HashSet<u32> = no_contraction_ids(spirv).into_iter().collect();
    let instructions = all_instructions(spirv);
    // Result id of every multiply: operands are [result type, result id, ...].
    let muls: HashMap<u32, ()> = instructions
        .iter()
        .filter(|(op, _)| *op == OP_F_MUL || *op == OP_VECTOR_TIMES_SCALAR)
        .map(|(_, ops)| (ops[1], ()))
        .collect();
    let mut found = Vec::new();
    for (op, ops) in &instructions {
        if *op != OP_F_ADD && *op != OP_F_SUB {
            continue;
        }
        let result = ops[1];
        for &operand in &ops[2..4] {
            if muls.contains_key(&operand)
                && (!precise.contains(&result) || !precise.contains(&operand))
            {
                found.push((result, operand));
            }
        }
    }
    found
}

/// Result ids of the 32-bit float (scalar or vector) GLSL.std.450 `Fma`s.
fn float_fmas(spirv: &[u32]) -> Vec<u32> {
    let instructions = all_instructions(spirv);
    let glsl: HashSet<u32> = instructions
        .iter()
        .filter(|(op, ops)| *op == OP_EXT_INST_IMPORT && literal_is(&ops[1..], "GLSL.std.450"))
        .map(|(_, ops)| ops[0])
        .collect();
    let float32: HashSet<u32> = instructions
        .iter()
        .filter(|(op, ops)| *op == OP_TYPE_FLOAT && ops[1] == 32)
        .map(|(_, ops)| ops[0])
        .collect();
    let vec32: HashSet<u32> = instructions
        .iter()
        .filter(|(op, ops)| *op == OP_TYPE_VECTOR && float32.contains(&ops[1]))
        .map(|(_, ops)| ops[0])
        .collect();
    instructions
        .iter()
        .filter(|(op, ops)| {
            *op == OP_EXT_INST
                && glsl.contains(&ops[2])
                && ops[3] == GLSL_STD_450_FMA
                && (float32.contains(&ops[0]) || vec32.contains(&ops[0]))
        })
        .map(|(_, ops)| ops[1])
        .collect()
}

/// Whether SPIR-V literal-string words spell `text` (nul-terminated, packed
/// little-endian four bytes a word).
fn literal_is(words: &[u32], text: &str) -> bool {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    bytes.split(|&b| b == 0).next() == Some(text.as_bytes())
}

#[test]
fn metric_shaders_forbid_contraction() {
    let mut report = Vec::new();
    for shader in vqscope_shaders::ALL {
        if !shader.path.starts_with("metrics/") {
            continue;
        }
        let bad = contractible(shader);
        if !bad.is_empty() {
            report.push(format!("{}: {} contractible multiply-add(s)", shader.path, bad.len()));
        }
        let fused = float_fmas(shader);
        if !fused.is_empty() {
            report.push(format!(
                "{}: {} float Fma(s) (a loop marked [[unroll]] around `precise` arithmetic?)",
                shader.path,
                fused.len()
            ));
        }
    }
    assert!(report.is_empty(), "mark these `precise`:\n{}", report.join("\n"));
}

/// The check itself must be able to fail: the UI shader does plain float
/// multiply-adds and has no `precise`, so it must be flagged.
#[test]
fn detector_flags_plain_multiply_add() {
    assert!(!contractible(vqscope_shaders::UI_FUSED).is_empty());
}

/// The same for the fused form: the UI shader's unrolled loops come out of
/// shaderc's optimizer with float `Fma`s.
#[test]
fn detector_flags_float_fma() {
    assert!(!float_fmas(vqscope_shaders::UI_FUSED).is_empty());
}
