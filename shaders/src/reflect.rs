//! Just enough SPIR-V reading for tests: struct member offsets (so each GLSL
//! struct can be checked against its Rust twin) and which float operations
//! carry `NoContraction` (so metric kernels can be checked for `precise`).

use std::collections::HashMap;

const OP_NAME: u32 = 5;
const OP_MEMBER_NAME: u32 = 6;
const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;
const DECORATION_OFFSET: u32 = 35;
const DECORATION_NO_CONTRACTION: u32 = 42;

/// One instruction: opcode and operand words.
fn instructions(spirv: &[u32]) -> impl Iterator<Item = (u32, &[u32])> {
    let mut at = 5; // skip the header
    std::iter::from_fn(move || {
        let word = *spirv.get(at)?;
        let count = (word >> 16) as usize;
        if count == 0 || at + count > spirv.len() {
            return None;
        }
        let ops = &spirv[at + 1..at + count];
        at += count;
        Some((word & 0xFFFF, ops))
    })
}

/// Decodes a SPIR-V literal string (NUL-terminated, little-endian words).
fn literal(words: &[u32]) -> String {
    let bytes: Vec<u8> =
        words.iter().flat_map(|w| w.to_le_bytes()).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `(member name, byte offset)` of every member of the struct type named
/// `name`, in declaration order. Needs debug names (the build keeps them).
/// Returns `None` if no such struct has offsets.
pub fn struct_offsets(spirv: &[u32], name: &str) -> Option<Vec<(String, u32)>> {
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut member_names: HashMap<(u32, u32), String> = HashMap::new();
    let mut offsets: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    for (op, ops) in instructions(spirv) {
        match op {
            OP_NAME => {
                names.insert(ops[0], literal(&ops[1..]));
            }
            OP_MEMBER_NAME => {
                member_names.insert((ops[0], ops[1]), literal(&ops[2..]));
            }
            OP_MEMBER_DECORATE if ops.get(2) == Some(&DECORATION_OFFSET) => {
                offsets.entry(ops[0]).or_default().push((ops[1], ops[3]));
            }
            _ => {}
        }
    }
    let id = offsets.keys().copied().filter(|id| names.get(id).is_some_and(|n| n == name)).min()?;
    let mut members = offsets.remove(&id)?;
    members.sort();
    Some(
        members
            .into_iter()
            .map(|(i, off)| (member_names.get(&(id, i)).cloned().unwrap_or_default(), off))
            .collect(),
    )
}

/// Result ids decorated `NoContraction` (GLSL `precise`).
pub fn no_contraction_ids(spirv: &[u32]) -> Vec<u32> {
    instructions(spirv)
        .filter(|(op, ops)| *op == OP_DECORATE && ops.get(1) == Some(&DECORATION_NO_CONTRACTION))
        .map(|(_, ops)| ops[0])
        .collect()
}

/// Every instruction as `(opcode, operands)`, for tests that inspect code.
pub fn all_instructions(spirv: &[u32]) -> Vec<(u32, Vec<u32>)> {
    instructions(spirv).map(|(op, ops)| (op, ops.to_vec())).collect()
}
