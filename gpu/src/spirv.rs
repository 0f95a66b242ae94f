//! SPIR-V edits made at pipeline creation, where the device decides them.
//!
//! The one edit today asks the driver to keep denormal floats. libvmaf's
//! float features run on x86 with denormals kept (no flush-to-zero), and a
//! sum of tiny terms can be denormal (float ADM's denominators on a
//! 16-bit frame with the Barten CSF are one case seen on an H200). Vulkan
//! leaves denormal handling to the driver unless the module declares
//! `DenormPreserve` for a width — and NVIDIA flushes by default, so the
//! declaration is what keeps those bits equal to the CPU's. A module may
//! only declare it where the device reports `shaderDenormPreserveFloat32`
//! (or `…Float64`), so the build cannot bake it in: [`preserving_denormals`]
//! adds it to the words before the module is made.

const HEADER_WORDS: usize = 5;
const OP_ENTRY_POINT: u32 = 15;
const OP_EXECUTION_MODE: u32 = 16;
const OP_CAPABILITY: u32 = 17;
const CAPABILITY_DENORM_PRESERVE: u32 = 4464;
const EXECUTION_MODE_DENORM_PRESERVE: u32 = 4459;
const EXECUTION_MODE_DENORM_FLUSH_TO_ZERO: u32 = 4460;

/// Where one instruction starts, its opcode and its length in words.
struct Instruction {
    start: usize,
    opcode: u32,
    len: usize,
}

/// What is wrong with a module that cannot be edited.
type Malformed = &'static str;

fn instructions(spirv: &[u32]) -> Result<Vec<Instruction>, Malformed> {
    if spirv.len() < HEADER_WORDS {
        return Err("shorter than its header");
    }
    let mut out = Vec::new();
    let mut at = HEADER_WORDS;
    while at < spirv.len() {
        let len = (spirv[at] >> 16) as usize;
        if len == 0 || at + len > spirv.len() {
            return Err("an instruction runs past the module's end");
        }
        out.push(Instruction { start: at, opcode: spirv[at] & 0xffff, len });
        at += len;
    }
    Ok(out)
}

/// `spirv` with `DenormPreserve` declared for each float width in `widths`
/// (32, 64) on every entry point, and the capability it needs. Widths the
/// module already names for a denormal mode are left as they are.
pub(crate) fn preserving_denormals(spirv: &[u32], widths: &[u32]) -> Result<Vec<u32>, Malformed> {
    let insts = instructions(spirv)?;
    let last_of = |op: u32| insts.iter().rfind(|i| i.opcode == op);
    let (Some(capability), Some(entry)) = (last_of(OP_CAPABILITY), last_of(OP_ENTRY_POINT)) else {
        return Err("no capability or entry point");
    };
    let entries: Vec<u32> = insts
        .iter()
        .filter(|i| i.opcode == OP_ENTRY_POINT && i.len > 2)
        .map(|i| spirv[i.start + 2])
        .collect();
    // Widths already given a denormal mode (preserve or flush) by the module.
    let declared: Vec<(u32, u32)> = insts
        .iter()
        .filter(|i| i.opcode == OP_EXECUTION_MODE && i.len == 4)
        .filter(|i| {
            let mode = spirv[i.start + 2];
            mode == EXECUTION_MODE_DENORM_PRESERVE || mode == EXECUTION_MODE_DENORM_FLUSH_TO_ZERO
        })
        .map(|i| (spirv[i.start + 1], spirv[i.start + 3]))
        .collect();
    let has_capability = insts
        .iter()
        .any(|i| i.opcode == OP_CAPABILITY && spirv[i.start + 1] == CAPABILITY_DENORM_PRESERVE);

    let mut modes = Vec::new();
    for &id in &entries {
        for &width in widths.iter().filter(|&&w| !declared.contains(&(id, w))) {
            modes.extend([4 << 16 | OP_EXECUTION_MODE, id, EXECUTION_MODE_DENORM_PRESERVE, width]);
        }
    }
    let capability_end = capability.start + capability.len;
    let entry_end = entry.start + entry.len;
    let mut out = Vec::with_capacity(spirv.len() + modes.len() + 2);
    out.extend_from_slice(&spirv[..capability_end]);
    if !has_capability && !modes.is_empty() {
        out.extend([2 << 16 | OP_CAPABILITY, CAPABILITY_DENORM_PRESERVE]);
    }
    out.extend_from_slice(&spirv[capability_end..entry_end]);
    out.extend(modes);
    out.extend_from_slice(&spirv[entry_end..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module's words: header, two capabilities, a memory model, one
    /// entry point named "main" (id 4), one execution mode (LocalSize).
    fn module() -> Vec<u32> {
        let mut m = vec![0x0723_0203, 0x0001_0600, 0, 10, 0];
        m.extend([2 << 16 | OP_CAPABILITY, 1]); // Shader
        m.extend([2 << 16 | OP_CAPABILITY, 11]); // Int64
        m.extend([3 << 16 | 14, 0, 1]); // OpMemoryModel Logical GLSL450
        m.extend([5 << 16 | OP_ENTRY_POINT, 5, 4, u32::from_le_bytes(*b"main"), 0]);
        m.extend([6 << 16 | OP_EXECUTION_MODE, 4, 17, 64, 1, 1]); // LocalSize 64 1 1
        m
    }

    #[test]
    fn capability_follows_the_others_and_modes_follow_the_entry_point() {
        let m = module();
        let out = preserving_denormals(&m, &[32, 64]).unwrap();
        let insts = instructions(&out).unwrap();
        let ops: Vec<u32> = insts.iter().map(|i| i.opcode).collect();
        assert_eq!(ops, [17, 17, 17, 14, 15, 16, 16, 16]);
        assert_eq!(&out[insts[2].start..][..2], &[2 << 16 | 17, 4464]);
        assert_eq!(&out[insts[5].start..][..4], &[4 << 16 | 16, 4, 4459, 32]);
        assert_eq!(&out[insts[6].start..][..4], &[4 << 16 | 16, 4, 4459, 64]);
        // The original execution mode is kept, word for word.
        assert_eq!(&out[insts[7].start..][..6], &m[m.len() - 6..]);
    }

    #[test]
    fn widths_already_declared_are_not_declared_again() {
        let mut m = module();
        m.extend([4 << 16 | OP_EXECUTION_MODE, 4, EXECUTION_MODE_DENORM_FLUSH_TO_ZERO, 32]);
        let out = preserving_denormals(&m, &[32]).unwrap();
        assert_eq!(out, m, "nothing to add: no capability either");
        let out = preserving_denormals(&m, &[32, 64]).unwrap();
        assert_eq!(out.len(), m.len() + 2 + 4);
    }

    #[test]
    fn broken_modules_are_errors() {
        let m = module();
        assert!(preserving_denormals(&m[..3], &[32]).is_err());
        let mut cut = m.clone();
        cut.truncate(m.len() - 2);
        assert!(preserving_denormals(&cut, &[32]).is_err());
        let mut zero = m.clone();
        zero.push(0);
        assert!(preserving_denormals(&zero, &[32]).is_err());
        assert!(preserving_denormals(&m[..9], &[32]).is_err(), "no entry point");
    }
}
