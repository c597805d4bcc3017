//! The checks on the tokens before the grammar runs: text the lexer could
//! not read, brackets that do not pair up, and nesting deeper than
//! [`MAX_NESTING`] are reported here, so that the grammar never recurses
//! on the Rust stack without bound. One quick pass ([`well_formed`])
//! clears the common case. A parse on one thread lexes into a token
//! vector its thread keeps from one parse to the next ([`with_tokens`]).
//! The grammar runs on a stack with room for the tokens' nesting
//! ([`with_room_for`]).

use std::cell::Cell;

use chumsky::span::SimpleSpan;

use super::errors::FirstErrors;
use super::{hints, MAX_ERRORS, MAX_NESTING};
use crate::error::{Diagnostic, Error};
use crate::lexer::{first_room, scan, scan_into, SpannedTokens, Token};

/// Lexes `source` and checks the tokens before parsing: unreadable text
/// and excessive nesting are reported here. The tokens, and how deep
/// their plain brackets nest (see [`check_tokens`]).
pub(super) fn tokenize(source: &str) -> Result<(SpannedTokens<'_>, usize), Error> {
    check_tokens(scan(source).0, source)
}

/// [`tokenize`] for a parse that needs the tokens only while `parse`
/// runs, given them and their depth: they are lexed into a vector the
/// thread keeps from one such parse to the next (up to [`KEPT_TOKENS`]):
/// a new one, kilobytes fresh from the allocator for a text of a few
/// hundred bytes, and the bracket walk's vector cost 1.5-2% of a small
/// model's parse from Python (bench/results.md, "Small models from
/// Python, session 9").
pub(super) fn with_tokens<R>(
    source: &str,
    parse: impl for<'t> FnOnce(&'t [(Token<'t>, SimpleSpan)], usize) -> Result<R, Error>,
) -> Result<R, Error> {
    let room = first_room(source.len());
    let mut tokens: SpannedTokens<'_> = SPARE_TOKENS.take();
    if tokens.capacity() < room {
        // Made anew: growing it would copy the memory it had.
        tokens = Vec::with_capacity(room);
    }
    scan_into(source, 0, source.len(), &mut tokens, &mut Vec::new());
    let parsed = checked_depth(&tokens, source).and_then(|depth| parse(&tokens, depth));
    keep_for_next_parse(tokens);
    parsed
}

/// The most tokens a vector kept by [`with_tokens`] holds: room for a
/// text of 32 KiB (320 KiB of tokens), which nearly every model of the
/// conformance corpus fits in.
const KEPT_TOKENS: usize = first_room(32 * 1024);

thread_local! {
    /// The vector [`with_tokens`] lexes into, empty between parses.
    static SPARE_TOKENS: Cell<SpannedTokens<'static>> = const { Cell::new(Vec::new()) };
}

/// Keeps `tokens`' vector, emptied, for the thread's next [`with_tokens`],
/// unless it is larger than [`KEPT_TOKENS`].
fn keep_for_next_parse(mut tokens: SpannedTokens<'_>) {
    if tokens.capacity() > KEPT_TOKENS {
        return;
    }
    tokens.clear();
    // No token is left to outlive its text: the empty vector is collected
    // in place (the standard library keeps its memory) as one of tokens
    // that borrow nothing (the map is never called).
    let spare: SpannedTokens<'static> = (tokens.into_iter())
        .map(|(_, span)| (Token::Error, span))
        .collect();
    SPARE_TOKENS.set(spare);
}

/// Checks lexed tokens before parsing: unreadable text, unpaired brackets
/// and excessive nesting are reported here. The tokens, and how deep
/// their plain brackets nest ([`checked_depth`]).
pub(super) fn check_tokens<'s>(
    tokens: SpannedTokens<'s>,
    source: &str,
) -> Result<(SpannedTokens<'s>, usize), Error> {
    checked_depth(&tokens, source).map(|depth| (tokens, depth))
}

/// How deep the plain brackets of `tokens` nest ([`Brackets::deepest_plain`];
/// [`MAX_NESTING`] for tokens that are not [`well_formed`] but not refused
/// either), or what is wrong with them.
fn checked_depth(tokens: &[(Token<'_>, SimpleSpan)], source: &str) -> Result<usize, Error> {
    match well_formed_depth(tokens) {
        Some(depth) => Ok(depth),
        None => {
            explain_malformed(tokens, source)?;
            Ok(MAX_NESTING)
        }
    }
}

/// Reports what is wrong with tokens that are not [`well_formed`].
pub(super) fn explain_malformed(
    tokens: &[(Token<'_>, SimpleSpan)],
    source: &str,
) -> Result<(), Error> {
    let mut diagnostics = FirstErrors::default();
    for diagnostic in lexer_diagnostics(tokens, source) {
        diagnostics.push(diagnostic);
    }
    // An unclosed string runs to the end of the text, taking the closing
    // brackets with it: reporting those would only repeat the one mistake.
    if !tokens
        .iter()
        .any(|(t, _)| matches!(t, Token::UnclosedString(_)))
    {
        hints::check_delimiters(tokens, source, &mut diagnostics);
    }
    let diagnostics = diagnostics.into_sorted();
    if !diagnostics.is_empty() {
        return Err(Error::from_diagnostics(diagnostics));
    }
    check_nesting(tokens)
}

/// Whether `tokens` can go straight to the grammar: the lexer read every
/// token, brackets pair up, and none nest deeper than [`MAX_NESTING`]. One
/// quick pass for the common case; [`explain_malformed`] says what is
/// wrong with tokens that fail it.
pub(super) fn well_formed(tokens: &[(Token<'_>, SimpleSpan)]) -> bool {
    well_formed_depth(tokens).is_some()
}

/// How deep the plain brackets of `tokens` nest
/// ([`Brackets::deepest_plain`]), when they are [`well_formed`].
fn well_formed_depth(tokens: &[(Token<'_>, SimpleSpan)]) -> Option<usize> {
    let mut brackets = Brackets::default();
    let whole = brackets.walk(tokens) == Some(tokens.len()) && brackets.open() == 0;
    whole.then_some(brackets.deepest_plain)
}

/// A walk over the brackets of tokens, one stretch of them after another.
#[derive(Debug)]
pub(super) struct Brackets {
    /// The closers of the brackets open, innermost last: the first
    /// `open` of them. In place, not in a vector: a small model's whole
    /// parse is a few microseconds, and allocating one is not free.
    closers: [Closer; MAX_NESTING],
    open: usize,
    /// The deepest nesting so far.
    pub(super) deepest: usize,
    /// How many of the brackets open are plain ones, `(`, `[` or `{` (not
    /// `<` or `@<`), and the deepest they nested so far: what a binary
    /// model's messages nest with (see `EncodedModel::deepest_brackets`).
    plain_open: usize,
    pub(super) deepest_plain: usize,
    /// The `=` tokens outside every bracket the walk opened: in a run of
    /// nodes, one for each node.
    pub(super) outer_eqs: usize,
}

impl Default for Brackets {
    fn default() -> Self {
        Brackets {
            closers: [Closer::Paren; MAX_NESTING],
            open: 0,
            deepest: 0,
            plain_open: 0,
            deepest_plain: 0,
            outer_eqs: 0,
        }
    }
}

/// What closes a bracket: `)`, `]`, `}` or `>` (which closes both `<` and
/// `@<`, the one bracket that is not plain).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closer {
    Paren,
    Bracket,
    Brace,
    Angle,
}

/// What `token` is to a walk over brackets.
enum Role {
    Opens(Closer),
    Closes(Closer),
    /// `=`, counted outside brackets.
    Eq,
    /// Text the lexer could not read, or the marker of elided values.
    Unread,
    Other,
}

fn role(token: Token<'_>) -> Role {
    match token {
        Token::LParen => Role::Opens(Closer::Paren),
        Token::LBracket => Role::Opens(Closer::Bracket),
        Token::LBrace => Role::Opens(Closer::Brace),
        Token::LAngle | Token::AnnotationOpen => Role::Opens(Closer::Angle),
        Token::RParen => Role::Closes(Closer::Paren),
        Token::RBracket => Role::Closes(Closer::Bracket),
        Token::RBrace => Role::Closes(Closer::Brace),
        Token::RAngle => Role::Closes(Closer::Angle),
        Token::Eq => Role::Eq,
        Token::Error | Token::Elided(_) | Token::UnclosedString(_) => Role::Unread,
        _ => Role::Other,
    }
}

impl Brackets {
    /// How many brackets are open.
    pub(super) fn open(&self) -> usize {
        self.open
    }

    /// How many plain brackets are open (see [`Brackets::deepest_plain`]).
    pub(super) fn plain_open(&self) -> usize {
        self.plain_open
    }

    /// Walks on over `tokens`, up to the first closer that closes no
    /// bracket open: its index, or the number of tokens. `None` if a
    /// bracket is closed by the wrong closer or nests deeper than
    /// [`MAX_NESTING`], or a token could not be read, before that.
    pub(super) fn walk(&mut self, tokens: &[(Token<'_>, SimpleSpan)]) -> Option<usize> {
        for (index, &(token, _)) in tokens.iter().enumerate() {
            match role(token) {
                Role::Opens(closer) => {
                    *self.closers.get_mut(self.open)? = closer;
                    self.open += 1;
                    self.deepest = self.deepest.max(self.open);
                    if closer != Closer::Angle {
                        self.plain_open += 1;
                        self.deepest_plain = self.deepest_plain.max(self.plain_open);
                    }
                }
                Role::Closes(closer) => {
                    let Some(open) = self.open.checked_sub(1) else {
                        return Some(index);
                    };
                    if self.closers[open] != closer {
                        return None;
                    }
                    self.open = open;
                    self.plain_open -= usize::from(closer != Closer::Angle);
                }
                Role::Eq => self.outer_eqs += usize::from(self.open == 0),
                Role::Unread => return None,
                Role::Other => {}
            }
        }
        Some(tokens.len())
    }
}

/// The deepest bracket nesting of `tokens`, a closer that closes nothing
/// counted as closing nothing: a bound on how deep the grammar recurses
/// over them, however their brackets pair up.
pub(super) fn deepest(tokens: &[(Token<'_>, SimpleSpan)]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0);
    for &(token, _) in tokens {
        if hints::closer_of(token).is_some() {
            depth += 1;
            deepest = deepest.max(depth);
        } else if hints::is_closer(token) {
            depth = depth.saturating_sub(1);
        }
    }
    deepest
}

/// The stack one bracket of nesting may take in the grammar, with room to
/// spare: a debug build takes up to about 42 KB (a graph in an attribute,
/// whose `<` and `{` take 83 KB; a list in a header about 25 KB a `[`, a
/// type 13 KB a `seq(`), a release build much less.
const STACK_PER_BRACKET: usize = 64 << 10;

/// The stack the grammar takes besides its nesting (a debug build's parse
/// of an unnested model with its source map: about 175 KB).
const STACK_BASE: usize = 256 << 10;

/// The stack a grammar run over brackets nested `depth` deep may take.
const fn stack_for(depth: usize) -> usize {
    STACK_BASE + depth * STACK_PER_BRACKET
}

/// The stack a grammar run over any tokens may take: a thread with this
/// much left never needs a new one.
const STACK_FOR_ANY_NESTING: usize = stack_for(MAX_NESTING);

// A helper has that much left, and a megabyte more for what it runs the
// grammar in.
const _: () = assert!(STACK_FOR_ANY_NESTING + (1 << 20) <= crate::parallel::HELPER_STACK);

/// Runs `parse`, the grammar over `tokens`, on a stack with room for their
/// nesting: the thread's own when it has that much left, else a new one.
/// chumsky grows the stack as it recurses only when less than 64 KB is
/// left, which one level of a debug build can take more than: without
/// this, a model whose graphs nest 30 deep overflowed a 2 MiB thread.
pub(super) fn with_room_for<R>(tokens: &[(Token<'_>, SimpleSpan)], parse: impl FnOnce() -> R) -> R {
    let Some(left) = stacker::remaining_stack() else {
        return parse();
    };
    // Room for any nesting: the tokens need not be counted.
    if left >= STACK_FOR_ANY_NESTING {
        return parse();
    }
    let needed = stack_for(deepest(tokens));
    if left >= needed {
        parse()
    } else {
        stacker::grow(needed, parse)
    }
}

/// Diagnostics for text the lexer could not read.
fn lexer_diagnostics(tokens: &[(Token<'_>, SimpleSpan)], source: &str) -> Vec<Diagnostic> {
    let mut last_error_end = None;
    tokens
        .iter()
        .filter_map(|(token, span)| match token {
            // Several bad characters in one word (`/a/b`) are one mistake.
            Token::Error
                if last_error_end
                    .is_some_and(|end| !source[end..span.start].contains(char::is_whitespace)) =>
            {
                last_error_end = Some(span.end);
                None
            }
            Token::Error => {
                last_error_end = Some(span.end);
                let mut diagnostic = Diagnostic::new(
                    "onnxtxt::parse::character",
                    format!("unexpected character `{}`", &source[span.into_range()]),
                    span.into_range(),
                );
                hints::improve(&mut diagnostic, source);
                Some(diagnostic)
            }
            Token::Elided(_) => Some(hints::elided(span.into_range())),
            Token::UnclosedString(_) => Some(
                Diagnostic::new(
                    "onnxtxt::parse::unclosed_string",
                    "this string is never closed",
                    span.start..span.start + 1,
                )
                .with_help("add a closing `\"`"),
            ),
            _ => None,
        })
        .take(MAX_ERRORS)
        .collect()
}

/// Rejects bracket nesting deeper than [`MAX_NESTING`].
fn check_nesting(tokens: &[(Token<'_>, SimpleSpan)]) -> Result<(), Error> {
    let mut depth = 0usize;
    for (token, span) in tokens {
        if hints::closer_of(*token).is_some() {
            depth += 1;
            if depth > MAX_NESTING {
                return Err(Error::single(
                    "onnxtxt::parse::too_deep",
                    format!("brackets are nested more than {MAX_NESTING} deep"),
                    span.into_range(),
                ));
            }
        } else if hints::is_closer(*token) {
            depth = depth.saturating_sub(1);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::ModelProto;

    /// A model whose graphs nest as deep as [`MAX_NESTING`] allows (each
    /// level a `<` and a `{`).
    fn nested_graphs() -> String {
        let mut body = "y = Relu (x)".to_owned();
        for level in 0..(MAX_NESTING - 1) / 2 {
            body = format!(
                "y = If (c) <then_branch: graph = t{level} () => (float y) {{ {body} }}, \
                 else_branch: graph = e{level} () => (float y) {{ y = Neg (x) }}>"
            );
        }
        format!(
            "<ir_version: 8, opset_import: [\"\": 18], producer_name: \"a\", doc_string: \"b\">\n\
             g (bool c, float x) => (float y) {{ {body} }}"
        )
    }

    #[test]
    fn text_nested_as_deep_as_allowed_parses_on_a_test_threads_stack() {
        // Every grammar run, on the 2 MiB of a test thread: the recording
        // grammar (the source map, and `format`'s comments), which took
        // 83 KB a graph level in a debug build and overflowed at 30; the
        // explaining grammar on a mistake at the deepest level; the
        // language server's partial parse of a text cut short.
        let on_a_test_thread = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(|| {
                let text = nested_graphs();
                let (model, _) = crate::parse_model_with_source_map(&text).unwrap();
                assert_eq!(model, crate::parse_model(&text).unwrap());
                let formatted = crate::format(&text).unwrap();
                assert_eq!(crate::parse_model(&formatted).unwrap(), model);
                let mistake = text.replacen("y = Relu (x)", "y = Relu (x) (x)", 1);
                let error = crate::parse_model_with_source_map(&mistake).unwrap_err();
                assert_eq!(error.primary().code, "onnxtxt::parse::syntax");
                let cut = &text[..text.find("e0 ()").unwrap()];
                let partial = super::super::partial::parse_model_partial(cut);
                assert!(!partial.diagnostics.is_empty());
            })
            .unwrap();
        on_a_test_thread.join().unwrap();
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{}float{}", "seq(".repeat(5000), ")".repeat(5000));
        let error = crate::parse_type(&deep).unwrap_err();
        assert_eq!(error.primary().code, "onnxtxt::parse::too_deep");
        let within = format!(
            "{}float{}",
            "seq(".repeat(MAX_NESTING),
            ")".repeat(MAX_NESTING)
        );
        assert!(crate::parse_type(&within).is_ok());
    }

    #[test]
    fn the_quick_token_check_agrees_with_the_explaining_one() {
        let nested = |depth: usize| format!("{}x{}", "(".repeat(depth), ")".repeat(depth));
        let cases = [
            ("g (float x) => (float y) { y = Relu(x) }".to_owned(), true),
            ("<a: [1, 2]> f @<k: 1> (x)".to_owned(), true),
            (nested(MAX_NESTING), true),
            (nested(MAX_NESTING + 1), false),
            ("y = Foo(x".to_owned(), false),
            ("y = Foo(x))".to_owned(), false),
            ("y = Foo[x)".to_owned(), false),
            ("{ ( } )".to_owned(), false),
            ("y = Foo(x$)".to_owned(), false),
            ("y = Foo(\"x)".to_owned(), false),
            ("t = float[3] {1, ... 2 more}".to_owned(), false),
        ];
        for (text, expected) in &cases {
            let tokens = scan(text).0;
            assert_eq!(well_formed(&tokens), *expected, "{text}");
            assert_eq!(
                explain_malformed(&tokens, text).is_ok(),
                *expected,
                "{text}"
            );
        }
    }

    /// The depth that `check_tokens` gives counts `(`, `[` and `{`, not
    /// `<` or `@<`, outside strings and comments.
    #[test]
    fn plain_brackets_are_counted_on_the_way() {
        let cases = [
            ("g () => () { y = Relu (x) }", 2),
            ("g (float[2] x) => () <float[1] w = {1}> {}", 2),
            ("<a: [1, 2]> f @<k: [3]> (x)", 1),
            (
                "y = If (c) <then_branch: graph = t () => () { z = Relu (x) }>",
                2,
            ),
            ("y = Op (\"((\" # [[[\n)", 1),
            ("y = Op <a = [\"x\"]> ()", 1),
            ("y = Op <a = \"x\"> ()", 1),
        ];
        for (text, depth) in cases {
            let (_, found) = check_tokens(scan(text).0, text).unwrap();
            assert_eq!(found, depth, "{text}");
        }
    }

    /// What [`Brackets::walk`] gives for `symbols` (one token each), as a
    /// stack of closing characters computes it: the walk's answer, and
    /// then how many brackets are open, the deepest plain nesting and the
    /// `=` outside brackets.
    fn walked_by_a_stack(symbols: &[&str]) -> (Option<usize>, usize, usize, usize) {
        let (mut stack, mut deepest_plain, mut outer_eqs) = (Vec::new(), 0, 0);
        for (index, symbol) in symbols.iter().enumerate() {
            match *symbol {
                "(" => stack.push(")"),
                "[" => stack.push("]"),
                "{" => stack.push("}"),
                "<" | "@<" => stack.push(">"),
                ")" | "]" | "}" | ">" => match stack.pop() {
                    Some(closer) if closer == *symbol => {}
                    Some(_) => return (None, 0, 0, 0),
                    None => return (Some(index), stack.len(), deepest_plain, outer_eqs),
                },
                "=" => outer_eqs += usize::from(stack.is_empty()),
                "$" => return (None, 0, 0, 0),
                _ => {}
            }
            let plain = stack.iter().filter(|closer| **closer != ">").count();
            deepest_plain = deepest_plain.max(plain);
        }
        (Some(symbols.len()), stack.len(), deepest_plain, outer_eqs)
    }

    /// Every sequence of up to five of the tokens the walk tells apart
    /// (and a name, and one the lexer cannot read) is walked as a stack
    /// of closers walks it, and the quick check agrees with the one that
    /// explains.
    #[test]
    fn the_bracket_walk_is_a_stack_of_closers() {
        let symbols = ["(", ")", "[", "]", "{", "}", "<", ">", "@<", "=", "x", "$"];
        let mut level = vec![vec![]];
        let mut sequences = level.clone();
        for _ in 0..5 {
            level = (level.iter())
                .flat_map(|sequence| symbols.map(|s| [sequence.clone(), vec![s]].concat()))
                .collect();
            sequences.extend(level.iter().cloned());
        }
        assert_eq!(
            sequences.len(),
            (0..=5).map(|n| 12usize.pow(n)).sum::<usize>()
        );
        for sequence in &sequences {
            let text = sequence.join(" ");
            let tokens = scan(&text).0;
            assert_eq!(tokens.len(), sequence.len(), "{text}");
            let mut brackets = Brackets::default();
            let walked = brackets.walk(&tokens);
            let expected = walked_by_a_stack(sequence);
            let found = match walked {
                Some(_) => (
                    walked,
                    brackets.open(),
                    brackets.deepest_plain,
                    brackets.outer_eqs,
                ),
                None => (None, 0, 0, 0),
            };
            assert_eq!(found, expected, "{text}");
            let whole = expected.0 == Some(sequence.len()) && expected.1 == 0;
            assert_eq!(well_formed(&tokens), whole, "{text}");
            assert_eq!(explain_malformed(&tokens, &text).is_ok(), whole, "{text}");
        }
    }

    /// A parse lexes into the vector the thread kept from the one before,
    /// and reads what a thread that never parsed reads.
    #[test]
    fn parses_one_after_another_reuse_the_token_vector_and_read_the_same() {
        // On one thread: test builds read even short texts in pieces.
        let parse = |text: &str| {
            crate::Parser::new()
                .threads(false)
                .parse::<ModelProto>(text)
        };
        let texts = [
            "g (float x) => (float y) { y = Relu(x) }".to_owned(),
            format!(
                "g (float x) => (float y) {{ {} y = Relu(x) }}",
                "x = Neg(x) ".repeat(300)
            ),
            "g (float x) => (float y) { y = Relu(x$) }".to_owned(),
            "<ir_version: 8> g () => () {}".to_owned(),
        ];
        let fresh: Vec<_> = std::thread::scope(|scope| {
            (texts.iter())
                .map(|text| scope.spawn(|| parse(text)).join().unwrap())
                .collect()
        });
        for (text, fresh) in texts.iter().zip(fresh) {
            assert_eq!(format!("{:?}", parse(text)), format!("{fresh:?}"), "{text}");
            let kept = SPARE_TOKENS.take();
            assert!(
                kept.is_empty() && kept.capacity() >= first_room(text.len()),
                "{text}"
            );
            SPARE_TOKENS.set(kept);
        }
        let long = format!("g () => () {{ {} }}", "y = Relu(x) ".repeat(KEPT_TOKENS));
        parse(&long).unwrap();
        assert_eq!(
            SPARE_TOKENS.take().capacity(),
            0,
            "too long a vector to keep"
        );
    }

    #[test]
    fn lexer_errors_are_reported_with_their_place() {
        let error = crate::parse_graph("g () => (float y) { y = Foo(\"x) }").unwrap_err();
        assert_eq!(error.primary().code, "onnxtxt::parse::unclosed_string");
        assert_eq!(error.span(), 28..29);
        let error = crate::parse_node("y = Foo(x$)").unwrap_err();
        assert_eq!(error.span(), 9..10);
    }
}
