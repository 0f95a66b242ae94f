//! Test oracle for [`super::printf_fixed`]: C's `%.Nf` derived from its
//! definition rather than from any formatter. C (and glibc, in the default
//! rounding mode) prints the *exact* binary value rounded to N decimals,
//! ties to even, with a minus sign whenever the sign bit is set (so
//! `-0.0` and `-1e-9` print as `-0.000000`). Every finite double is
//! `m · 2^e`, which is `m · 5^-e / 10^-e` for negative `e`: its decimal
//! expansion is finite and big-integer arithmetic gives it exactly.

/// A non-negative integer in base 10⁹ limbs, least significant first.
struct Big(Vec<u64>);

const LIMB: u64 = 1_000_000_000;

impl Big {
    fn from(n: u64) -> Self {
        Big(vec![n % LIMB, n / LIMB % LIMB, n / LIMB / LIMB])
    }

    fn mul_small(&mut self, k: u64) {
        let mut carry = 0;
        for limb in &mut self.0 {
            let v = *limb * k + carry;
            *limb = v % LIMB;
            carry = v / LIMB;
        }
        while carry > 0 {
            self.0.push(carry % LIMB);
            carry /= LIMB;
        }
    }

    /// Multiplies by `base^power` (base ≤ 5, so `base^13` fits a limb product).
    fn mul_pow(&mut self, base: u64, mut power: u32) {
        while power > 0 {
            let step = power.min(13);
            self.mul_small(base.pow(step));
            power -= step;
        }
    }

    fn decimal(&self) -> String {
        let mut text: String =
            self.0.iter().rev().map(|limb| format!("{limb:09}")).collect::<Vec<_>>().concat();
        let zeros = text.len() - text.trim_start_matches('0').len();
        text.drain(..zeros.min(text.len() - 1));
        text
    }
}

/// Adds one unit in the last place to a string of decimal digits.
fn increment(digits: &mut Vec<u8>) {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return;
        }
    }
    digits.insert(0, b'1');
}

/// `printf("%.{precision}f", v)` for finite `v`, from first principles.
pub(super) fn printf_fixed_exact(v: f64, precision: usize) -> String {
    assert!(v.is_finite());
    let bits = v.to_bits();
    let negative = bits >> 63 == 1;
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mantissa, exponent) =
        if biased == 0 { (fraction, -1074) } else { (fraction | 1 << 52, biased - 1075) };
    // |v| = int_digits . frac_digits, exactly.
    let (int_digits, frac_digits) = if exponent >= 0 {
        let mut n = Big::from(mantissa);
        n.mul_pow(2, exponent as u32);
        (n.decimal(), String::new())
    } else {
        let scale = (-exponent) as usize;
        let mut n = Big::from(mantissa);
        n.mul_pow(5, scale as u32);
        let text = format!("{:0>width$}", n.decimal(), width = scale + 1);
        let (i, f) = text.split_at(text.len() - scale);
        (i.to_owned(), f.to_owned())
    };
    let mut digits: Vec<u8> = int_digits.into_bytes();
    let int_len = digits.len();
    let frac = frac_digits.as_bytes();
    digits.extend((0..precision).map(|i| frac.get(i).copied().unwrap_or(b'0')));
    let rest = frac.get(precision..).unwrap_or(&[]);
    let round_up = match rest.first() {
        None => false,
        Some(&d) if d > b'5' => true,
        Some(&d) if d < b'5' => false,
        // Exactly five: above the tie if anything follows, else to even.
        Some(_) if rest[1..].iter().any(|&d| d != b'0') => true,
        Some(_) => (digits.last().expect("at least one digit") - b'0') % 2 == 1,
    };
    let mut int_len = int_len;
    if round_up {
        let before = digits.len();
        increment(&mut digits);
        int_len += digits.len() - before;
    }
    let (i, f) = digits.split_at(int_len);
    let sign = if negative { "-" } else { "" };
    let i = std::str::from_utf8(i).unwrap();
    if precision == 0 {
        format!("{sign}{i}")
    } else {
        format!("{sign}{i}.{}", std::str::from_utf8(f).unwrap())
    }
}

#[test]
fn the_oracle_knows_textbook_values() {
    assert_eq!(printf_fixed_exact(0.1, 20), "0.10000000000000000555");
    assert_eq!(printf_fixed_exact(2.5, 0), "2");
    assert_eq!(printf_fixed_exact(3.5, 0), "4");
    assert_eq!(printf_fixed_exact(0.125, 2), "0.12");
    assert_eq!(printf_fixed_exact(0.375, 2), "0.38");
    assert_eq!(printf_fixed_exact(9.995, 2), "9.99"); // 9.99499999…
    assert_eq!(printf_fixed_exact(99.5, 0), "100");
    assert_eq!(printf_fixed_exact(-0.0, 6), "-0.000000");
    assert_eq!(printf_fixed_exact(-1e-9, 6), "-0.000000");
    assert_eq!(printf_fixed_exact(1e22, 1), "10000000000000000000000.0");
    assert_eq!(printf_fixed_exact(f64::from_bits(1), 0), "0");
    // 2^-1074 = 4.9406564584124654…e-324, exactly 1074 decimals ending in 5.
    let tiny = printf_fixed_exact(f64::from_bits(1), 1074);
    assert_eq!(tiny.len(), 2 + 1074);
    assert!(tiny.starts_with(&format!("0.{}49406564584124654", "0".repeat(323))), "{tiny}");
    assert!(tiny.ends_with('5'));
}
