//! A most-significant-bit-first reader over an RBSP, with the descriptors the
//! H.264 and H.265 syntax tables use: `u(n)`, `ue(v)` and `se(v)` (clause 9.1
//! of both standards). Reading past the end is an error, never a panic: a
//! truncated or hostile parameter set must end in a one-line message.

use super::ParseError;

/// Reads bits from an RBSP (emulation-prevention bytes already removed, see
/// [`super::nal::rbsp`]).
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    /// Position in bits from the start of `data`.
    pos: usize,
}

impl<'a> BitReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        BitReader { data, pos: 0 }
    }

    /// One bit, as the syntax tables' `u(1)` flags.
    pub fn flag(&mut self) -> Result<bool, ParseError> {
        Ok(self.bits(1)? == 1)
    }

    /// `u(n)`: `n` bits (at most 32) as an unsigned number, first bit highest.
    pub fn bits(&mut self, n: u32) -> Result<u32, ParseError> {
        debug_assert!(n <= 32);
        if self.pos + n as usize > self.data.len() * 8 {
            return Err(ParseError::new("the parameter set ends early"));
        }
        let mut value = 0u64;
        for _ in 0..n {
            let byte = self.data[self.pos / 8];
            let bit = (byte >> (7 - self.pos % 8)) & 1;
            value = (value << 1) | u64::from(bit);
            self.pos += 1;
        }
        Ok(value as u32)
    }

    /// Skips `n` bits (reserved fields, flags nobody here reads).
    pub fn skip(&mut self, n: usize) -> Result<(), ParseError> {
        if self.pos + n > self.data.len() * 8 {
            return Err(ParseError::new("the parameter set ends early"));
        }
        self.pos += n;
        Ok(())
    }

    /// `ue(v)`: Exp-Golomb, `2^z - 1 + u(z)` after `z` leading zero bits.
    /// The syntax elements of parameter sets fit in 32 bits, so more than
    /// 31 leading zeros is a corrupt stream, not a large value.
    pub fn ue(&mut self) -> Result<u32, ParseError> {
        let mut zeros = 0;
        while !self.flag()? {
            zeros += 1;
            if zeros > 31 {
                return Err(ParseError::new("an Exp-Golomb code is longer than 32 bits"));
            }
        }
        let rest = self.bits(zeros)?;
        Ok(((1u64 << zeros) - 1 + u64::from(rest)) as u32)
    }

    /// `se(v)`: the `ue(v)` code k maps to (-1)^(k+1) * ceil(k / 2).
    pub fn se(&mut self) -> Result<i32, ParseError> {
        let k = i64::from(self.ue()?);
        let magnitude = (k + 1) / 2;
        Ok(if k % 2 == 1 { magnitude } else { -magnitude } as i32)
    }

    /// Bits read so far: where a syntax element starts, as `trace_headers`
    /// numbers them (the NAL header counts).
    pub fn position(&self) -> usize {
        self.pos
    }

    /// `more_rbsp_data()` (7.2): whether syntax remains before the
    /// `rbsp_stop_one_bit`, the last 1 bit of the RBSP.
    pub fn more_rbsp_data(&self) -> bool {
        let Some(last) = self.data.iter().rposition(|&b| b != 0) else {
            return false;
        };
        let stop_bit = last * 8 + 7 - self.data[last].trailing_zeros() as usize;
        self.pos < stop_bit
    }

    /// `ue(v)` that the standard bounds by `max`: a larger value means a
    /// corrupt stream (and would size loops and arrays from garbage).
    pub fn ue_max(&mut self, max: u32, name: &str) -> Result<u32, ParseError> {
        let v = self.ue()?;
        if v > max {
            return Err(ParseError::new(format!("{name} is {v}, more than the {max} allowed")));
        }
        Ok(v)
    }
}

/// Writes syntax elements as the standard encodes them (9.1), so that a
/// test can build the syntax paths x264 and x265 never take.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct Writer(Vec<bool>);

#[cfg(test)]
impl Writer {
    pub(crate) fn u(&mut self, bits: u32, value: u32) -> &mut Self {
        self.0.extend((0..bits).rev().map(|i| (value >> i) & 1 == 1));
        self
    }
    pub(crate) fn ue(&mut self, value: u32) -> &mut Self {
        let code = value + 1;
        let len = 32 - code.leading_zeros();
        self.u(len - 1, 0).u(len, code)
    }
    pub(crate) fn se(&mut self, value: i32) -> &mut Self {
        self.ue(if value > 0 { 2 * value as u32 - 1 } else { (-2 * value) as u32 })
    }
    /// The RBSP: the bits, then rbsp_stop_one_bit and zero padding.
    pub(crate) fn rbsp(&mut self) -> Vec<u8> {
        self.0.push(true);
        self.0
            .chunks(8)
            .map(|c| c.iter().fold(0, |b, &bit| (b << 1) | u8::from(bit)) << (8 - c.len()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_width_fields_read_most_significant_bit_first() {
        let mut r = BitReader::new(&[0b1010_0000, 0xff, 0x01]);
        assert_eq!(r.bits(3).unwrap(), 0b101);
        assert!(!r.flag().unwrap());
        assert_eq!(r.bits(12).unwrap(), 0x0ff);
        assert_eq!(r.bits(8).unwrap(), 1);
        assert!(r.flag().is_err(), "reading past the end is an error");
    }

    #[test]
    fn exp_golomb_codes_from_the_standards_table() {
        // Table 9-2 of H.264 / H.265: bit strings and their codeNum.
        // 1 | 010 | 011 | 00100 | 00111 | 0001000, padded with ones.
        let bits = "1010011001000011100010001111";
        let mut bytes = vec![0u8; bits.len().div_ceil(8)];
        for (i, b) in bits.bytes().enumerate() {
            if b == b'1' {
                bytes[i / 8] |= 0x80 >> (i % 8);
            }
        }
        let mut r = BitReader::new(&bytes);
        let codes: Vec<u32> = (0..6).map(|_| r.ue().unwrap()).collect();
        assert_eq!(codes, [0, 1, 2, 3, 6, 7]);

        // Table 9-3: codeNum 1, 2, 3, 4 are se(v) 1, -1, 2, -2.
        let mut r = BitReader::new(&[0b0100_1100, 0b1000_0101, 0b0000_0000]);
        let signed: Vec<i32> = (0..4).map(|_| r.se().unwrap()).collect();
        assert_eq!(signed, [1, -1, 2, -2]);
    }

    #[test]
    fn corrupt_codes_are_errors() {
        // 40 zero bits: no Exp-Golomb code of a 32-bit value is that long.
        assert!(BitReader::new(&[0; 5]).ue().is_err());
        // A code cut off by the end of the data.
        assert!(BitReader::new(&[0b0000_0001]).ue().is_err());
        let mut r = BitReader::new(&[0b0001_0000, 0]);
        assert_eq!(r.ue_max(6, "x").unwrap_err().to_string(), "x is 7, more than the 6 allowed");
    }
}
