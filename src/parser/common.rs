//! Small productions used everywhere: identifiers, quoted identifiers,
//! string literals, integer literals and identifier lists.

use chumsky::prelude::*;

use super::landmarks::{landmark, Kind};
use super::{CustomError, Extra, Fail, Parsed, Tokens};
use crate::lexer::Token;

/// A bare identifier.
pub(crate) fn ident<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>() -> Parsed<'t, I, E, &'s str> {
    select! { Token::Ident(name) => name }
        .labelled("an identifier")
        .boxed()
}

/// The keyword `word` (keywords are ordinary identifiers in this syntax).
pub(crate) fn keyword<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    word: &'static str,
) -> impl Parser<'t, I, (), Extra<E>> + Clone {
    just(Token::Ident(word)).ignored()
}

/// A string literal, `"..."` or [ext] `b"..."`, as bytes.
pub(crate) fn string_literal<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, Vec<u8>> {
    quoted()
        .map(|contents| contents.map_or_else(|bytes| bytes, String::into_bytes))
        .boxed()
}

/// A string literal that must be UTF-8 (names, keys). A `"..."` literal is
/// UTF-8 as written (the text is a `str`); only a `b"..."` one is checked.
pub(crate) fn text_literal<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, String> {
    quoted()
        .validate(|contents, e, emitter| {
            contents.unwrap_or_else(|bytes| utf8(bytes, e.span(), emitter))
        })
        .boxed()
}

/// A string literal unescaped: a `"..."` one as text, a [ext] `b"..."` one
/// as bytes.
fn quoted<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, Result<String, Vec<u8>>> {
    select! {
        Token::Str(raw) => Ok(unquote(raw)),
        Token::Bytes(raw) => Err(unescape_bytes(&raw[2..raw.len() - 1])),
    }
    .labelled("a string")
    .boxed()
}

/// An identifier or a quoted string, as a name.
pub(crate) fn quotable_id<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, String> {
    ident()
        .map(str::to_owned)
        .or(text_literal())
        .labelled("a name")
        .boxed()
}

/// A quotable identifier that is not the start of a type, so that a value
/// info `float x` is never misread as an untyped `float`.
pub(crate) fn quotable_non_type_id<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, String> {
    select! { Token::Ident(name) if !crate::vocabulary::starts_type(name) => name.to_owned() }
        .or(text_literal())
        .labelled("a name")
        .boxed()
}

/// Converts bytes to a `String`, reporting invalid UTF-8 at `span`.
pub(crate) fn utf8<E: CustomError>(
    bytes: Vec<u8>,
    span: SimpleSpan,
    emitter: &mut chumsky::input::Emitter<E>,
) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| {
        emitter.emit(E::custom(span, "a name must be valid UTF-8"));
        String::from_utf8_lossy(e.as_bytes()).into_owned()
    })
}

/// An integer literal converted to `T`, reporting overflow at its span.
pub(crate) fn integer<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>, T>() -> Parsed<'t, I, E, T>
where
    T: std::str::FromStr + Default + IntegerName,
{
    select! { Token::Int(text) => text }
        .labelled("an integer")
        .validate(|text, e, emitter| {
            text.parse::<T>().unwrap_or_else(|_| {
                emitter.emit(E::custom(e.span(), out_of_range::<T>(text)));
                T::default()
            })
        })
        .boxed()
}

/// Names an integer type in error messages.
pub(crate) trait IntegerName {
    /// e.g. "a 64-bit integer".
    const NAME: &'static str;
}

impl IntegerName for i64 {
    const NAME: &'static str = "a 64-bit signed integer";
}

impl IntegerName for i32 {
    const NAME: &'static str = "a 32-bit signed integer";
}

impl IntegerName for u64 {
    const NAME: &'static str = "a 64-bit unsigned integer";
}

/// The message for an integer literal that does not fit `T`.
pub(crate) fn out_of_range<T: IntegerName>(text: &str) -> String {
    format!("`{text}` does not fit in {}", T::NAME)
}

/// A list of node inputs or outputs, following the reference's rules for
/// empty names: `Op(,x)` has two inputs, the first empty; `Op(x,)` has one.
pub(crate) fn id_list<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, Vec<String>> {
    let empty_before_comma = just(Token::Comma).rewind().to(String::new());
    let item = quotable_id().or(empty_before_comma);
    landmark(Kind::Name, item)
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect()
        .boxed()
}

/// The text of a `"..."` literal (`raw`, quotes included), unescaped.
pub(crate) fn unquote(raw: &str) -> String {
    unescape(&raw[1..raw.len() - 1])
}

/// Removes the reference's escapes: a backslash stands for the next
/// character, whatever it is.
pub(crate) fn unescape(raw: &str) -> String {
    // Names are short: the memchr crate's search costs a fraction of
    // `str::contains` on them.
    if memchr::memchr(b'\\', raw.as_bytes()).is_none() {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// Removes the escapes of a byte string: `\xHH` is a byte, a backslash
/// before any other character stands for that character.
pub(crate) fn unescape_bytes(raw: &str) -> Vec<u8> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 1 < bytes.len() {
            let hex = bytes
                .get(i + 2..i + 4)
                .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
            match (bytes[i + 1], hex) {
                (b'x', Some(byte)) => {
                    out.push(byte);
                    i += 4;
                }
                (other, _) => {
                    out.push(other);
                    i += 2;
                }
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_escapes_keep_the_escaped_character() {
        assert_eq!(unescape(r#"a\"b\\c\nd"#), "a\"b\\cnd");
        assert_eq!(unescape("plain"), "plain");
    }

    #[test]
    fn byte_string_escapes() {
        assert_eq!(
            unescape_bytes(r#"\xff\x00a\"\\\q"#),
            vec![0xff, 0, b'a', b'"', b'\\', b'q']
        );
        // An incomplete hex escape is the letter x.
        assert_eq!(unescape_bytes(r"\xz"), b"xz".to_vec());
    }
}
