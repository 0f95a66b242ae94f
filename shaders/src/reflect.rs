//! Just enough SPIR-V reading for the build and the tests: the descriptor
//! bindings and the push-constant size a pipeline layout needs (the build
//! script records them beside each shader's SPIR-V), struct member offsets
//! and sizes (so each GLSL struct can be checked against its Rust twin), and
//! which float operations carry `NoContraction` (so metric kernels can be
//! checked for `precise`).
//!
//! The build script includes this very file (`#[path]`), so it depends on
//! nothing but `std`.

use std::collections::HashMap;

const OP_NAME: u32 = 5;
const OP_MEMBER_NAME: u32 = 6;
const OP_TYPE_BOOL: u32 = 20;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_TYPE_VECTOR: u32 = 23;
const OP_TYPE_IMAGE: u32 = 25;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_RUNTIME_ARRAY: u32 = 29;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_POINTER: u32 = 32;
const OP_CONSTANT: u32 = 43;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;

const DECORATION_BLOCK: u32 = 2;
const DECORATION_BUFFER_BLOCK: u32 = 3;
const DECORATION_ARRAY_STRIDE: u32 = 6;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;
const DECORATION_OFFSET: u32 = 35;
const DECORATION_NO_CONTRACTION: u32 = 42;

const STORAGE_UNIFORM_CONSTANT: u32 = 0;
const STORAGE_UNIFORM: u32 = 2;
const STORAGE_PUSH_CONSTANT: u32 = 9;
const STORAGE_STORAGE_BUFFER: u32 = 12;

/// `OpTypeImage`'s Sampled operand for an image used without a sampler.
const IMAGE_STORAGE: u32 = 2;
/// `OpTypeImage`'s Dim operand for a texel buffer.
const DIM_BUFFER: u32 = 5;

/// What a binding slot of a compute shader holds: the only descriptor kinds
/// vqscope's shaders use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingKind {
    StorageBuffer,
    StorageImage,
}

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

/// The types, names, decorations and variables of a module: what the
/// layout questions below need, read in one pass.
#[derive(Default)]
struct Module {
    names: HashMap<u32, String>,
    member_names: HashMap<(u32, u32), String>,
    /// Type id → its defining instruction (opcode, operands after the id).
    types: HashMap<u32, (u32, Vec<u32>)>,
    /// Scalar 32-bit-or-less constants by id (array lengths).
    constants: HashMap<u32, u32>,
    /// Decorations without member: id → [(decoration, first literal)].
    decorations: HashMap<u32, Vec<(u32, Option<u32>)>>,
    /// Struct id → [(member index, offset)].
    offsets: HashMap<u32, Vec<(u32, u32)>>,
    /// Global variables in declaration order: (id, pointer type, storage class).
    variables: Vec<(u32, u32, u32)>,
}

impl Module {
    fn parse(spirv: &[u32]) -> Self {
        let mut m = Module::default();
        for (op, ops) in instructions(spirv) {
            match op {
                OP_NAME if !ops.is_empty() => {
                    m.names.insert(ops[0], literal(&ops[1..]));
                }
                OP_MEMBER_NAME if ops.len() >= 2 => {
                    m.member_names.insert((ops[0], ops[1]), literal(&ops[2..]));
                }
                OP_TYPE_BOOL..=OP_TYPE_POINTER if !ops.is_empty() => {
                    m.types.insert(ops[0], (op, ops[1..].to_vec()));
                }
                OP_CONSTANT if ops.len() >= 3 => {
                    m.constants.insert(ops[1], ops[2]);
                }
                OP_VARIABLE if ops.len() >= 3 => m.variables.push((ops[1], ops[0], ops[2])),
                OP_DECORATE if ops.len() >= 2 => {
                    m.decorations.entry(ops[0]).or_default().push((ops[1], ops.get(2).copied()));
                }
                OP_MEMBER_DECORATE if ops.len() >= 4 && ops[2] == DECORATION_OFFSET => {
                    m.offsets.entry(ops[0]).or_default().push((ops[1], ops[3]));
                }
                _ => {}
            }
        }
        for members in m.offsets.values_mut() {
            members.sort_unstable();
        }
        m
    }

    fn decoration(&self, id: u32, decoration: u32) -> Option<Option<u32>> {
        self.decorations.get(&id)?.iter().find(|(d, _)| *d == decoration).map(|&(_, v)| v)
    }

    fn name(&self, id: u32) -> String {
        self.names.get(&id).cloned().unwrap_or_else(|| format!("%{id}"))
    }

    /// The struct type named `name` that has member offsets (a struct used
    /// in a block; glslang may emit offset-free copies for locals).
    fn struct_named(&self, name: &str) -> Option<u32> {
        self.offsets
            .keys()
            .copied()
            .filter(|id| self.names.get(id).is_some_and(|n| n == name))
            .min()
    }

    /// Bytes from the start of a value of type `id` to the end of its last
    /// member: scalars, vectors, arrays with `ArrayStride`, and structs with
    /// `Offset`s (no trailing padding, so a block's size is its last
    /// member's offset plus that member's size).
    fn size_of(&self, id: u32) -> Result<u32, String> {
        let (op, ops) = self.types.get(&id).ok_or_else(|| format!("%{id} is not a type"))?;
        match *op {
            OP_TYPE_INT | OP_TYPE_FLOAT => Ok(ops[0] / 8),
            OP_TYPE_VECTOR => Ok(self.size_of(ops[0])? * ops[1]),
            OP_TYPE_ARRAY => {
                let length = *self.constants.get(&ops[1]).ok_or_else(|| {
                    format!("array %{id}: length is not a plain constant (specialised?)")
                })?;
                let stride = self
                    .decoration(id, DECORATION_ARRAY_STRIDE)
                    .flatten()
                    .ok_or_else(|| format!("array %{id} has no ArrayStride"))?;
                Ok(length * stride)
            }
            OP_TYPE_STRUCT => {
                let offsets = self.offsets.get(&id);
                let mut end = 0;
                for (i, &member) in ops.iter().enumerate() {
                    let offset = offsets
                        .and_then(|o| o.iter().find(|(m, _)| *m == i as u32))
                        .map(|&(_, off)| off)
                        .ok_or_else(|| {
                            format!("struct {}: member {i} has no Offset", self.name(id))
                        })?;
                    end = end.max(offset + self.size_of(member)?);
                }
                Ok(end)
            }
            _ => Err(format!("type %{id} (opcode {op}) has no size in a block")),
        }
    }

    /// The names of the struct `id` and of every struct nested in it, in
    /// first-use order.
    fn nested_structs(&self, id: u32, out: &mut Vec<String>) {
        match self.types.get(&id) {
            Some((OP_TYPE_STRUCT, members)) => {
                let name = self.name(id);
                if !out.contains(&name) {
                    out.push(name);
                }
                for &member in members {
                    self.nested_structs(member, out);
                }
            }
            Some((OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY, ops)) => self.nested_structs(ops[0], out),
            _ => {}
        }
    }

    /// The struct type of the push-constant block, if the shader has one.
    fn push_block(&self) -> Result<Option<u32>, String> {
        let mut blocks = self.variables.iter().filter(|v| v.2 == STORAGE_PUSH_CONSTANT);
        let Some(&(var, pointer, _)) = blocks.next() else { return Ok(None) };
        if blocks.next().is_some() {
            return Err("more than one push-constant block".into());
        }
        match self.types.get(&pointer) {
            Some((OP_TYPE_POINTER, ops)) => Ok(Some(ops[1])),
            _ => Err(format!("push constants {}: type is not a pointer", self.name(var))),
        }
    }
}

/// `(member name, byte offset)` of every member of the struct type named
/// `name`, in declaration order. Needs debug names (the build keeps them).
/// Returns `None` if no such struct has offsets.
pub fn struct_offsets(spirv: &[u32], name: &str) -> Option<Vec<(String, u32)>> {
    let module = Module::parse(spirv);
    let id = module.struct_named(name)?;
    Some(
        module.offsets[&id]
            .iter()
            .map(|&(i, off)| (module.member_names.get(&(id, i)).cloned().unwrap_or_default(), off))
            .collect(),
    )
}

/// Size in bytes of the struct type named `name` as laid out in a block:
/// the end of its last member, without trailing padding.
pub fn struct_size(spirv: &[u32], name: &str) -> Result<u32, String> {
    let module = Module::parse(spirv);
    let id = module.struct_named(name).ok_or_else(|| format!("no struct {name} with offsets"))?;
    module.size_of(id)
}

/// Size in bytes of the push-constant block (its last member's offset plus
/// that member's size), or 0 when the shader has none.
pub fn push_constant_size(spirv: &[u32]) -> Result<u32, String> {
    let module = Module::parse(spirv);
    match module.push_block()? {
        Some(block) => module.size_of(block),
        None => Ok(0),
    }
}

/// The push-constant block's struct name (GLSL's block name, e.g. `Push`)
/// followed by every struct nested in it; empty when there is no block.
pub fn push_constant_structs(spirv: &[u32]) -> Result<Vec<String>, String> {
    let module = Module::parse(spirv);
    let mut out = Vec::new();
    if let Some(block) = module.push_block()? {
        module.nested_structs(block, &mut out);
    }
    Ok(out)
}

/// The kind of each binding of descriptor set 0, by binding number: entry
/// `i` is binding `i`. Fails on another set, a gap in the numbering, two
/// kinds on one binding, or a descriptor that is neither a storage buffer
/// nor a storage image (the only kinds vqscope's pipelines create).
/// Several variables may share a binding (views of one buffer as different
/// element types) when their kinds agree.
pub fn bindings(spirv: &[u32]) -> Result<Vec<BindingKind>, String> {
    let module = Module::parse(spirv);
    let mut slots: Vec<Option<BindingKind>> = Vec::new();
    for &(var, pointer, storage) in &module.variables {
        let Some(binding) = module.decoration(var, DECORATION_BINDING) else { continue };
        let name = module.name(var);
        let binding = binding.ok_or_else(|| format!("{name}: Binding without a number"))?;
        let set = module.decoration(var, DECORATION_DESCRIPTOR_SET).flatten().unwrap_or(0);
        if set != 0 {
            return Err(format!("{name}: descriptor set {set}; only set 0 is supported"));
        }
        let pointee = match module.types.get(&pointer) {
            Some((OP_TYPE_POINTER, ops)) => ops[1],
            _ => return Err(format!("{name}: type is not a pointer")),
        };
        let kind = match (storage, module.types.get(&pointee)) {
            (STORAGE_STORAGE_BUFFER, Some((OP_TYPE_STRUCT, _))) => BindingKind::StorageBuffer,
            (STORAGE_UNIFORM, Some((OP_TYPE_STRUCT, _)))
                if module.decoration(pointee, DECORATION_BUFFER_BLOCK).is_some() =>
            {
                BindingKind::StorageBuffer
            }
            (STORAGE_UNIFORM_CONSTANT, Some((OP_TYPE_IMAGE, ops)))
                if ops.get(5) == Some(&IMAGE_STORAGE) && ops.get(1) != Some(&DIM_BUFFER) =>
            {
                BindingKind::StorageImage
            }
            (STORAGE_UNIFORM, Some((OP_TYPE_STRUCT, _)))
                if module.decoration(pointee, DECORATION_BLOCK).is_some() =>
            {
                return Err(format!(
                    "{name} (binding {binding}): uniform buffers are not supported; \
                     use a storage buffer"
                ));
            }
            _ => {
                return Err(format!(
                    "{name} (binding {binding}): only storage buffers and storage images \
                     (one per binding, no arrays) are supported"
                ));
            }
        };
        let at = binding as usize;
        if slots.len() <= at {
            slots.resize(at + 1, None);
        }
        match slots[at] {
            Some(other) if other != kind => {
                return Err(format!("binding {binding} is both a {other:?} and a {kind:?}"));
            }
            _ => slots[at] = Some(kind),
        }
    }
    slots
        .iter()
        .enumerate()
        .map(|(i, slot)| {
            slot.ok_or_else(|| {
                format!(
                    "binding {i} is unused (or optimised away) while binding {} exists: \
                     number bindings without gaps",
                    slots.len() - 1
                )
            })
        })
        .collect()
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
