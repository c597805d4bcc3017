//! The lexer: source text to a vector of `(Token, Span)` pairs.
//!
//! Tokens borrow their text from the source and carry byte spans. The lexer
//! never fails: bytes it cannot read become [`Token::Error`] (or
//! [`Token::UnclosedString`]) and the parser reports them in context.
//!
//! Tensor constants are the heavy case (millions of numbers), so a `{` that
//! opens a list of numbers is lexed as one [`Token::Numbers`] holding the
//! text between the braces; the parser checks and converts it straight into
//! typed values, in one pass, with no token per element.

use std::ops::Range;

use chumsky::span::SimpleSpan;
use logos::Logos;

use crate::numbers::{plain_number, PlainNumber};

/// A token of the ONNX textual syntax.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\n\r\x0B\x0C]+")]
pub(crate) enum Token<'s> {
    /// An identifier or keyword: `[A-Za-z_][A-Za-z0-9_]*`.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident(&'s str),
    /// A quoted string, quotes included; `\c` stands for `c`.
    #[regex(r#""([^"\\]|\\[\s\S])*""#)]
    Str(&'s str),
    /// \[ext\] A byte string `b"..."`, where `\xHH` is a byte.
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
    /// The text between `{` and `}` when it is a list of numbers: it starts
    /// with one, and the tensor parser checks the rest (made by [`scan`],
    /// never by logos itself).
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
    /// \[ext\] `@<`, which opens an annotation.
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
    /// A `#` comment, to the end of its line. [`scan`] sets comments
    /// aside: the parser never sees them.
    #[regex(r"#[^\n]*", allow_greedy = true)]
    Comment,
    /// Text that is not a token.
    Error,
    /// Never lexed: stands for nodes of a long node list read apart from
    /// the rest of the text, on either of two threads (see
    /// `parser::fast::pieces`).
    Spliced,
}

/// The length of the number list at the start of `text` (just after a
/// `{`), up to but not including its closing `}`, the first outside a
/// comment, and whether it has comments; `None` if the text is not one.
///
/// Only tensor data starts with a number made of digits, followed by a
/// comma or the `}`: graph bodies, sparse tensor fields and annotation
/// entries start with names (or mistakes such as `1st = ...`). Such a list
/// is one token here, and the tensor parser checks its other items as it
/// converts them, in one pass. A list that starts with `inf` or `nan` (or a
/// graph body whose first output is named so) is checked here.
fn number_list_len(text: &[u8]) -> Option<(usize, bool)> {
    let start = skip_blank(text, 0);
    let first_end = skip_blank(text, skip_number(text, start)?);
    if !matches!(text.get(first_end), Some(b',' | b'}')) {
        return None;
    }
    match text[start] {
        b'0'..=b'9' | b'-' => {
            let (close, comments) = closing_brace(text)?;
            // `print --elide` ends a list with `... 997 more`: left to the
            // token-by-token path, which reports it.
            let last = memchr::memrchr(b',', &text[..close]).map_or(0, |comma| comma + 1);
            (text.get(skip_blank(text, last)) != Some(&b'.')).then_some((close, comments))
        }
        _ => {
            let close = checked_list_end(text, start)?;
            Some((close, memchr::memchr(b'#', &text[..close]).is_some()))
        }
    }
}

/// The position of the first `}` in `text` outside a comment, and whether
/// a comment comes before it; `None` if a `{` comes first: no number list
/// has one, and stopping there keeps the lexer linear on text such as
/// `{1, {1, {1, ...`.
fn closing_brace(text: &[u8]) -> Option<(usize, bool)> {
    let mut pos = 0;
    let mut comments = false;
    loop {
        pos += memchr::memchr3(b'}', b'#', b'{', &text[pos..])?;
        match text[pos] {
            b'}' => return Some((pos, comments)),
            b'#' => {
                comments = true;
                pos = skip_blank(text, pos);
            }
            _ => return None,
        }
    }
}

/// The position of the `}` that closes the number list whose first item
/// starts at `pos`, read item by item: `None` at the first item that is
/// not a number.
fn checked_list_end(text: &[u8], mut pos: usize) -> Option<usize> {
    loop {
        pos = skip_blank(text, skip_number(text, pos)?);
        match text.get(pos)? {
            b',' => pos = skip_blank(text, pos + 1),
            b'}' => return Some(pos),
            _ => return None,
        }
    }
}

/// One item of a number list, as [`list_items`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListItem {
    /// A plain number's span, or else the item's text up to the next comma
    /// (or the end), blanks and comments included, from its first byte
    /// that is neither.
    pub span: Range<usize>,
    /// The item, when it is a plain number followed by a comma.
    pub plain: Option<PlainNumber>,
}

/// The items of a number list's text (between its braces): the stretches
/// between its commas (outside comments). The common item, a plain number
/// directly followed by its comma, is read in one step.
pub(crate) fn list_items(text: &[u8]) -> ListItems<'_> {
    ListItems {
        text,
        next: Some(skip_blank(text, 0)),
    }
}

/// The iterator of [`list_items`].
pub(crate) struct ListItems<'t> {
    text: &'t [u8],
    /// Where the next item starts, if there is one.
    next: Option<usize>,
}

impl Iterator for ListItems<'_> {
    type Item = ListItem;

    // Inlined into the loops over millions of items.
    #[inline(always)]
    fn next(&mut self) -> Option<ListItem> {
        let (text, pos) = (self.text, self.next?);
        if let Some(number) = plain_number(text, pos) {
            self.next = Some(skip_blank(text, pos + number.len + 1));
            return Some(ListItem {
                span: pos..pos + number.len,
                plain: Some(number),
            });
        }
        let end = next_comma(text, pos);
        self.next = (end < text.len()).then(|| skip_blank(text, end + 1));
        Some(ListItem {
            span: pos..end,
            plain: None,
        })
    }
}

/// The position of the first comma at or after `pos` outside a comment, or
/// the end of `text`.
fn next_comma(text: &[u8], mut pos: usize) -> usize {
    loop {
        match memchr::memchr2(b',', b'#', &text[pos..]) {
            Some(i) if text[pos + i] == b'#' => pos = skip_blank(text, pos + i),
            Some(i) => return pos + i,
            None => return text.len(),
        }
    }
}

/// The span of the number that makes up the item at `span` of `text` (a
/// [`ListItem::span`]), blanks and comments left out.
pub(crate) fn number_in_item(text: &[u8], span: Range<usize>) -> Result<Range<usize>, BadItem> {
    let start = skip_blank(text, span.start);
    let end = skip_number(text, start).ok_or(BadItem::NotANumber(start))?;
    match skip_blank(text, end) {
        after if after == span.end => Ok(start..end),
        after => Err(BadItem::NoComma(after)),
    }
}

/// How an item of a number list is not one number, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BadItem {
    /// The text there is not a number.
    NotANumber(usize),
    /// A number ends, and the text there is not a comma.
    NoComma(usize),
}

/// Whether `bytes` are the textual syntax rather than a binary (protobuf)
/// model: text starts, after blanks and `#` comments, with `<`, `@`, a
/// quote or a letter, and holds no NUL byte; a binary model starts with a
/// field tag, which is none of those. Rarely, a binary model passes (one
/// that starts with its `opset_import`, tag `B`, and holds no NUL byte):
/// when such "text" does not parse, try [`crate::decode_model`].
///
/// ```
/// use onnxtxt::prost::Message;
///
/// let text = "g (float x) => (float y) { y = Relu(x) }";
/// assert!(onnxtxt::looks_like_text(text.as_bytes()));
/// let binary = onnxtxt::parse_model(text)?.encode_to_vec();
/// assert!(!onnxtxt::looks_like_text(&binary));
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn looks_like_text(bytes: &[u8]) -> bool {
    let start = skip_blank(bytes, 0);
    !bytes.contains(&0)
        && std::str::from_utf8(bytes).is_ok()
        && matches!(
            bytes.get(start),
            Some(b'<' | b'@' | b'"' | b'_' | b'A'..=b'Z' | b'a'..=b'z')
        )
}

/// Skips whitespace and `#` comments.
#[inline]
pub(crate) fn skip_blank(text: &[u8], mut pos: usize) -> usize {
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

/// Tokens with the span type the parser reads.
pub(crate) type SpannedTokens<'s> = Vec<(Token<'s>, SimpleSpan)>;

/// Lexes `source` completely, and returns the spans of its comments (those
/// inside number lists included), in order. A `{` that opens a list of
/// numbers is read, with the list and its `}`, as one [`Token::Numbers`].
pub(crate) fn scan(source: &str) -> (SpannedTokens<'_>, Vec<Range<usize>>) {
    let part = scan_part(source, 0, source.len());
    (part.tokens, part.comments)
}

/// The tokens and comments of part of a text, as [`scan_part`] lexes them.
pub(crate) struct Part<'s> {
    pub tokens: SpannedTokens<'s>,
    pub comments: Vec<Range<usize>>,
    /// Where the first token or comment not included starts (the end of
    /// the text if there is none).
    pub next: usize,
}

/// Lexes `source` from `from` (a character boundary), and keeps the tokens
/// and comments that start before `until`. From the start of the text
/// (`from` 0) that is exactly what lexing it all gives there; from
/// elsewhere, the same from the first token the two lexings start at the
/// same place on.
pub(crate) fn scan_part(source: &str, from: usize, until: usize) -> Part<'_> {
    let mut tokens = Vec::with_capacity(first_room(until - from));
    let mut comments = Vec::new();
    let next = scan_into(source, from, until, &mut tokens, &mut comments);
    Part {
        tokens,
        comments,
        next,
    }
}

/// How many tokens to make room for before lexing `len` bytes: those of
/// the first bytes at a token per 4 bytes (node-heavy text has one per 6
/// or 7), so that small texts, such as the many test models, need no
/// reallocation. Longer texts grow by `make_room`.
pub(crate) const fn first_room(len: usize) -> usize {
    let prefix = if len < DENSITY_PREFIX {
        len
    } else {
        DENSITY_PREFIX
    };
    prefix / 4 + 16
}

/// [`scan_part`] into the given vectors, which start empty (a buffer used
/// again keeps its memory warm); returns where the first token or comment
/// not included starts.
pub(crate) fn scan_into<'s>(
    source: &'s str,
    from: usize,
    until: usize,
    tokens: &mut SpannedTokens<'s>,
    comments: &mut Vec<Range<usize>>,
) -> usize {
    let mut lexer = Token::lexer(&source[from..]);
    let until = until - from;
    while let Some(token) = lexer.next() {
        let mut span = lexer.span();
        if span.start >= until {
            return from + span.start;
        }
        let token = match token {
            Ok(Token::Comment) => {
                comments.push(from + span.start..from + span.end);
                continue;
            }
            Ok(Token::LBrace) => match number_list_len(lexer.remainder().as_bytes()) {
                Some((len, commented)) => {
                    lexer.bump(len + 1);
                    span.end += len + 1;
                    let text = &source[from + span.start + 1..from + span.end - 1];
                    if commented {
                        comments.extend(comments_in_numbers(text, from + span.start + 1));
                    }
                    Token::Numbers(text)
                }
                None => Token::LBrace,
            },
            Ok(token) => token,
            Err(()) => Token::Error,
        };
        if tokens.len() == tokens.capacity() {
            make_room(tokens, span.end, until);
        }
        tokens.push((token, SimpleSpan::from(from + span.start..from + span.end)));
    }
    source.len()
}

/// How much text [`make_room`] reads before it trusts the token density.
const DENSITY_PREFIX: usize = 1 << 16;

/// Makes room for the tokens still to come, when `tokens` were read from
/// the first `read` bytes of a `total`-byte text. The token vector is
/// several times the size of the text (40 bytes a token): growing it by
/// doubling copied it over and over and touched about three times the
/// memory it ends up using, a third of a node-heavy parse. Once 64 KiB are
/// read, room is made for the rest at the density seen so far, an eighth
/// to spare; the vector still at least doubles, so a text that grows
/// denser costs amortized linear time, and a reservation the allocator
/// refuses falls back to doubling.
fn make_room(tokens: &mut SpannedTokens<'_>, read: usize, total: usize) {
    let count = tokens.len();
    let mut more = count.max(16);
    if read >= DENSITY_PREFIX {
        let rest = (count as u128 * total.saturating_sub(read) as u128 / read as u128) as usize;
        more = more.max(rest + rest / 8);
    }
    if tokens.try_reserve_exact(more).is_err() {
        tokens.reserve(count.max(16));
    }
}

/// The comments inside a number list's text (no `#` can appear in a
/// number), with `offset` the text's position in the source.
fn comments_in_numbers(text: &str, offset: usize) -> impl Iterator<Item = Range<usize>> + '_ {
    memchr::memchr_iter(b'#', text.as_bytes())
        .scan(0, move |end_of_last, start| {
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
            Token::Spliced => f.write_str("nodes read apart"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens with their spans as ranges.
    type Tokens<'s> = Vec<(Token<'s>, Range<usize>)>;

    fn lex(source: &str) -> Tokens<'_> {
        lex_with_comments(source).0
    }

    fn lex_with_comments(source: &str) -> (Tokens<'_>, Vec<Range<usize>>) {
        let (tokens, comments) = scan(source);
        let tokens = tokens
            .into_iter()
            .map(|(token, span)| (token, span.into_range()))
            .collect();
        (tokens, comments)
    }

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
        // A list that starts with a digit or `-` is tensor data: the parser
        // checks the rest.
        assert_eq!(kinds("{1, x}"), vec![Token::Numbers("1, x")]);
        assert_eq!(kinds("{-1, 2 3}"), vec![Token::Numbers("-1, 2 3")]);
        // Not when its first item is not a number, then a comma or the end.
        assert_eq!(kinds("{-1 2}")[0], Token::LBrace);
        assert_eq!(kinds("{1st = Relu(x)}")[0], Token::LBrace);
        assert_eq!(kinds("{1 = Relu(x)}")[0], Token::LBrace);
        // One that starts with a word is checked here: it may be a graph.
        assert_eq!(kinds("{inf, nan}"), vec![Token::Numbers("inf, nan")]);
        assert_eq!(kinds("{inf, x = Split(y)}")[0], Token::LBrace);
        assert_eq!(kinds("{nan = Relu(y)}")[0], Token::LBrace);
        // Anything else: ordinary tokens.
        assert_eq!(kinds("{}")[0], Token::LBrace);
        assert_eq!(kinds("{x, 1}")[0], Token::LBrace);
        assert_eq!(kinds("{\"a\"}")[0], Token::LBrace);
        assert_eq!(kinds("{1, 2")[0], Token::LBrace);
        assert_eq!(kinds("{1, 2, ... 5 more}")[0], Token::LBrace);
        assert_eq!(kinds("{1, {2}")[..2], [Token::LBrace, Token::Int("1")]);
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
