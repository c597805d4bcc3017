//! The tokens of a text as the analysis reads them: owned (a kind and a
//! span, no borrowed text), with the questions asked of them: which token
//! is at an offset, which bracket encloses it, which token comes before.

use std::ops::Range;

use crate::lexer::{scan, Token};

/// What a token is, to the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lex {
    /// An identifier (keywords are identifiers too).
    Ident,
    /// A quoted string, `"..."` or `b"..."`.
    Quoted,
    /// An integer or float, or a whole `{...}` list of numbers.
    Number,
    /// An opening bracket: `(`, `[`, `{`, `<` or `@<`.
    Open(Bracket),
    /// A closing bracket.
    Close(Bracket),
    /// `@`, before an attribute reference.
    At,
    /// `=>`
    Arrow,
    /// `=`
    Eq,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `.`
    Dot,
    /// Anything else (`?`, `-`, `->`, text that is not a token, ...).
    Other,
}

/// The kinds of brackets; `@<` opens an [`Bracket::Annotation`], closed
/// by `>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bracket {
    Paren,
    Square,
    Brace,
    Angle,
    Annotation,
}

impl Bracket {
    fn closes(self, other: Bracket) -> bool {
        self == other || (self == Bracket::Angle && other == Bracket::Annotation)
    }
}

/// A token: its kind and span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lexeme {
    pub lex: Lex,
    pub span: Range<usize>,
}

impl Lexeme {
    /// Whether it can be a name: an identifier or a quoted string.
    pub fn is_name(&self) -> bool {
        matches!(self.lex, Lex::Ident | Lex::Quoted)
    }
}

fn lex_of(token: Token<'_>) -> Lex {
    match token {
        Token::Ident(_) => Lex::Ident,
        Token::Str(_) | Token::Bytes(_) | Token::UnclosedString(_) => Lex::Quoted,
        Token::Int(_) | Token::Float(_) | Token::Numbers(_) => Lex::Number,
        Token::LParen => Lex::Open(Bracket::Paren),
        Token::LBracket => Lex::Open(Bracket::Square),
        Token::LBrace => Lex::Open(Bracket::Brace),
        Token::LAngle => Lex::Open(Bracket::Angle),
        Token::AnnotationOpen => Lex::Open(Bracket::Annotation),
        Token::RParen => Lex::Close(Bracket::Paren),
        Token::RBracket => Lex::Close(Bracket::Square),
        Token::RBrace => Lex::Close(Bracket::Brace),
        Token::RAngle => Lex::Close(Bracket::Angle),
        Token::At => Lex::At,
        Token::Arrow => Lex::Arrow,
        Token::Eq => Lex::Eq,
        Token::Comma => Lex::Comma,
        Token::Colon => Lex::Colon,
        Token::Dot => Lex::Dot,
        _ => Lex::Other,
    }
}

/// The tokens and comments of a text.
#[derive(Debug, Default)]
pub(crate) struct Lexemes {
    pub tokens: Vec<Lexeme>,
    pub comments: Vec<Range<usize>>,
}

impl Lexemes {
    /// Lexes `text`.
    pub fn new(text: &str) -> Self {
        let (tokens, comments) = scan(text);
        let tokens = tokens
            .into_iter()
            .map(|(token, span)| Lexeme {
                lex: lex_of(token),
                span: span.into_range(),
            })
            .collect();
        Lexemes { tokens, comments }
    }

    /// The index of the first token that ends at or after `offset`.
    fn first_ending_from(&self, offset: usize) -> usize {
        self.tokens.partition_point(|t| t.span.end < offset)
    }

    /// The name token (identifier or string) that `offset` is in or just
    /// after (a cursor at the end of a word is on it), by index.
    pub fn name_at(&self, offset: usize) -> Option<usize> {
        let first = self.first_ending_from(offset);
        (first..first + 2).find(|&i| {
            self.tokens
                .get(i)
                .is_some_and(|t| t.is_name() && t.span.start <= offset && offset <= t.span.end)
        })
    }

    /// The index of the last token that ends at or before `offset`.
    pub fn before(&self, offset: usize) -> Option<usize> {
        self.tokens
            .partition_point(|t| t.span.end <= offset)
            .checked_sub(1)
    }

    /// The opening bracket that encloses token `index` (or, with `index`
    /// the number of tokens, the end of the text): the innermost one
    /// opened before it and not closed before it, by index.
    pub fn enclosing(&self, index: usize) -> Option<usize> {
        let mut closed: Vec<Bracket> = Vec::new();
        for i in (0..index.min(self.tokens.len())).rev() {
            match self.tokens[i].lex {
                Lex::Close(bracket) => closed.push(bracket),
                Lex::Open(bracket) => match closed.last() {
                    Some(&last) if last.closes(bracket) => {
                        closed.pop();
                    }
                    // A closer that closes something else: the text does
                    // not pair up here; count the opener as closed.
                    Some(_) => {
                        closed.pop();
                    }
                    None => return Some(i),
                },
                _ => {}
            }
        }
        None
    }

    /// The index of the bracket that token `index`, a closer, closes.
    pub fn opener_of(&self, index: usize) -> Option<usize> {
        let mut depth = 0usize;
        for i in (0..index).rev() {
            match self.tokens[i].lex {
                Lex::Close(_) => depth += 1,
                Lex::Open(_) if depth == 0 => return Some(i),
                Lex::Open(_) => depth -= 1,
                _ => {}
            }
        }
        None
    }

    /// The index of the closer of the bracket at token `index`.
    pub fn closer_of(&self, index: usize) -> Option<usize> {
        let mut depth = 0usize;
        for (i, token) in self.tokens.iter().enumerate().skip(index + 1) {
            match token.lex {
                Lex::Open(_) => depth += 1,
                Lex::Close(_) if depth == 0 => return Some(i),
                Lex::Close(_) => depth -= 1,
                _ => {}
            }
        }
        None
    }

    /// The tokens within `span`, by index.
    pub fn within(&self, span: &Range<usize>) -> Range<usize> {
        let start = self.tokens.partition_point(|t| t.span.start < span.start);
        let end = self.tokens.partition_point(|t| t.span.end <= span.end);
        start..end.max(start)
    }

    /// The lex of token `index`, if there is one.
    pub fn lex(&self, index: usize) -> Option<Lex> {
        self.tokens.get(index).map(|t| t.lex)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enclosing_brackets() {
        let text = "g (x) => (y) { y = Op <a = [1, 2]> (x, ";
        let lexemes = Lexemes::new(text);
        let end = lexemes.tokens.len();
        let open = lexemes.enclosing(end).unwrap();
        assert_eq!(lexemes.tokens[open].span.start, text.rfind('(').unwrap());
        let brace = lexemes.enclosing(open).unwrap();
        assert_eq!(lexemes.tokens[brace].lex, Lex::Open(Bracket::Brace));
        assert_eq!(lexemes.enclosing(brace), None);
    }

    #[test]
    fn names_at_offsets() {
        let text = "y = Relu(xy)";
        let lexemes = Lexemes::new(text);
        let at = |offset| {
            lexemes
                .name_at(offset)
                .map(|i| &text[lexemes.tokens[i].span.clone()])
        };
        assert_eq!(at(0), Some("y"));
        assert_eq!(at(1), Some("y"));
        assert_eq!(at(2), None);
        assert_eq!(at(9), Some("xy"));
        assert_eq!(at(11), Some("xy"));
        assert_eq!(at(12), None);
    }
}
