//! Turning parse failures into diagnostics people can act on: unclosed and
//! mismatched brackets found before parsing, names that need quotes, `->`
//! for `=>`, and "did you mean" suggestions for misspelt words.

use chumsky::span::SimpleSpan;

use super::errors::FirstErrors;
use crate::error::Diagnostic;
use crate::lexer::Token;
use crate::vocabulary::{MAP, OPTIONAL, SEQ, SPARSE_TENSOR};

/// Separates a message from its help line inside chumsky's custom errors,
/// which carry only a string.
const HELP_SEPARATOR: char = '\u{1f}';

/// Ends the code that may start a custom error's string.
const CODE_SEPARATOR: char = '\u{1e}';

/// Open and close a span quoted by [`quote`].
const QUOTE: (char, char) = ('\u{2}', '\u{3}');

/// A custom error message with a help line, split again by
/// [`split_custom`].
pub(crate) fn with_help(message: impl std::fmt::Display, help: impl std::fmt::Display) -> String {
    format!("{message}{HELP_SEPARATOR}{help}")
}

/// The codes of the diagnostics the grammar reports through
/// [`encode`] (a custom error carries its code as text, which is mapped
/// back to one of these).
const EMITTED_CODES: &[&str] = &[
    "onnxtxt::parse::annotation",
    "onnxtxt::parse::header_value",
    "onnxtxt::parse::unknown_annotation",
    "onnxtxt::parse::unknown_header_key",
];

/// The code named `code`, if it is one the grammar emits.
pub(crate) fn emitted_code(code: &str) -> Option<&'static str> {
    EMITTED_CODES.iter().copied().find(|&c| c == code)
}

/// A whole diagnostic as the string of a custom error, split again by
/// [`split_custom`]; its labels are dropped.
pub(crate) fn encode(diagnostic: Diagnostic) -> String {
    debug_assert!(
        emitted_code(diagnostic.code).is_some(),
        "{} is missing from EMITTED_CODES",
        diagnostic.code
    );
    let message = format!("{}{CODE_SEPARATOR}{}", diagnostic.code, diagnostic.message);
    match diagnostic.help {
        Some(help) => with_help(message, help),
        None => message,
    }
}

/// Splits the string of a custom error into its code (if it has one),
/// message and help line.
pub(crate) fn split_custom(text: &str) -> (Option<&str>, &str, Option<&str>) {
    let (code, rest) = match text.split_once(CODE_SEPARATOR) {
        Some((code, rest)) => (Some(code), rest),
        None => (None, text),
    };
    match rest.split_once(HELP_SEPARATOR) {
        Some((message, help)) => (code, message, Some(help)),
        None => (code, rest, None),
    }
}

/// Stands for the source text of `span` in a help line written where only
/// spans are known (inside the grammar); [`improve`] puts the text in.
pub(crate) fn quote(span: SimpleSpan) -> String {
    format!("{}{}..{}{}", QUOTE.0, span.start, span.end, QUOTE.1)
}

/// Replaces what [`quote`] made with the quoted text.
fn unquote(text: &str, source: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((before, after)) = rest.split_once(QUOTE.0) {
        out.push_str(before);
        let (range, after) = after.split_once(QUOTE.1).unwrap_or((after, ""));
        let quoted = range
            .split_once("..")
            .and_then(|(a, b)| Some(a.parse::<usize>().ok()?..b.parse::<usize>().ok()?))
            .and_then(|range| source.get(range));
        out.push_str(quoted.unwrap_or_default());
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The candidate closest to `word`, if it is close enough to be a likely
/// misspelling.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (word.len() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| {
            (
                strsim::damerau_levenshtein(&word.to_ascii_lowercase(), c),
                c,
            )
        })
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, c)| c)
}

/// "did you mean" help for a word that is not an element type.
pub(crate) fn element_type_help(word: &str) -> Option<String> {
    let known = match word {
        "int" | "integer" => Some("`int32` or `int64`"),
        "float32" | "f32" | "real" => Some("`float`"),
        "float64" | "f64" => Some("`double`"),
        "boolean" => Some("`bool`"),
        "str" => Some("`string`"),
        "half" | "fp16" => Some("`float16`"),
        _ => None,
    };
    let suggestion = known.map(str::to_owned).or_else(|| {
        closest(
            word,
            crate::vocabulary::ELEMENT_TYPES.iter().map(|(n, _)| *n),
        )
        .map(|n| format!("`{n}`"))
    })?;
    Some(format!("did you mean {suggestion}?"))
}

/// "did you mean" help for a word that is not an attribute type.
pub(crate) fn attribute_type_help(word: &str) -> Option<String> {
    let known = match word {
        "integer" | "int64" | "int32" => Some("int"),
        "integers" => Some("ints"),
        "float32" | "double" => Some("float"),
        "str" => Some("string"),
        _ => None,
    };
    let suggestion = known.or_else(|| {
        closest(
            word,
            crate::vocabulary::ATTRIBUTE_TYPES.iter().map(|(n, _)| *n),
        )
    })?;
    Some(format!("did you mean `{suggestion}`?"))
}

/// Checks that brackets pair up, before parsing, so that each unclosed or
/// stray bracket is reported once, where it is, with where it was opened.
/// Linear in the tokens: a closer is looked for among the open brackets
/// only when one of its kind is open.
pub(crate) fn check_delimiters(
    tokens: &[(Token<'_>, SimpleSpan)],
    source: &str,
    diagnostics: &mut FirstErrors,
) {
    // The open brackets, by their index in `tokens`, innermost last.
    let mut open: Vec<usize> = Vec::new();
    // How many brackets are open, by their closer.
    let mut open_by_closer: foldhash::HashMap<Token<'_>, usize> = Default::default();
    for (index, &(token, span)) in tokens.iter().enumerate() {
        if let Some(closer) = closer_of(token) {
            open.push(index);
            *open_by_closer.entry(closer).or_default() += 1;
            continue;
        }
        if !is_closer(token) {
            continue;
        }
        let position = match open_by_closer.get(&token) {
            Some(&n) if n > 0 => open
                .iter()
                .rposition(|&i| closer_of(tokens[i].0) == Some(token)),
            _ => None,
        };
        match position {
            Some(position) => {
                for (n, i) in open.drain(position..).enumerate() {
                    let (opener, opened) = tokens[i];
                    if let Some(count) = closer_of(opener).and_then(|c| open_by_closer.get_mut(&c))
                    {
                        *count -= 1;
                    }
                    if n > 0 && diagnostics.wants(opened.start) {
                        diagnostics.push(unclosed(opener, opened, Some(span)));
                    }
                }
            }
            None if diagnostics.wants(span.start) => diagnostics.push(
                Diagnostic::new(
                    "onnxtxt::parse::unmatched_delimiter",
                    format!("{token} closes nothing"),
                    span.into_range(),
                )
                .with_help("remove it, or add the opening bracket it belongs to"),
            ),
            None => {}
        }
    }
    // The brackets left open are in the order of the text: only the first
    // of them can be reported, and only those are worth a guess. The last
    // token shows where the text ends, still missing the closer.
    if open.is_empty() {
        return;
    }
    let line_starts = LineStarts::new(tokens, source);
    let last = tokens.last().map(|&(_, span)| span.into_range());
    for &index in open.iter().take(super::MAX_ERRORS) {
        let (opener, opened) = tokens[index];
        if diagnostics.wants(opened.start) {
            let end = line_starts.likely_end(tokens, index, source);
            let mut diagnostic = unclosed(opener, opened, end);
            if let Some(last) = last.clone().filter(|last| last.start > opened.start) {
                let closer = closer_of(opener).map(|t| t.to_string()).unwrap_or_default();
                diagnostic =
                    diagnostic.with_label(last, format!("the text ends here, without {closer}"));
            }
            diagnostics.push(diagnostic);
        }
    }
}

/// The tokens that start a line and could end an unclosed bracket before
/// them (the token before is not a `,` or an opening bracket, which ask
/// for more), with their indentation: found once for every guess.
struct LineStarts(Vec<(usize, usize)>);

impl LineStarts {
    fn new(tokens: &[(Token<'_>, SimpleSpan)], source: &str) -> Self {
        let starts = tokens.windows(2).enumerate().filter_map(|(i, pair)| {
            let [(before, before_span), (_, span)] = [pair[0], pair[1]];
            let starts_line = source[before_span.end..span.start].contains('\n');
            let continues = before == Token::Comma || closer_of(before).is_some();
            (starts_line && !continues).then(|| (i + 1, indent(source, span.start)))
        });
        LineStarts(starts.collect())
    }

    /// Where the bracket at `index` that is never closed was probably
    /// meant to be closed: before the first later token that starts a line
    /// indented no deeper than the bracket's own line. Not guessed for
    /// `{`, whose content usually stands on lines of its own.
    fn likely_end(
        &self,
        tokens: &[(Token<'_>, SimpleSpan)],
        index: usize,
        source: &str,
    ) -> Option<SimpleSpan> {
        let (opener, opened) = tokens[index];
        if opener == Token::LBrace {
            return None;
        }
        let limit = indent(source, opened.start);
        let later = self.0.partition_point(|&(i, _)| i <= index);
        let (end, _) = self.0[later..].iter().find(|&&(_, n)| n <= limit)?;
        Some(tokens[*end].1)
    }
}

/// The indentation of the line byte `at` of `source` is on.
fn indent(source: &str, at: usize) -> usize {
    let line = &source[source[..at].rfind('\n').map_or(0, |i| i + 1)..];
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

fn unclosed(opener: Token<'_>, opened: SimpleSpan, closed_by: Option<SimpleSpan>) -> Diagnostic {
    let closer = closer_of(opener).map(|t| t.to_string()).unwrap_or_default();
    let diagnostic = Diagnostic::new(
        "onnxtxt::parse::unclosed_delimiter",
        format!("{opener} is never closed"),
        opened.into_range(),
    )
    .with_help(format!("add {closer}"));
    match closed_by {
        Some(span) => {
            diagnostic.with_label(span.into_range(), format!("expected {closer} before this"))
        }
        None => diagnostic,
    }
}

pub(crate) fn closer_of(token: Token<'_>) -> Option<Token<'static>> {
    Some(match token {
        Token::LParen => Token::RParen,
        Token::LBracket => Token::RBracket,
        Token::LBrace => Token::RBrace,
        Token::LAngle | Token::AnnotationOpen => Token::RAngle,
        _ => return None,
    })
}

pub(crate) fn is_closer(token: Token<'_>) -> bool {
    matches!(
        token,
        Token::RParen | Token::RBracket | Token::RBrace | Token::RAngle
    )
}

/// The diagnostic for the marker `print --elide` leaves in place of the
/// values it did not print (`... 997 more`).
pub(crate) fn elided(span: std::ops::Range<usize>) -> Diagnostic {
    Diagnostic::new(
        "onnxtxt::parse::elided",
        "values were elided by `print --elide`; this text cannot be parsed back into a model",
        span,
    )
    .with_help("print the model without --elide")
}

/// Characters that end a name-like word in the source.
fn ends_word(c: char) -> bool {
    c.is_whitespace() || "(),[]{}<>=\"@#".contains(c)
}

/// The word around byte `at`: what a person would see as one name.
fn word_at(source: &str, at: usize) -> &str {
    let at = at.min(source.len());
    let start = source[..at].rfind(ends_word).map_or(0, |i| {
        i + source[i..].chars().next().map_or(1, char::len_utf8)
    });
    let end = source[at..]
        .find(ends_word)
        .map_or(source.len(), |i| at + i);
    &source[start..end.max(start)]
}

/// A better message, span or help line for a diagnostic, from the source
/// text around it.
#[derive(Default)]
struct Rewrite {
    message: Option<String>,
    span: Option<std::ops::Range<usize>>,
    help: Option<String>,
}

impl Rewrite {
    fn help(help: impl Into<String>) -> Option<Self> {
        Some(Rewrite {
            help: Some(help.into()),
            ..Rewrite::default()
        })
    }

    fn new(message: impl Into<String>, help: impl Into<String>) -> Option<Self> {
        Some(Rewrite {
            message: Some(message.into()),
            help: Some(help.into()),
            ..Rewrite::default()
        })
    }

    fn at(mut self, span: std::ops::Range<usize>) -> Self {
        self.span = Some(span);
        self
    }
}

/// Adds a help line (or a better message) to a diagnostic, using the
/// source text around it, and puts the text of [`quote`]d spans in.
pub(crate) fn improve(diagnostic: &mut Diagnostic, source: &str) {
    diagnostic.message = unquote(&diagnostic.message, source);
    diagnostic.help = diagnostic.help.take().map(|help| unquote(&help, source));
    let at = diagnostic.span.start.min(source.len());
    if let Some(rewrite) = known_mistake(diagnostic, source, at) {
        if let Some(message) = rewrite.message {
            diagnostic.message = message;
        }
        if let Some(span) = rewrite.span {
            diagnostic.span = span;
        }
        diagnostic.help = rewrite.help.or(diagnostic.help.take());
        return;
    }
    // Suggestions are computed here, once per reported error, not while
    // the parser tries alternatives.
    if diagnostic.help.is_none() {
        let named = |suffix: &str| {
            diagnostic
                .message
                .strip_suffix(suffix)
                .and_then(|m| m.strip_prefix('`'))
                .and_then(|m| m.strip_suffix('`'))
        };
        if let Some(word) = named(" is not an element type") {
            diagnostic.help = element_type_help(word);
        } else if let Some(word) = named(" is not an attribute type") {
            diagnostic.help = attribute_type_help(word);
        }
    }
    let word = word_at(source, at);
    let needs_quotes = word
        .chars()
        .any(|c| !(c.is_ascii_alphanumeric() || c == '_'))
        && word.chars().any(|c| c.is_alphanumeric())
        && word.parse::<f64>().is_err()
        && !word.contains(':');
    let is_path = word.contains("::") || word.starts_with('/') || word.contains('/');
    let digit_first = word.starts_with(|c: char| c.is_ascii_digit())
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && word.parse::<f64>().is_err();
    if diagnostic.help.is_some() {
        return;
    }
    if digit_first {
        diagnostic.help = Some(format!(
            "a name that starts with a digit must be quoted: \"{word}\""
        ));
    } else if (needs_quotes || is_path) && !word.contains('.') {
        diagnostic.help = Some(format!(
            "a name that is not a plain identifier must be quoted: \"{word}\""
        ));
    } else if needs_quotes || is_path {
        diagnostic.help = Some(format!(
            "if `{word}` is a name, quote it: \"{word}\" (a bare `a.b` is read as a domain and an operator)"
        ));
    }
}

/// Mistakes recognised by what the text around a syntax error looks like.
fn known_mistake(diagnostic: &Diagnostic, source: &str, at: usize) -> Option<Rewrite> {
    let rest = &source[at..];
    let message = diagnostic.message.as_str();
    if rest.starts_with("->") {
        return Some(
            Rewrite::new(
                "expected `=>` between the input and output lists, found `->`",
                "write `=>`",
            )?
            .at(at..at + 2),
        );
    }
    if diagnostic.code == "onnxtxt::parse::character" {
        return character_mistake(rest, at);
    }
    if let Some(rewrite) = misspelt_type_before(source, at) {
        return Some(rewrite);
    }
    if diagnostic.code != "onnxtxt::parse::syntax" {
        return None;
    }
    let (before, before_start) = word_before(source, at);
    if rest.starts_with('[') && [SEQ, OPTIONAL, MAP, SPARSE_TENSOR].contains(&before) {
        let inner = group_inner(rest)?;
        return Rewrite::help(format!(
            "`{before}` takes its element type in parentheses: `{before}({inner})`"
        ));
    }
    if message.contains("an attribute list") {
        if rest.starts_with('{') {
            let inner = group_inner(rest).filter(|inner| inner.contains('='))?;
            return Rewrite::new(
                "attributes are written in `<...>`, not in `{...}`",
                format!("write `<{inner}>`"),
            );
        }
        let input = word_at(source, at);
        if !input.is_empty() && !before.is_empty() {
            return Rewrite::help(format!(
                "a node's inputs are written in parentheses after the operator: `{before}({input})`"
            ));
        }
    }
    let number = word_at(source, at).parse::<f64>().is_ok();
    if number && message.starts_with("expected") && message.contains("a name") {
        return Rewrite::help(
            "a node input must name a value; for a constant, declare an initializer \
             (e.g. `<float[1] c = {1.0}>` after the graph's outputs) or use a `Constant` node",
        );
    }
    if message.starts_with("expected a graph, found `(`") {
        return Rewrite::new(
            "a graph needs a name before its input list",
            "write a name first, e.g. `main (...) => (...) {...}`",
        );
    }
    if message.contains("a key") && rest.starts_with('"') && source[..before_start].ends_with('{') {
        let open = source[..before_start].len() - 1;
        let inner = group_inner(&source[open..])?;
        return Rewrite::new(
            "a `{...}` value holds fields named by identifiers, not by strings",
            format!("a list of pairs with string keys is written in square brackets: `[{inner}]`"),
        );
    }
    None
}

/// Mistakes in characters the lexer could not read; `rest` is the text
/// from `at` on.
fn character_mistake(rest: &str, at: usize) -> Option<Rewrite> {
    if let Some(quoted) = rest.strip_prefix('\'') {
        let line = quoted.split('\n').next().unwrap_or_default();
        let inner = line.split('\'').next().unwrap_or_default();
        return Rewrite::new(
            "single quotes do not quote anything",
            format!("strings and quoted names use double quotes: \"{inner}\""),
        );
    }
    if rest.starts_with("//") || rest.starts_with("/*") {
        return Rewrite::new(
            format!("`{}` does not start a comment", &rest[..2]),
            "a comment starts with `#` and runs to the end of the line",
        )
        .map(|r| r.at(at..at + 2));
    }
    if rest.starts_with(';') {
        return Rewrite::help("nodes and list items are not ended by `;`: remove it");
    }
    None
}

/// The word that ends just before `at` (blanks skipped), and where it
/// starts; empty after a bracket or other punctuation.
fn word_before(source: &str, at: usize) -> (&str, usize) {
    let before = source[..at].trim_end();
    let start = before
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| {
            i + before[i..].chars().next().map_or(1, char::len_utf8)
        });
    (&before[start..], start)
}

/// The text inside the bracketed group that `text` starts with.
fn group_inner(text: &str) -> Option<&str> {
    let open = text.chars().next()?;
    let close = match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        _ => return None,
    };
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(&text[1..i]);
            }
        }
    }
    None
}

/// When a syntax error is at a name or a `[` that follows an identifier
/// close to an element type name (`float32 x`, `float32[N]`), the real
/// mistake is the type; after a `:`, a `[` follows an attribute type
/// (`axes: int[]`).
fn misspelt_type_before(source: &str, at: usize) -> Option<Rewrite> {
    let rest = &source[at..];
    let shape = rest.starts_with('[');
    if !(shape || rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '"')) {
        return None;
    }
    let (word, start) = word_before(source, at);
    if word.is_empty() || word.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if shape && source[..start].trim_end().ends_with(':') {
        let list = crate::vocabulary::ATTRIBUTE_TYPES
            .iter()
            .map(|(name, _)| *name)
            .find(|name| name.strip_suffix('s') == Some(word))?;
        let brackets = group_inner(rest)?.len() + 2;
        return Some(
            Rewrite::new(
                format!("`{word}{}` is not an attribute type", &rest[..brackets]),
                format!("a list of `{word}` is declared `{list}`"),
            )?
            .at(start..at + brackets),
        );
    }
    if crate::vocabulary::starts_type(word) {
        return None;
    }
    Some(
        Rewrite::new(format!("`{word}` is not a type"), element_type_help(word)?)?
            .at(start..start + word.len()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            element_type_help("float32").as_deref(),
            Some("did you mean `float`?")
        );
        assert_eq!(
            element_type_help("int").as_deref(),
            Some("did you mean `int32` or `int64`?")
        );
        assert_eq!(
            element_type_help("unit8").as_deref(),
            Some("did you mean `uint8`?")
        );
        assert_eq!(
            attribute_type_help("integer").as_deref(),
            Some("did you mean `int`?")
        );
        assert_eq!(
            attribute_type_help("flaots").as_deref(),
            Some("did you mean `floats`?")
        );
        assert_eq!(
            closest("ir_versoin", ["ir_version", "domain"]),
            Some("ir_version")
        );
        assert_eq!(closest("zzz", ["ir_version"]), None);
    }

    #[test]
    fn words_around_a_position() {
        assert_eq!(word_at("y = Add(/a/b, c)", 8), "/a/b");
        assert_eq!(word_at("(onnx::Add_12)", 5), "onnx::Add_12");
    }

    #[test]
    fn help_travels_inside_a_message() {
        assert_eq!(
            split_custom(&with_help("bad", "fix it")),
            (None, "bad", Some("fix it"))
        );
        assert_eq!(split_custom("bad"), (None, "bad", None));
        let coded = encode(Diagnostic::new("onnxtxt::parse::header_value", "bad", 0..1));
        assert_eq!(
            split_custom(&coded),
            (Some("onnxtxt::parse::header_value"), "bad", None)
        );
    }

    #[test]
    fn help_quotes_the_source() {
        let help = format!("write `{}`", quote(SimpleSpan::from(4..7)));
        assert_eq!(unquote(&help, "one two three"), "write `two`");
    }
}
