//! The lexer: source text to a vector of `(Token, Span)` pairs.
//!
//! Tokens borrow their text from the source and carry byte spans. The lexer
//! never fails: bytes it cannot read become [`Token::Error`] (or
//! [`Token::UnclosedString`]) and the parser reports them in context.
//!
//! Tensor constants are the heavy case (millions of numbers), so a `{` that
//! opens a list made only of numbers is lexed as one [`Token::Numbers`]
//! holding the text between the braces; the parser converts it straight into
//! typed values, with no token per element.

use std::ops::Range;

use logos::Logos;

/// A token of the ONNX textual syntax.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\n\r\x0B\x0C]+")]
pub enum Token<'s> {
    /// An identifier or keyword: `[A-Za-z_][A-Za-z0-9_]*`.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident(&'s str),
    /// A quoted string, quotes included; `\c` stands for `c`.
    #[regex(r#""([^"\\]|\\[\s\S])*""#)]
    Str(&'s str),
    /// [ext] A byte string `b"..."`, where `\xHH` is a byte.
    #[regex(r#"b"([^"\\]|\\[\s\S])*""#)]
    Bytes(&'s str),
    /// A quoted string that runs to the end of the input.
    #[regex(r#"b?"([^"\\]|\\[\s\S])*\\?"#)]
    UnclosedString(&'s str),
    /// An integer literal, with its sign.
    #[regex(r"-?[0-9]+")]
    Int(&'s str),
    /// A float literal, with its sign: digits with a point or an exponent,
    /// or a negated `inf`, `infinity` or `nan` (any case).
    #[regex(r"-?[0-9]+\.[0-9]*([eE][+-]?[0-9]*)?")]
    #[regex(r"-?[0-9]+[eE][+-]?[0-9]*")]
    #[regex(r"-(?i:inf|infinity|nan)")]
    Float(&'s str),
    /// The text between `{` and `}` when it is a non-empty list of numbers
    /// (made by [`lex`], never by logos itself).
    Numbers(&'s str),
    /// `{` (when it does not open a list of numbers).
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `<`
    #[token("<")]
    LAngle,
    /// `>`
    #[token(">")]
    RAngle,
    /// [ext] `@<`, which opens an annotation.
    #[token("@<")]
    AnnotationOpen,
    /// `@`, which starts an attribute reference.
    #[token("@")]
    At,
    /// `=>`
    #[token("=>")]
    Arrow,
    /// `->`, never valid: read as one token so it can be reported as a
    /// misspelt `=>`.
    #[token("->")]
    ThinArrow,
    /// `=`
    #[token("=")]
    Eq,
    /// `,`
    #[token(",")]
    Comma,
    /// `:`
    #[token(":")]
    Colon,
    /// `.`
    #[token(".")]
    Dot,
    /// `?`
    #[token("?")]
    Question,
    /// `-` not followed by a number.
    #[token("-")]
    Minus,
    /// `... 997 more`: where `print --elide` left values out. Never valid;
    /// read as one token so the parser can say what happened.
    #[regex(r"\.\.\.( +[0-9]+ +more)?")]
    Elided(&'s str),
    /// A `#` comment, to the end of its line. [`lex`] sets comments
    /// aside: the parser never sees them.
    #[regex(r"#[^\n]*", allow_greedy = true)]
    Comment,
    /// Text that is not a token.
    Error,
}

/// The length of the number list at the start of `text`, up to but not
/// including its closing `}`: `number (',' number)*` with whitespace and
/// comments around the items. `None` if the text is anything else.
fn number_list_len(text: &[u8]) -> Option<usize> {
    let start = skip_blank(text, 0);
    let end = match items_end(text, start, crate::parallel::MIN_TEXT)? {
        (end, false) => end,
        (next, true) => long_list_end(text, next)?,
    };
    (text.get(end) == Some(&b'}')).then_some(end)
}

/// [`items_end`] of a long number list from `pos`, the start of an item:
/// up to the first `}`, checked in two halves on two threads when that
/// stretch has no comment (which could hide a comma or a `}`), else read
/// on this thread.
fn long_list_end(text: &[u8], pos: usize) -> Option<usize> {
    let close = text[pos..].iter().position(|&b| b == b'}').map(|i| pos + i);
    let halves = close.and_then(|close| {
        let comma = crate::parallel::split_point(&text[pos..close])?;
        Some((&text[pos..close], comma, close))
    });
    let Some((items, comma, close)) = halves else {
        return items_end(text, pos, usize::MAX).map(|(end, _)| end);
    };
    let is_list =
        |part: &[u8]| items_end(part, skip_blank(part, 0), usize::MAX) == Some((part.len(), false));
    let (front, back) =
        crate::parallel::join(|| is_list(&items[..comma]), || is_list(&items[comma + 1..]));
    (front && back).then_some(close)
}

/// Reads `number (',' number)*` with blanks around the items from `pos`,
/// the start of an item, to the first byte after the last item and its
/// blanks. Stops early once at or past `stop`, at the start of an item,
/// saying so with `true`. `None` if an item is not a number.
fn items_end(text: &[u8], mut pos: usize, stop: usize) -> Option<(usize, bool)> {
    loop {
        pos = skip_number(text, pos)?;
        pos = skip_blank(text, pos);
        if text.get(pos) != Some(&b',') {
            return Some((pos, false));
        }
        pos = skip_blank(text, pos + 1);
        if pos >= stop {
            return Some((pos, true));
        }
    }
}

/// Skips whitespace and `#` comments.
pub fn skip_blank(text: &[u8], mut pos: usize) -> usize {
    while let Some(&b) = text.get(pos) {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C => pos += 1,
            b'#' => {
                pos += text[pos..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(text.len() - pos);
            }
            _ => break,
        }
    }
    pos
}

/// Skips one number literal as the lexer would read it (an `Int`, a `Float`,
/// or `inf`/`infinity`/`nan` with an optional `-`), returning the position
/// after it, or `None` if there is none at `pos`.
pub(crate) fn skip_number(text: &[u8], pos: usize) -> Option<usize> {
    let start = if text.get(pos) == Some(&b'-') {
        pos + 1
    } else {
        pos
    };
    let digits_end = skip_digits(text, start);
    if digits_end == start {
        let word_end = start
            + text[start..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
        let word = &text[start..word_end];
        let special = [&b"inf"[..], b"infinity", b"nan"]
            .iter()
            .any(|w| word.eq_ignore_ascii_case(w));
        return special.then_some(word_end);
    }
    let mut end = digits_end;
    if text.get(end) == Some(&b'.') {
        end = skip_digits(text, end + 1);
    }
    if matches!(text.get(end), Some(b'e' | b'E')) {
        end += 1;
        if matches!(text.get(end), Some(b'+' | b'-')) {
            end += 1;
        }
        end = skip_digits(text, end);
    }
    // A number glued to a letter (`1x`) is not a plain number list.
    match text.get(end) {
        Some(b) if b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.' => None,
        _ => Some(end),
    }
}

fn skip_digits(text: &[u8], pos: usize) -> usize {
    pos + text[pos..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count()
}

/// Lexes `source` completely. A `{` that opens a list of numbers is read,
/// with the list and its `}`, as one [`Token::Numbers`]. Comments are
/// dropped.
pub fn lex(source: &str) -> Tokens<'_> {
    lex_with_comments(source).0
}

/// Tokens with their spans.
pub type Tokens<'s> = Vec<(Token<'s>, Range<usize>)>;

/// Lexes `source` like [`lex`], and returns the spans of its comments
/// (those inside number lists included), in order.
pub fn lex_with_comments(source: &str) -> (Tokens<'_>, Vec<Range<usize>>) {
    let mut lexer = Token::lexer(source);
    let mut tokens = Vec::new();
    let mut comments = Vec::new();
    while let Some(token) = lexer.next() {
        let mut span = lexer.span();
        let token = match token {
            Ok(Token::Comment) => {
                comments.push(span);
                continue;
            }
            Ok(Token::LBrace) => match number_list_len(lexer.remainder().as_bytes()) {
                Some(len) => {
                    lexer.bump(len + 1);
                    span.end += len + 1;
                    let text = &source[span.start + 1..span.end - 1];
                    comments.extend(comments_in_numbers(text, span.start + 1));
                    Token::Numbers(text)
                }
                None => Token::LBrace,
            },
            Ok(token) => token,
            Err(()) => Token::Error,
        };
        if tokens.len() == tokens.capacity() {
            make_room(&mut tokens, span.end, source.len());
        }
        tokens.push((token, span));
    }
    (tokens, comments)
}

/// Makes room for the tokens still to come, when `tokens` were read from
/// the first `read` bytes of a `total`-byte text. The token vector is
/// several times the size of the text (40 bytes a token): growing it by
/// doubling copied it over and over and touched about three times the
/// memory it ends up using, a third of a node-heavy parse. Once 64 KiB are
/// read, room is made for the rest at the density seen so far, an eighth
/// to spare; the vector still at least doubles, so a text that grows
/// denser costs amortized linear time, and a reservation the allocator
/// refuses falls back to doubling.
fn make_room(tokens: &mut Tokens<'_>, read: usize, total: usize) {
    const PREFIX: usize = 1 << 16;
    let count = tokens.len();
    let mut more = count.max(16);
    if read >= PREFIX {
        let rest = (count as u128 * (total - read) as u128 / read as u128) as usize;
        more = more.max(rest + rest / 8);
    }
    if tokens.try_reserve_exact(more).is_err() {
        tokens.reserve(count.max(16));
    }
}

/// The comments inside a number list's text (no `#` can appear in a
/// number), with `offset` the text's position in the source.
fn comments_in_numbers(text: &str, offset: usize) -> impl Iterator<Item = Range<usize>> + '_ {
    text.match_indices('#')
        .scan(0, move |end_of_last, (start, _)| {
            if start < *end_of_last {
                return Some(None);
            }
            let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
            *end_of_last = end;
            Some(Some(offset + start..offset + end))
        })
        .flatten()
}

impl std::fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Token::Ident(s) | Token::Int(s) | Token::Float(s) => write!(f, "`{s}`"),
            Token::Str(_) | Token::Bytes(_) => f.write_str("a string"),
            Token::UnclosedString(_) => f.write_str("an unclosed string"),
            Token::Numbers(_) => f.write_str("a list of numbers"),
            Token::LBrace => f.write_str("`{`"),
            Token::RBrace => f.write_str("`}`"),
            Token::LParen => f.write_str("`(`"),
            Token::RParen => f.write_str("`)`"),
            Token::LBracket => f.write_str("`[`"),
            Token::RBracket => f.write_str("`]`"),
            Token::LAngle => f.write_str("`<`"),
            Token::RAngle => f.write_str("`>`"),
            Token::AnnotationOpen => f.write_str("`@<`"),
            Token::At => f.write_str("`@`"),
            Token::Arrow => f.write_str("`=>`"),
            Token::ThinArrow => f.write_str("`->`"),
            Token::Eq => f.write_str("`=`"),
            Token::Comma => f.write_str("`,`"),
            Token::Colon => f.write_str("`:`"),
            Token::Dot => f.write_str("`.`"),
            Token::Question => f.write_str("`?`"),
            Token::Minus => f.write_str("`-`"),
            Token::Elided(_) => f.write_str("elided values"),
            Token::Comment => f.write_str("a comment"),
            Token::Error => f.write_str("an unexpected character"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<Token<'_>> {
        lex(source).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn token_is_small() {
        assert!(std::mem::size_of::<Token<'_>>() <= 24);
    }

    #[test]
    fn identifiers_numbers_and_punctuation() {
        use Token::*;
        assert_eq!(
            kinds("y = com.ms.Foo <a: ints = [-1, 2.5e3]> (x, \"q z\") => ?"),
            vec![
                Ident("y"),
                Eq,
                Ident("com"),
                Dot,
                Ident("ms"),
                Dot,
                Ident("Foo"),
                LAngle,
                Ident("a"),
                Colon,
                Ident("ints"),
                Eq,
                LBracket,
                Int("-1"),
                Comma,
                Float("2.5e3"),
                RBracket,
                RAngle,
                LParen,
                Ident("x"),
                Comma,
                Str("\"q z\""),
                RParen,
                Arrow,
                Question
            ]
        );
    }

    #[test]
    fn comments_and_whitespace_are_skipped_with_correct_spans() {
        let tokens = lex("a # comment\n\t\x0Bb");
        assert_eq!(
            tokens,
            vec![(Token::Ident("a"), 0..1), (Token::Ident("b"), 14..15)]
        );
    }

    #[test]
    fn float_forms() {
        use Token::*;
        assert_eq!(
            kinds("1. 1.5 1e5 1E-3 -inf -NaN -Infinity 7"),
            vec![
                Float("1."),
                Float("1.5"),
                Float("1e5"),
                Float("1E-3"),
                Float("-inf"),
                Float("-NaN"),
                Float("-Infinity"),
                Int("7")
            ]
        );
        // `inf` alone is an identifier; the parser decides what it means.
        assert_eq!(kinds("inf"), vec![Ident("inf")]);
    }

    #[test]
    fn strings_keep_escapes_and_newlines() {
        assert_eq!(kinds("\"a\\\"b\nc\""), vec![Token::Str("\"a\\\"b\nc\"")]);
        assert_eq!(kinds("b\"\\xff\""), vec![Token::Bytes("b\"\\xff\"")]);
        assert_eq!(kinds("\"abc"), vec![Token::UnclosedString("\"abc")]);
    }

    #[test]
    fn number_lists_become_one_token() {
        assert_eq!(
            kinds("{1, -2.5, # c\n inf }"),
            vec![Token::Numbers("1, -2.5, # c\n inf ")]
        );
        // Not a pure number list: ordinary tokens.
        assert_eq!(kinds("{1, x}")[0], Token::LBrace);
        assert_eq!(kinds("{}")[0], Token::LBrace);
        assert_eq!(kinds("{1,,2}")[0], Token::LBrace);
        assert_eq!(kinds("{1x}")[0], Token::LBrace);
        assert_eq!(kinds("{\"a\"}")[0], Token::LBrace);
    }

    #[test]
    fn comments_are_set_aside_with_their_spans() {
        let source = "a # one\n{1, # two\n 2} # three";
        let (tokens, comments) = lex_with_comments(source);
        assert_eq!(tokens.len(), 2);
        let texts: Vec<_> = comments.into_iter().map(|c| &source[c]).collect();
        assert_eq!(texts, vec!["# one", "# two", "# three"]);
    }

    #[test]
    fn arrow_needs_adjacent_characters() {
        assert_eq!(kinds("= >"), vec![Token::Eq, Token::RAngle]);
        assert_eq!(kinds("=>"), vec![Token::Arrow]);
    }

    #[test]
    fn the_elision_marker_is_one_token() {
        use Token::*;
        assert_eq!(
            kinds("{1, ... 3 more} ... a.b"),
            vec![
                LBrace,
                Int("1"),
                Comma,
                Elided("... 3 more"),
                RBrace,
                Elided("..."),
                Ident("a"),
                Dot,
                Ident("b")
            ]
        );
    }

    #[test]
    fn unknown_characters_are_error_tokens() {
        assert_eq!(
            kinds("a $ b"),
            vec![Token::Ident("a"), Token::Error, Token::Ident("b")]
        );
        assert_eq!(kinds("é"), vec![Token::Error]);
    }
}
