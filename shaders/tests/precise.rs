//! libvmaf computes its floating-point steps without FMA contraction, and a
//! GPU driver may fuse `a * b + c` unless the SPIR-V forbids it (lavapipe
//! never fuses, so CI could not see the fault at run time). This test reads
//! the compiled SPIR-V of every metric shader and fails when a float
//! multiply feeds an add or subtract without `NoContraction` (GLSL
//! `precise`) on both instructions.

use std::collections::{HashMap, HashSet};

use vqscope_shaders::reflect::{all_instructions, no_contraction_ids};

const OP_F_ADD: u32 = 129;
const OP_F_SUB: u32 = 131;
const OP_F_MUL: u32 = 133;
const OP_VECTOR_TIMES_SCALAR: u32 = 142;

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
    }
    assert!(report.is_empty(), "mark these `precise`:\n{}", report.join("\n"));
}

/// The check itself must be able to fail: the UI shader does plain float
/// multiply-adds and has no `precise`, so it must be flagged.
#[test]
fn detector_flags_plain_multiply_add() {
    assert!(!contractible(vqscope_shaders::UI_FUSED).is_empty());
}
