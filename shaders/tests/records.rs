//! The build's record of each shader — bindings and push-constant size —
//! against its SPIR-V, and the reflection that produces it on known shaders
//! and on SPIR-V edited to break the rules.

use vqscope_shaders::reflect::{
    bindings, push_constant_size, push_constant_structs, struct_offsets, struct_size,
};
use vqscope_shaders::{ALL, BindingKind, Shader};

const OP_DECORATE: u32 = 71;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;

#[test]
fn every_record_matches_its_spirv() {
    assert!(ALL.len() >= 20, "only {} shaders", ALL.len());
    assert!(ALL.windows(2).all(|w| w[0].path < w[1].path), "ALL is unsorted or repeats");
    for shader in ALL {
        assert_eq!(shader.spirv.first(), Some(&0x0723_0203), "{}: magic", shader.path);
        assert_eq!(bindings(shader).as_deref(), Ok(shader.bindings), "{}", shader.path);
        assert_eq!(push_constant_size(shader), Ok(shader.push_constant_size), "{}", shader.path);
        assert_eq!(shader.push_constant_size % 4, 0, "{}", shader.path);
        // Vulkan guarantees 128 bytes of push constants on every device.
        assert!(shader.push_constant_size <= 128, "{}", shader.path);
        // The push block's size is its struct's, when it has one.
        let structs = push_constant_structs(shader).unwrap();
        match structs.first() {
            Some(block) => {
                assert_eq!(struct_size(shader, block), Ok(shader.push_constant_size));
            }
            None => assert_eq!(shader.push_constant_size, 0, "{}", shader.path),
        }
    }
}

#[test]
fn known_layouts() {
    use BindingKind::{StorageBuffer as B, StorageImage as I};
    let fused: &Shader = vqscope_shaders::UI_FUSED;
    assert_eq!(fused.bindings, &[B, B, B, B, B, B, B, B, I]);
    assert_eq!(fused.push_constant_size, 28); // vec4 + 3 uints
    assert_eq!(vqscope_shaders::TEST_FILL.push_constant_size, 8);
    assert_eq!(vqscope_shaders::TEST_COMPACT.push_constant_size, 0);
    assert_eq!(push_constant_structs(vqscope_shaders::TEST_COMPACT), Ok(vec![]));
    // Nested structs and an array of structs (ArrayStride 16).
    let rows = vqscope_shaders::METRICS_ADM_ROWS;
    assert_eq!(push_constant_structs(rows), Ok(vec!["Push".into(), "RowsLevel".into()]));
    assert_eq!(struct_size(rows, "RowsLevel"), Ok(16));
    assert_eq!(rows.push_constant_size, 4 * 16 + 4);
    let psnr = vqscope_shaders::METRICS_PSNR;
    assert_eq!(struct_size(psnr, "PlaneDesc"), Ok(32));
    assert_eq!(psnr.push_constant_size, 2 * 32 + 3 * 4);
    // A double after two PlaneDescs, then two uints.
    let vif = vqscope_shaders::METRICS_VIF_SCALE3;
    let offsets = struct_offsets(vif, "Push").unwrap();
    assert_eq!(offsets[2], ("egl".to_string(), 64));
    assert_eq!(vif.push_constant_size, 80);
    assert!(struct_size(vif, "NoSuchStruct").is_err());
}

/// `shader`'s SPIR-V with the first `decoration` literal changed to `value`.
fn with_decoration(shader: &Shader, decoration: u32, value: u32) -> Vec<u32> {
    let mut words = shader.spirv.to_vec();
    let mut at = 5;
    while at < words.len() {
        let (count, op) = ((words[at] >> 16) as usize, words[at] & 0xFFFF);
        if op == OP_DECORATE && words[at + 2] == decoration {
            words[at + 3] = value;
            return words;
        }
        at += count;
    }
    panic!("{}: no decoration {decoration}", shader.path);
}

#[test]
fn unsupported_layouts_are_refused() {
    let fill = vqscope_shaders::TEST_FILL;
    assert_eq!(bindings(fill), Ok(vec![BindingKind::StorageBuffer]));
    let gap = bindings(&with_decoration(fill, DECORATION_BINDING, 2)).unwrap_err();
    assert!(gap.contains("binding 0 is unused"), "{gap}");
    let set = bindings(&with_decoration(fill, DECORATION_DESCRIPTOR_SET, 1)).unwrap_err();
    assert!(set.contains("descriptor set 1"), "{set}");
}

#[test]
fn twin_check_reports_drift() {
    // Only their layouts are used.
    #[allow(dead_code)]
    #[repr(C)]
    struct Good {
        fields: u32,
        groups: u32,
        out_base: u32,
    }
    #[allow(dead_code)]
    #[repr(C)]
    struct Shifted {
        fields: u32,
        extra: u32,
        groups: u32,
        out_base: u32,
    }
    let reduce = [vqscope_shaders::METRICS_REDUCE];
    let good = vqscope_shaders::twin!(Good as "Push" in reduce { fields, groups, out_base });
    assert_eq!(good.check(), Ok(()));
    let shifted = vqscope_shaders::twin!(Shifted as "Push" in reduce { fields, groups, out_base });
    let e = shifted.check().unwrap_err();
    assert!(e.contains("`groups` at byte 4 in GLSL, 8 in Rust"), "{e}");
    assert!(e.contains("12 bytes in GLSL, 16 in Rust"), "{e}");
    let short = vqscope_shaders::twin!(Good as "Push" in reduce { fields, groups });
    assert!(short.check().unwrap_err().contains("members"));
    let missing = vqscope_shaders::twin!(Good as "Nope" in reduce { fields });
    assert!(missing.check().unwrap_err().contains("no such struct"));
}
