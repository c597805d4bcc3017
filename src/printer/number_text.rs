//! The text of numbers: integers in decimal, floats as the shortest text
//! that reads back to the same bits (and which NaNs have no such text).

use super::sink::Sink;

/// A float the printer writes as its shortest decimal that reads back to
/// the same value (Żmij's algorithm, through [`zmij`]).
pub(crate) trait PrintedFloat: zmij::Float {
    /// Whether some text reads back as exactly these bits: every value but
    /// the NaNs other than the default quiet NaN (of either sign).
    fn has_text(self) -> bool;
    /// NaN.
    fn is_nan(self) -> bool;
    /// ±infinity.
    fn is_infinite(self) -> bool;
    /// Has the sign bit set.
    fn is_sign_negative(self) -> bool;
}

macro_rules! printed_float {
    ($float:ty, $quiet_nan:expr) => {
        impl PrintedFloat for $float {
            fn has_text(self) -> bool {
                !self.is_nan() || self.abs().to_bits() == $quiet_nan
            }
            fn is_nan(self) -> bool {
                <$float>::is_nan(self)
            }
            fn is_infinite(self) -> bool {
                <$float>::is_infinite(self)
            }
            fn is_sign_negative(self) -> bool {
                <$float>::is_sign_negative(self)
            }
        }
    };
}
printed_float!(f32, 0x7fc0_0000);
printed_float!(f64, 0x7ff8_0000_0000_0000);

/// The longest text of a [`Number`]: a float64 (`-2.2250738585072014e-308`).
pub(super) const NUMBER_MAX: usize = 24;

/// A tensor element written by [`Sink::fill_numbers`]: an integer in
/// decimal, or a float as [`Sink::float`] writes it.
pub(crate) trait Number: Copy + Send + Sync + 'static {
    /// What [`Number::format`] writes the text into.
    type Buffer;

    /// A buffer for [`Number::format`].
    fn buffer() -> Self::Buffer;

    /// The text, written into `buffer`.
    fn format(self, buffer: &mut Self::Buffer) -> &str;

    /// Writes the text at the start of `out` and returns its length.
    #[inline]
    fn write(self, out: &mut [u8; NUMBER_MAX]) -> usize {
        copy_small(out, self.format(&mut Self::buffer()).as_bytes())
    }
}

macro_rules! int_number {
    ($($int:ty),*) => {$(
        impl Number for $int {
            type Buffer = itoa::Buffer;

            fn buffer() -> itoa::Buffer {
                itoa::Buffer::new()
            }

            #[inline]
            fn format(self, buffer: &mut itoa::Buffer) -> &str {
                buffer.format(self)
            }
        }
    )*};
}
int_number!(i32, i64, u64);

macro_rules! float_number {
    ($($float:ty),*) => {$(
        impl Number for $float {
            type Buffer = zmij::Buffer;

            fn buffer() -> zmij::Buffer {
                zmij::Buffer::new()
            }

            #[inline]
            fn format(self, buffer: &mut zmij::Buffer) -> &str {
                if self.is_finite() {
                    buffer.format_finite(self)
                } else {
                    float_or_nan(self, buffer)
                }
            }
        }
    )*};
}
float_number!(f32, f64);

/// The little-endian bytes of a float or a double, as `raw_data` and a
/// packed `float_data` or `double_data` hold them: formatted as the
/// number, read from the input's bytes in place (no unpacked copy).
macro_rules! le_float_number {
    ($($bytes:literal => $float:ty),*) => {$(
        impl Number for [u8; $bytes] {
            type Buffer = zmij::Buffer;

            fn buffer() -> zmij::Buffer {
                zmij::Buffer::new()
            }

            #[inline]
            fn format(self, buffer: &mut zmij::Buffer) -> &str {
                <$float>::from_le_bytes(self).format(buffer)
            }
        }
    )*};
}
le_float_number!(4 => f32, 8 => f64);

/// Copies `src` (at most [`NUMBER_MAX`] bytes) to the start of `out` with a
/// few fixed-size (overlapping) moves instead of a `memcpy` call, and
/// returns its length.
#[inline(always)]
pub(super) fn copy_small(out: &mut [u8; NUMBER_MAX], src: &[u8]) -> usize {
    let n = src.len();
    if n >= 16 {
        out[..16].copy_from_slice(&src[..16]);
        out[n - 16..n].copy_from_slice(&src[n - 16..]);
    } else if n >= 8 {
        out[..8].copy_from_slice(&src[..8]);
        out[n - 8..n].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        out[..4].copy_from_slice(&src[..4]);
        out[n - 4..n].copy_from_slice(&src[n - 4..]);
    } else if n > 0 {
        out[0] = src[0];
        out[n / 2] = src[n / 2];
        out[n - 1] = src[n - 1];
    }
    n
}

/// [`float_text`], or `nan` with the value's sign when there is none.
fn float_or_nan<F: PrintedFloat>(value: F, buffer: &mut zmij::Buffer) -> &str {
    let negative = value.is_sign_negative();
    float_text(value, buffer).unwrap_or(if negative { "-nan" } else { "nan" })
}

/// The text of a float that reads back to the same bits, if there is one
/// (see [`PrintedFloat::has_text`]).
pub(crate) fn float_text<F: PrintedFloat>(value: F, buffer: &mut zmij::Buffer) -> Option<&str> {
    if !value.has_text() {
        None
    } else if value.is_nan() || value.is_infinite() {
        Some(match (value.is_nan(), value.is_sign_negative()) {
            (true, false) => "nan",
            (true, true) => "-nan",
            (false, false) => "inf",
            (false, true) => "-inf",
        })
    } else {
        Some(buffer.format_finite(value))
    }
}

impl Sink<'_> {
    /// An integer in decimal.
    pub(crate) fn int(&mut self, value: impl itoa::Integer) {
        self.put(itoa::Buffer::new().format(value).as_bytes());
    }

    /// A float as the shortest text that reads back to the same value. A
    /// NaN with a payload other than the default has no such text: it is
    /// written `nan` (callers check [`PrintedFloat::has_text`] first and
    /// carry the bits elsewhere).
    pub(crate) fn float<F: PrintedFloat + Number>(&mut self, value: F) {
        let mut text = [0; NUMBER_MAX];
        let n = value.write(&mut text);
        self.put(&text[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::printer::sink::testing::render;

    #[test]
    fn floats_are_shortest_and_exact() {
        assert_eq!(render(|s| s.float(1.0f32)), "1.0");
        assert_eq!(render(|s| s.float(-0.0f32)), "-0.0");
        assert_eq!(render(|s| s.float(0.1f32)), "0.1");
        assert_eq!(render(|s| s.float(1e-7f32)), "1e-7");
        assert_eq!(render(|s| s.float(1e22f32)), "1e+22");
        // Plain from 1e-6 up to 1e16, the exponent form beyond.
        assert_eq!(render(|s| s.float(1e-5f32)), "0.00001");
        assert_eq!(render(|s| s.float(1e-6f32)), "0.000001");
        assert_eq!(render(|s| s.float(100.0f32)), "100.0");
        assert_eq!(render(|s| s.float(f32::INFINITY)), "inf");
        assert_eq!(render(|s| s.float(f32::NEG_INFINITY)), "-inf");
        assert_eq!(render(|s| s.float(f32::NAN)), "nan");
        assert_eq!(render(|s| s.float(-f32::NAN)), "-nan");
        assert_eq!(render(|s| s.float(0.1f64)), "0.1");
        assert_eq!(render(|s| s.float(-f64::NAN)), "-nan");
        let mut b = zmij::Buffer::new();
        assert_eq!(float_text(f32::from_bits(0x7fc0_0001), &mut b), None);
        assert_eq!(
            float_text(f64::from_bits(0xfff8_0000_0000_0001), &mut b),
            None
        );
        for bits in [1u32, 0x3dcc_cccd, 0x7f7f_ffff, 0x0080_0000, 0xc2f6_e979] {
            let v = f32::from_bits(bits);
            let text = float_text(v, &mut b).unwrap().to_owned();
            assert_eq!(text.parse::<f32>().unwrap().to_bits(), bits, "{text}");
        }
    }
}
