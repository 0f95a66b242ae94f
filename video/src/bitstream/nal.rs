//! Annex B byte streams (H.264 and H.265 Annex B alike): NAL units follow
//! start codes `00 00 01` (often `00 00 00 01`), and inside a unit the
//! encoder inserts an emulation-prevention byte `03` after every `00 00`
//! that would otherwise look like a start code. Parsing reads the unit's
//! RBSP, the payload with those bytes taken out again (clause 7.4.1 of
//! H.264, 7.4.2 of H.265).

/// The NAL units of `stream` that are known to be whole: each payload runs
/// from its start code to the next one, without trailing zero bytes (the
/// leading zero of a 4-byte start code, `trailing_zero_8bits`). The last
/// unit is whole only when `at_end` says the stream ends there; a reader
/// that has more to come leaves it for the next call.
pub fn complete_units(stream: &[u8], at_end: bool) -> Vec<&[u8]> {
    let starts: Vec<usize> = start_codes(stream).collect();
    let mut units = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let end = match starts.get(i + 1) {
            // The next start code's three bytes begin 3 before its payload.
            Some(&next) => next - 3,
            None if at_end => stream.len(),
            None => break,
        };
        let unit = &stream[start..end];
        let trimmed = unit.iter().rposition(|&b| b != 0).map_or(0, |last| last + 1);
        if trimmed > 0 {
            units.push(&unit[..trimmed]);
        }
    }
    units
}

/// Offsets just past each `00 00 01` in `stream`.
fn start_codes(stream: &[u8]) -> impl Iterator<Item = usize> + '_ {
    stream.windows(3).enumerate().filter(|(_, w)| *w == [0, 0, 1]).map(|(i, _)| i + 3)
}

/// The RBSP of a NAL unit: the unit with every emulation-prevention byte
/// (an `03` right after two zero bytes) removed.
pub fn rbsp(unit: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(unit.len());
    let mut zeros = 0;
    for &b in unit {
        if zeros >= 2 && b == 3 {
            zeros = 0;
            continue;
        }
        zeros = if b == 0 { zeros + 1 } else { 0 };
        out.push(b);
    }
    out
}

/// `nal_unit_type` of an H.264 unit (the low 5 bits of its one header byte).
pub fn h264_type(unit: &[u8]) -> Option<u8> {
    unit.first().map(|b| b & 0x1f)
}

/// `nal_unit_type` and `nuh_layer_id` of an H.265 unit (two header bytes:
/// forbidden bit, 6 bits of type, 6 of layer, 3 of temporal id).
pub fn h265_type_and_layer(unit: &[u8]) -> Option<(u8, u8)> {
    let [b0, b1, ..] = *unit else {
        return None;
    };
    Some(((b0 >> 1) & 0x3f, ((b0 & 1) << 5) | (b1 >> 3)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_three_and_four_byte_start_codes() {
        let stream = [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 0, 0, 1, 0x65, 0, 9];
        let units = complete_units(&stream, true);
        assert_eq!(units, [&[0x67, 1, 2][..], &[0x68, 3][..], &[0x65, 0, 9][..]]);
        // Without the end, the last unit may still grow.
        assert_eq!(complete_units(&stream, false).len(), 2);
        assert!(complete_units(&[1, 2, 3], true).is_empty(), "no start code, no unit");
    }

    #[test]
    fn rbsp_drops_only_emulation_prevention_bytes() {
        assert_eq!(rbsp(&[0x67, 0, 0, 3, 1, 0, 0, 3, 0, 3]), [0x67, 0, 0, 1, 0, 0, 0, 3]);
        // An 03 after one zero, or after a removed 03, stays.
        assert_eq!(rbsp(&[0, 3, 0, 0, 3, 3]), [0, 3, 0, 0, 3]);
    }

    #[test]
    fn header_fields() {
        assert_eq!(h264_type(&[0x67]), Some(7));
        // 0x42 0x01: type 33 (SPS), layer 0; 0x40 0x09: type 32, layer 1.
        assert_eq!(h265_type_and_layer(&[0x42, 0x01]), Some((33, 0)));
        assert_eq!(h265_type_and_layer(&[0x40, 0x09]), Some((32, 1)));
        assert_eq!(h265_type_and_layer(&[0x40]), None);
    }
}
