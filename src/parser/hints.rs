//! Turning parse failures into diagnostics people can act on: unclosed and
//! mismatched brackets found before parsing, names that need quotes, `->`
//! for `=>`, and "did you mean" suggestions for misspelt words.

use chumsky::span::SimpleSpan;

use crate::error::Diagnostic;
use crate::lexer::Token;

/// Separates a message from its help line inside chumsky's custom errors,
/// which carry only a string.
const HELP_SEPARATOR: char = '\u{1f}';

/// A custom error message with a help line, split again by
/// [`split_help`].
pub(crate) fn with_help(message: impl std::fmt::Display, help: impl std::fmt::Display) -> String {
    format!("{message}{HELP_SEPARATOR}{help}")
}

/// Splits a message made by [`with_help`].
pub(crate) fn split_help(message: &str) -> (&str, Option<&str>) {
    match message.split_once(HELP_SEPARATOR) {
        Some((message, help)) => (message, Some(help)),
        None => (message, None),
    }
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
        closest(word, crate::names::ELEMENT_TYPES.iter().map(|(n, _)| *n)).map(|n| format!("`{n}`"))
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
    let suggestion =
        known.or_else(|| closest(word, crate::names::ATTRIBUTE_TYPES.iter().map(|(n, _)| *n)))?;
    Some(format!("did you mean `{suggestion}`?"))
}

/// Checks that brackets pair up, before parsing, so that each unclosed or
/// stray bracket is reported once, where it is, with where it was opened.
pub(crate) fn check_delimiters(
    tokens: &[(Token<'_>, SimpleSpan)],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut open: Vec<(Token<'_>, SimpleSpan)> = Vec::new();
    for &(token, span) in tokens {
        if closer_of(token).is_some() {
            open.push((token, span));
            continue;
        }
        if !is_closer(token) {
            continue;
        }
        match open
            .iter()
            .rposition(|&(opener, _)| closer_of(opener) == Some(token))
        {
            Some(index) => {
                for &(opener, opened) in &open[index + 1..] {
                    diagnostics.push(unclosed(opener, opened, Some(span)));
                }
                open.truncate(index);
            }
            None => diagnostics.push(
                Diagnostic::new(
                    "onnxtxt::parse::unmatched_delimiter",
                    format!("{token} closes nothing"),
                    span.into_range(),
                )
                .with_help("remove it, or add the opening bracket it belongs to"),
            ),
        }
    }
    for &(opener, opened) in &open {
        diagnostics.push(unclosed(opener, opened, None));
    }
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

fn closer_of(token: Token<'_>) -> Option<Token<'static>> {
    Some(match token {
        Token::LParen => Token::RParen,
        Token::LBracket => Token::RBracket,
        Token::LBrace => Token::RBrace,
        Token::LAngle | Token::AnnotationOpen => Token::RAngle,
        _ => return None,
    })
}

fn is_closer(token: Token<'_>) -> bool {
    matches!(
        token,
        Token::RParen | Token::RBracket | Token::RBrace | Token::RAngle
    )
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

/// Adds a help line (or a better message) to a syntax diagnostic, using
/// the source text around it.
pub(crate) fn improve(diagnostic: &mut Diagnostic, source: &str) {
    let at = diagnostic.span.start;
    if source[at.min(source.len())..].starts_with("->") {
        diagnostic.message = "expected `=>` between the input and output lists, found `->`".into();
        diagnostic.span = at..at + 2;
        diagnostic.help = Some("write `=>`".into());
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
    if let Some(help) = misspelt_type_before(source, at) {
        diagnostic.message = format!("`{}` is not a type", help.0);
        diagnostic.span = help.1;
        diagnostic.help = Some(help.2);
        return;
    }
    let needs_quotes = word
        .chars()
        .any(|c| !(c.is_ascii_alphanumeric() || c == '_'))
        && word.chars().any(|c| c.is_alphanumeric())
        && word.parse::<f64>().is_err()
        && !word.contains(':');
    let is_path = word.contains("::") || word.starts_with('/') || word.contains('/');
    if diagnostic.help.is_none() && (needs_quotes || is_path) && !word.contains('.') {
        diagnostic.help = Some(format!(
            "a name that is not a plain identifier must be quoted: \"{word}\""
        ));
    } else if diagnostic.help.is_none() && (needs_quotes || is_path) {
        diagnostic.help = Some(format!(
            "if `{word}` is a name, quote it: \"{word}\" (a bare `a.b` is read as a domain and an operator)"
        ));
    }
}

/// When a syntax error is at a name that follows an identifier close to an
/// element type name (`float32 x`), the real mistake is the type.
fn misspelt_type_before(
    source: &str,
    at: usize,
) -> Option<(String, std::ops::Range<usize>, String)> {
    let at = at.min(source.len());
    if !source[at..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '"') {
        return None;
    }
    let before = source[..at].trim_end();
    // The character found may be several bytes long (`é`).
    let start = before
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| {
            i + before[i..].chars().next().map_or(1, char::len_utf8)
        });
    let word = &before[start..];
    if word.is_empty()
        || crate::names::starts_type(word)
        || word.starts_with(|c: char| c.is_ascii_digit())
    {
        return None;
    }
    let help = element_type_help(word)?;
    Some((word.to_owned(), start..start + word.len(), help))
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
            split_help(&with_help("bad", "fix it")),
            ("bad", Some("fix it"))
        );
        assert_eq!(split_help("bad"), ("bad", None));
    }
}
