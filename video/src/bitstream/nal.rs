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

/// Offsets just past each `00 00 01` in `stream`. Most bytes of a stream
/// are slice data above 1, and a byte above 1 at `i + 2` ends no start
/// code at `i`, `i + 1` or `i + 2`: the scan steps 3 bytes past it.
fn start_codes(stream: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while let Some(&third) = stream.get(i + 2) {
            if third > 1 {
                i += 3;
            } else if third == 1 && stream[i] == 0 && stream[i + 1] == 0 {
                i += 3;
                return Some(i);
            } else {
                i += 1;
            }
        }
        None
    })
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

/// Bytes of a unit tried first by [`parse_head`]: more than any slice
/// header of the streams seen (a few dozen bytes; weighted prediction
/// tables and H.265 entry points reach a few hundred).
const HEAD_BYTES: usize = 2048;

/// Parses what starts a NAL unit's RBSP (a slice header) with `parse`,
/// first from the unit's head only, then, if that fails, from the whole
/// unit: the slice data after the header runs to megabytes and need not be
/// copied to read it. The head's RBSP is a prefix of the whole unit's, so
/// a parse that succeeds on it read the same bits.
pub fn parse_head<T, E>(unit: &[u8], parse: impl Fn(&[u8]) -> Result<T, E>) -> Result<T, E> {
    if unit.len() > HEAD_BYTES
        && let Ok(parsed) = parse(&rbsp(&unit[..HEAD_BYTES]))
    {
        return Ok(parsed);
    }
    parse(&rbsp(unit))
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

    /// The skipping scan finds what a look at every 3-byte window finds,
    /// on random streams of zeros, ones and others.
    #[test]
    fn start_codes_are_those_of_every_window() {
        let mut seed = 0x2545_f491_u32;
        for len in 0..400 {
            let stream: Vec<u8> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    [0, 0, 0, 1, 3, 0x65][(seed >> 24) as usize % 6]
                })
                .collect();
            let every: Vec<usize> = (0..len.max(2) - 2)
                .filter(|&i| stream[i..i + 3] == [0, 0, 1])
                .map(|i| i + 3)
                .collect();
            assert_eq!(start_codes(&stream).collect::<Vec<_>>(), every, "{stream:?}");
        }
    }

    #[test]
    fn rbsp_drops_only_emulation_prevention_bytes() {
        assert_eq!(rbsp(&[0x67, 0, 0, 3, 1, 0, 0, 3, 0, 3]), [0x67, 0, 0, 1, 0, 0, 0, 3]);
        // An 03 after one zero, or after a removed 03, stays.
        assert_eq!(rbsp(&[0, 3, 0, 0, 3, 3]), [0, 3, 0, 0, 3]);
    }

    /// The head is tried first and the whole unit only when the head is
    /// not enough: the parse sees a prefix of the same RBSP either way.
    #[test]
    fn a_head_is_parsed_before_the_whole_unit() {
        let mut unit = vec![0x65, 0, 0, 3, 1];
        unit.resize(3 * HEAD_BYTES, 7);
        let whole = rbsp(&unit);
        let lengths = std::cell::RefCell::new(Vec::new());
        let first_bytes = parse_head(&unit, |data: &[u8]| {
            lengths.borrow_mut().push(data.len());
            Ok::<_, ()>(data[..4].to_vec())
        });
        assert_eq!(first_bytes, Ok(whole[..4].to_vec()));
        assert_eq!(lengths.take(), [HEAD_BYTES - 1]);
        // Needing more than the head: the whole unit, then.
        let last = parse_head(&unit, |data: &[u8]| {
            lengths.borrow_mut().push(data.len());
            if data.len() < whole.len() { Err(()) } else { Ok(data[data.len() - 1]) }
        });
        assert_eq!((last, lengths.take()), (Ok(7), vec![HEAD_BYTES - 1, whole.len()]));
        // A short unit is parsed whole at once.
        let short = parse_head(&unit[..10], |data: &[u8]| Ok::<_, ()>(data.len()));
        assert_eq!(short, Ok(9));
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
