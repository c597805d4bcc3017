//! The fast path through the bulk of a big tensor constant: plain decimals
//! followed by a comma (`-0.0123,`), recognized sixteen bytes at a time
//! (SSE2 compares on x86-64, integer arithmetic on the whole block, SWAR,
//! elsewhere), and converted to `f32`/`f64` with correct rounding.
//!
//! [`crate::lexer::list_items`] tries [`plain_number`] first on every item
//! of a number list, and falls back to the general path for anything else:
//! exponents, `inf` and `nan`, more than 15 digits, blanks before the comma,
//! the last item. Plain integers go to the integer types the same way
//! ([`FromPlain`] for `i32`, `i64`, `u64`).

/// A number `-?[0-9]+(\.[0-9]*)?` of at most 15 digits, directly followed
/// by a comma.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlainNumber {
    /// Its length in bytes, sign included, comma not.
    pub len: usize,
    /// Whether it starts with `-`.
    pub negative: bool,
    /// Its digits read as one integer, below 10^15.
    pub mantissa: u64,
    /// How many of the digits follow the point.
    pub scale: usize,
    /// Whether it has no point: an integer literal.
    pub integer: bool,
}

/// The plain number at `pos` of `text`, when there is one and a comma
/// follows it within the 16 bytes from `pos`; `None` otherwise, and when
/// fewer than 16 bytes of `text` follow `pos`.
#[inline(always)]
pub(crate) fn plain_number(text: &[u8], pos: usize) -> Option<PlainNumber> {
    let block: [u8; 16] = text.get(pos..pos + 16)?.try_into().ok()?;
    let negative = block[0] == b'-';
    let first = usize::from(negative);
    let (commas, non_digits) = byte_masks(&block);
    // The number runs from `first` to the first comma, exclusive.
    let comma = commas.trailing_zeros() as usize;
    if commas == 0 || comma <= first || non_digits & (1 << first) != 0 {
        return None;
    }
    // Digits, and at most one point among them.
    let others = non_digits & ((1u32 << comma) - (1u32 << first));
    let point = others.trailing_zeros() as usize;
    if others & others.wrapping_sub(1) != 0 || (others != 0 && block[point] != b'.') {
        return None;
    }
    let point = point.min(comma);
    let has_point = usize::from(others != 0);
    // The digits without the point (the bytes above it move down one),
    // shifted to the top of the block: what is shifted in below them reads
    // as leading zeros. There are at most 15: the comma is within the block.
    let x = u128::from_le_bytes(block);
    let digits = (x & LOW_BYTES[point]) | ((x >> 8) & !LOW_BYTES[point]);
    let count = comma - first - has_point;
    let digits = (digits >> (8 * first)) << (8 * (16 - count));
    let mantissa = eight_digits(digits as u64) * 100_000_000 + eight_digits((digits >> 64) as u64);
    Some(PlainNumber {
        len: comma,
        negative,
        mantissa,
        scale: comma - point - has_point,
        integer: others == 0,
    })
}

impl PlainNumber {
    /// The mantissa as an `f64`, exactly (it is below 10^15 < 2^53),
    /// converted as a signed integer: one instruction on x86-64, where an
    /// unsigned one takes three.
    #[inline(always)]
    fn mantissa_f64(&self) -> f64 {
        self.mantissa as i64 as f64
    }
}

/// `LOW_BYTES[n]`: the low `n` bytes of a `u128` set.
const LOW_BYTES: [u128; 17] = {
    let mut masks = [0; 17];
    let mut n = 1;
    while n <= 16 {
        masks[n] = (masks[n - 1] << 8) | 0xFF;
        n += 1;
    }
    masks
};

/// Bit `i` set for each byte `i` of `block` that is a comma, and for each
/// that is not an ASCII digit: with SSE2, which every x86-64 has, two
/// compares and a move of their masks, a short step in the chain from one
/// number's start to the next one's (the comma's place); elsewhere with
/// integer arithmetic on the whole block (`swar`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn byte_masks(block: &[u8; 16]) -> (u32, u32) {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8,
        _mm_sub_epi8,
    };
    // SAFETY: the load reads the 16 bytes of `block` (unaligned loads take
    // any address); the other intrinsics need SSE2, part of x86-64.
    unsafe {
        let bytes = _mm_loadu_si128(block.as_ptr().cast());
        let commas = _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(b',' as i8)));
        // Digits are the bytes 0 to 9 once `0` is taken off: those that
        // the unsigned minimum with 9 leaves as they are.
        let from_zero = _mm_sub_epi8(bytes, _mm_set1_epi8(b'0' as i8));
        let nine = _mm_set1_epi8(9);
        let digits = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(from_zero, nine), from_zero));
        (commas as u32, !digits as u32 & 0xFFFF)
    }
}

#[cfg(not(target_arch = "x86_64"))]
use swar::byte_masks;

/// A float type a [`PlainNumber`] converts to, correctly rounded.
pub(crate) trait FromPlain: Sized {
    /// The value of `number` rounded to nearest, ties to even, as
    /// `str::parse` gives it; `None` in the rare case this cannot tell
    /// cheaply, which the caller leaves to the general path.
    fn from_plain(number: &PlainNumber) -> Option<Self>;
}

/// Powers of ten that are exact in `f64`, for every [`PlainNumber::scale`].
const POWERS_OF_TEN: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// `mantissa / 10^scale` rounded once to `f64`: both operands are exact in
/// `f64` (below 2^53), and IEEE division rounds its exact quotient
/// correctly (Clinger's fast path).
fn quotient(number: &PlainNumber) -> f64 {
    number.mantissa_f64() / POWERS_OF_TEN[number.scale]
}

impl FromPlain for f64 {
    #[inline]
    fn from_plain(number: &PlainNumber) -> Option<f64> {
        let value = quotient(number);
        Some(if number.negative { -value } else { value })
    }
}

/// `1 / 10^scale` rounded to nearest `f64`, for every [`PlainNumber::scale`].
const RECIPROCALS_OF_TEN: [f64; 16] = [
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14,
    1e-15,
];

/// The 29 bits of an `f64` below `f32` precision (for an `f64` in `f32`'s
/// normal range).
const BELOW_F32: u64 = (1 << 29) - 1;

/// Those bits of an `f64` that is halfway between two `f32`s.
const F32_TIE: u64 = 1 << 28;

impl FromPlain for f32 {
    /// Without a division: `mantissa * (1 / 10^scale)` in `f64`, rounded
    /// to `f32`; the division when that product is too close to a tie of
    /// two `f32`s to tell which way the exact value goes.
    ///
    /// Why the product rounds as the exact value `x` does. The mantissa is
    /// exact in `f64` (below 2^50), the reciprocal `r = 10^-scale (1 + a)`
    /// and the product `p = m r (1 + b)`, with `|a|, |b| <= 2^-53`: so
    /// `|p - x| <= x (2^-52 + 2^-106)`. With `2^e <= x < 2^(e+1)` and `u =
    /// 2^(e-52)` the spacing of `f64`s there, `|p - x| < 2^(e-51) (1 +
    /// 2^-54) < 3u`. The quotient is 0 or within [1e-15, 1e15), where `f32`
    /// is normal: its ties are the `f64`s whose 29 bits below `f32`
    /// precision are `1000...0` ([`F32_TIE`]), 2^28 units of their binade
    /// from any `f32`, power of two included. Rounding to `f32` is monotonic
    /// and changes only at ties, so `p` rounds as `x` unless a tie lies
    /// between them (or on one). If `p` is in `x`'s binade, such a tie is
    /// within 3 units of `p`'s bits; if `p` is below it, at most 6 of `p`'s
    /// (twice finer) units, but then `p` is within 6 units of the power of
    /// two, whose low bits are far from a tie's. So a product whose bits
    /// are more than 6 units from [`F32_TIE`] rounds right; one within is
    /// left to the division. Zero is exact.
    #[inline]
    fn from_plain(number: &PlainNumber) -> Option<f32> {
        const MARGIN: u64 = 6;
        let product = number.mantissa_f64() * RECIPROCALS_OF_TEN[number.scale];
        let value = if (product.to_bits() & BELOW_F32).abs_diff(F32_TIE) > MARGIN {
            product
        } else {
            rounded_once_to_f32(number)?
        };
        let value = value as f32;
        Some(if number.negative { -value } else { value })
    }
}

/// The quotient of `number`, when rounding it to `f32` rounds the exact
/// value: rounding twice gives another result only when the first rounding
/// lands exactly on a tie of the second, as every tie between two `f32`s is
/// an `f64` and a quotient that does not land on one is on the same side
/// of every tie as the exact value. Those go to the general path.
#[cold]
fn rounded_once_to_f32(number: &PlainNumber) -> Option<f64> {
    let value = quotient(number);
    (value.to_bits() & BELOW_F32 != F32_TIE).then_some(value)
}

/// Integers: a plain integer literal that fits, exactly; `None` for one
/// with a point, one out of range, and a negated one for an unsigned type
/// (`str::parse` refuses `-0` there), which the general path reports.
macro_rules! integer_from_plain {
    ($($int:ty),*) => {$(
        impl FromPlain for $int {
            #[inline]
            fn from_plain(number: &PlainNumber) -> Option<$int> {
                if !number.integer || (number.negative && <$int>::MIN == 0) {
                    return None;
                }
                // Below 10^15: an `i64`, whose negation cannot overflow.
                let value = number.mantissa as i64;
                <$int>::try_from(if number.negative { -value } else { value }).ok()
            }
        }
    )*};
}

integer_from_plain!(i32, i64, u64);

/// [`byte_masks`] with integer arithmetic on the whole block (SWAR), where
/// there is no SSE2 (and in tests, to compare).
#[cfg(any(test, not(target_arch = "x86_64")))]
mod swar {
    /// [`super::byte_masks`], with integer arithmetic.
    #[inline(always)]
    pub(super) fn byte_masks(block: &[u8; 16]) -> (u32, u32) {
        let half = |i: usize| {
            let mut bytes = [0; 8];
            bytes.copy_from_slice(&block[8 * i..8 * i + 8]);
            let x = u64::from_le_bytes(bytes);
            (gather(bytes_equal_to(x, b',')), gather(non_digit_bytes(x)))
        };
        let ((commas_low, others_low), (commas_high, others_high)) = (half(0), half(1));
        (commas_low | commas_high << 8, others_low | others_high << 8)
    }

    /// The bytes of a `u64` all set to `b`.
    const fn splat(b: u8) -> u64 {
        u64::from_ne_bytes([b; 8])
    }

    /// The high bit of each byte of `x` that equals `b`, and no other bit.
    #[inline(always)]
    fn bytes_equal_to(x: u64, b: u8) -> u64 {
        let x = x ^ splat(b);
        // A byte's low seven bits plus 0x7F set its high bit unless they are
        // all zero, and never carry into the next byte.
        !(((x & splat(0x7F)) + splat(0x7F)) | x) & splat(0x80)
    }

    /// The high bit of each byte of `x` that is not an ASCII digit.
    #[inline(always)]
    fn non_digit_bytes(x: u64) -> u64 {
        let t = x ^ splat(b'0');
        // Digits are now 0 to 9; a byte's low seven bits plus 0x76 set its
        // high bit when they are 10 or more, and never carry.
        (((t & splat(0x7F)) + splat(0x76)) | t) & splat(0x80)
    }

    /// The high bits of the eight bytes of `marks` (and no other bits set) as
    /// the eight bits of a byte, the lowest byte's first. The multiplication
    /// moves byte `k`'s bit, at `8k` once shifted, up by `56 - 7k` to bit
    /// `56 + k`; no two of its partial products meet, so nothing carries.
    #[inline(always)]
    fn gather(marks: u64) -> u32 {
        ((marks >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
    }
}

/// The value of eight ASCII digits (or zero bytes, read as `0`), the first
/// and most significant in the lowest byte.
#[inline]
fn eight_digits(block: u64) -> u64 {
    let x = block & 0x0F0F_0F0F_0F0F_0F0F;
    let x = (x.wrapping_mul(10) + (x >> 8)) & 0x00FF_00FF_00FF_00FF;
    let x = (x.wrapping_mul(100) + (x >> 16)) & 0x0000_FFFF_0000_FFFF;
    (x.wrapping_mul(10_000) + (x >> 32)) & 0xFFFF_FFFF
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `plain_number` of `text` padded to 16 bytes.
    fn plain(text: &str) -> Option<PlainNumber> {
        plain_number(format!("{text:<16}").as_bytes(), 0)
    }

    #[test]
    fn reads_plain_numbers_followed_by_a_comma() {
        let number = |len, negative, mantissa, scale| {
            Some(PlainNumber {
                len,
                negative,
                mantissa,
                scale,
                integer: false,
            })
        };
        let integer = |len, negative, mantissa| {
            Some(PlainNumber {
                len,
                negative,
                mantissa,
                scale: 0,
                integer: true,
            })
        };
        assert_eq!(plain("7,"), integer(1, false, 7));
        assert_eq!(plain("-0.0125,2"), number(7, true, 125, 4));
        assert_eq!(plain("12.,"), number(3, false, 12, 0));
        assert_eq!(
            plain("999999999999999,"),
            integer(15, false, 999_999_999_999_999)
        );
        assert_eq!(plain("-0.000000000001,"), number(15, true, 1, 12));
        assert_eq!(
            plain("1234567.1234567,"),
            number(15, false, 12_345_671_234_567, 7)
        );
    }

    #[test]
    fn leaves_everything_else_to_the_general_path() {
        for text in [
            "7",
            "7 ,",
            " 7,",
            "1e5,",
            "1.5.2,",
            ".5,",
            "-.5,",
            "-,",
            ",",
            "--1,",
            "+1,",
            "inf,",
            "1x,",
            "1234567890123456,",
            "-123456789012345,",
        ] {
            assert_eq!(plain(text), None, "{text}");
        }
        // Too close to the end for a 16-byte block.
        assert_eq!(plain_number(b"1,2", 0), None);
    }

    /// Integers agree with `str::parse`, or go to the general path: with a
    /// point, out of range, `-0` for an unsigned type.
    #[test]
    fn integers_convert_like_str_parse() {
        fn agrees<T: FromPlain + std::str::FromStr + PartialEq + std::fmt::Debug>(text: &str) {
            let number = plain(&format!("{text},")).expect(text);
            if let Some(value) = T::from_plain(&number) {
                assert_eq!(text.parse::<T>().ok(), Some(value), "{text}");
            }
        }
        let texts = [
            "0",
            "-0",
            "7",
            "-7",
            "2147483647",
            "2147483648",
            "-2147483648",
            "-2147483649",
            "4294967295",
            "999999999999999",
            "-99999999999999",
            "000000000000012",
            "12.",
            "1.0",
        ];
        for text in texts {
            agrees::<i32>(text);
            agrees::<i64>(text);
            agrees::<u64>(text);
        }
        let read = |text: &str| plain(&format!("{text},")).unwrap();
        assert_eq!(i32::from_plain(&read("-2147483648")), Some(i32::MIN));
        assert_eq!(i32::from_plain(&read("2147483648")), None); // the general path says why
        assert_eq!(i32::from_plain(&read("2147483647")), Some(i32::MAX));
        assert_eq!(u64::from_plain(&read("-0")), None);
        assert_eq!(i64::from_plain(&read("-0")), Some(0));
        assert_eq!(i64::from_plain(&read("12.")), None);
        assert_eq!(
            i64::from_plain(&read("-99999999999999")),
            Some(-99_999_999_999_999)
        );
    }

    /// The masks of every byte value at every place of a block, and of
    /// random blocks, as the SWAR arithmetic gives them.
    #[test]
    fn byte_masks_are_those_of_the_swar_arithmetic() {
        let mut blocks = Vec::new();
        for place in 0..16 {
            for byte in 0..=255u8 {
                let mut block = *b"0123456789,-.9,0";
                block[place] = byte;
                blocks.push(block);
            }
        }
        let mut random = xorshift(0xD1B5_4A32_D192_ED03);
        for _ in 0..10_000 {
            let (low, high) = (random(), random());
            let mut block = [0; 16];
            block[..8].copy_from_slice(&low.to_le_bytes());
            block[8..].copy_from_slice(&high.to_le_bytes());
            blocks.push(block);
            // Mostly digits and commas, as number lists are.
            blocks.push(block.map(|b| b"0123456789,-.,98"[usize::from(b % 16)]));
        }
        for block in &blocks {
            assert_eq!(byte_masks(block), swar::byte_masks(block), "{block:?}");
        }
    }

    /// The shortest forms of random `f32` bit patterns, of any exponent and
    /// of those of weights (2^-10 to 2^3), and of the `f32`s next to powers
    /// of ten: those that are plain numbers read as `str::parse` reads
    /// them, to the bit.
    #[test]
    fn shortest_forms_of_random_floats_convert_like_str_parse() {
        let mut random = xorshift(0x6A09_E667_F3BC_C909);
        let mut floats = Vec::new();
        for _ in 0..100_000 {
            let bits = random() as u32;
            floats.push(f32::from_bits(bits));
            let exponent = 117 + (bits >> 23) % 14;
            floats.push(f32::from_bits((bits & 0x807F_FFFF) | exponent << 23));
        }
        for exponent in -13..=14 {
            let bits = 10f32.powi(exponent).to_bits();
            floats.extend((bits - 3..=bits + 3).map(f32::from_bits));
        }
        let texts: Vec<String> = (floats.iter())
            .filter(|x| x.is_finite())
            .flat_map(|x| [format!("{x}"), format!("{x:?}")])
            .filter(|text| plain(&format!("{text},")).is_some())
            .collect();
        assert!(texts.len() > floats.len() / 2, "{} plain", texts.len());
        count_general_path(&texts);
    }

    /// Conversions agree with `str::parse` to the bit, on ties between two
    /// `f32`s (which go to the general path), next to them, and on a spread
    /// of lengths and scales.
    #[test]
    fn converts_like_str_parse() {
        let mut texts: Vec<String> = [
            "16777217",
            "16777219",
            "16777217.0",
            "16777217.000001",
            "33554434",
            "33554438",
            "0.1",
            "0.3",
            "-0",
            "-0.0",
            "0",
            "999999999999999",
            "0.000000000000001",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // A deterministic spread of digit counts, scales and signs.
        let mut random = xorshift(0x9E37_79B9_7F4A_7C15);
        for _ in 0..50_000 {
            let state = random();
            let digits = 1 + (state % 14) as usize;
            let mantissa = (state >> 8) % 10u64.pow(digits as u32);
            let scale = (state >> 4) as usize % (digits + 1);
            let sign = if state & 1 == 0 { "" } else { "-" };
            texts.push(format!("{sign}{}", decimal(mantissa, digits, scale)));
        }
        // Integers halfway between two `f32`s.
        texts.extend((0..1000).map(|k| (16_777_217 + 2 * k * 7919).to_string()));
        let ties = count_general_path(&texts);
        assert!(f32::from_plain(&plain("16777217,").unwrap()).is_none());
        // Ties are rare but for integers past 2^24, which the spread has some of.
        assert!((1005..1500).contains(&ties), "{ties} ties");
    }

    /// Decimals next to ties between two `f32`s, where the product by a
    /// reciprocal may land on the other side of the tie than the exact
    /// value: at every scale a plain number can have (at most 13, as its 15
    /// bytes hold a digit and the point), the decimals of that scale nearest
    /// to a tie and the four around them, of both signs.
    #[test]
    fn converts_near_ties_like_str_parse() {
        let mut random = xorshift(0x2545_F491_4F6C_DD1D);
        let mut texts = Vec::new();
        for scale in 0..=13usize {
            // Numbers with up to 14 - scale digits before the point.
            let whole_digits = 14 - scale as i32;
            for _ in 0..3000 {
                let state = random();
                let magnitude = 10f64.powi((state % whole_digits as u64) as i32);
                let x = (magnitude * (1.0 + (state >> 11) as f64 / (1u64 << 53) as f64)) as f32;
                let next = f32::from_bits(x.to_bits() + 1);
                let tie = (f64::from(x) + f64::from(next)) / 2.0;
                let nearest = format!("{tie:.scale$}").replace('.', "");
                let Ok(mantissa) = nearest.parse::<u64>() else {
                    continue;
                };
                let sign = if state & 1 == 0 { "" } else { "-" };
                for near in mantissa.saturating_sub(2)..=mantissa + 2 {
                    texts.push(format!("{sign}{}", decimal(near, scale + 1, scale)));
                    if scale == 0 {
                        texts.push(format!("{sign}{near}"));
                    }
                }
            }
        }
        let ties = count_general_path(&texts);
        // Exact ties, which the general path reads: some, as they should.
        assert!(ties > 0 && ties < texts.len() / 10, "{ties} ties");
    }

    /// A xorshift generator: the same numbers from the same seed.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// `mantissa` written with `scale` digits after the point (none, and no
    /// point, when `scale` is 0) and at least `digits` in all.
    fn decimal(mantissa: u64, digits: usize, scale: usize) -> String {
        let text = format!("{mantissa:0digits$}");
        let (whole, fraction) = text.split_at(text.len() - scale);
        let whole = if whole.is_empty() { "0" } else { whole };
        format!("{whole}.{fraction}")
    }

    /// Checks that `f64` and `f32` read each of `texts` as `str::parse`
    /// does, to the bit, when they read it; returns how many `f32` left to
    /// the general path. A text that is not a plain number must be too
    /// long for one.
    fn count_general_path(texts: &[String]) -> usize {
        let mut ties = 0;
        for text in texts {
            let Some(number) = plain(&format!("{text},")) else {
                assert!(text.len() > 15, "{text}");
                continue;
            };
            assert_eq!(number.len, text.len(), "{text}");
            let f64_value = f64::from_plain(&number).unwrap();
            assert_eq!(
                f64_value.to_bits(),
                text.parse::<f64>().unwrap().to_bits(),
                "{text}"
            );
            match f32::from_plain(&number) {
                Some(value) => {
                    assert_eq!(
                        value.to_bits(),
                        text.parse::<f32>().unwrap().to_bits(),
                        "{text}"
                    )
                }
                None => ties += 1,
            }
        }
        ties
    }
}
