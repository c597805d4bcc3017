//! The parser: tokens from [`crate::lexer`] to the IR in [`crate::proto`].
//!
//! The grammar is written with `chumsky` over the token slice, one file per
//! group of productions (named as in `grammar/onnxtxt.ebnf`):
//!
//! | file | productions |
//! |---|---|
//! | `common.rs` | identifiers, strings, integers, id lists |
//! | `types.rs` | types and shapes |
//! | `tensor.rs` | tensor constants, their values, sparse constants |
//! | `attribute.rs` | attributes and attribute values |
//! | `node.rs` | nodes and node lists |
//! | `plain/` | the common forms of model, graph and node, read token by token first |
//! | `pieces.rs` | a long node list lexed and read in pieces, on two threads |
//! | `graph.rs` | value infos, graphs, functions, models, headers |
//! | `value.rs` | `key: value` entries of headers and annotations |
//! | `annotation.rs` | what annotation keys mean for each construct |
//!
//! `recovery.rs` keeps parsing after a syntax error so that one run reports
//! every independent mistake; `hints.rs` turns failures into diagnostics
//! that say how to fix them.
//!
//! Productions that need each other (a graph holds nodes, whose attributes
//! hold graphs) are tied together in [`Grammar::new`]. Nothing here
//! recurses on the Rust stack without bound: [`check_nesting`] rejects text
//! nested deeper than [`MAX_NESTING`] before the grammar runs.

// Diagnostics are built only when parsing fails, so returning them by value
// (instead of boxed) costs nothing on the hot path.
#![allow(clippy::result_large_err)]

pub(crate) mod annotation;
mod attribute;
mod common;
mod graph;
mod hints;
mod landmarks;
mod node;
mod pieces;
mod plain;
mod recovery;
mod tensor;
mod types;
mod value;

use chumsky::input::ValueInput;
use chumsky::prelude::*;
// The name `Parser` is ours (the options); the trait is used by its methods.
use chumsky::Parser as _;

use crate::error::{Diagnostic, Error};
use crate::lexer::{scan, SpannedTokens, Token};
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, TensorProto, TypeProto,
    ValueInfoProto,
};
pub use landmarks::SourceMap;

/// The deepest bracket nesting accepted. Protobuf decoders (prost, and the
/// C++ library by default) refuse messages nested more than 100 deep; a
/// bracket level of the text costs at most about two message levels
/// (`seq(` is a TypeProto inside a Sequence), a subgraph about three
/// messages for two brackets, so anything within this limit that prints
/// from a decodable model also parses back.
pub const MAX_NESTING: usize = 100;

/// The errors that one parse reports at most.
const MAX_ERRORS: usize = 50;

/// The chumsky setup: errors of type `E` (see [`Fail`]) over our tokens,
/// with a [`State`].
pub(crate) type Extra<E> = extra::Full<E, State, ()>;

/// The parser state: the landmarks that map IR items to their spans, and
/// the nodes of a long node list read in pieces.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) landmarks: landmarks::Landmarks,
    pub(crate) splice: pieces::Splice,
    /// How many nodes the node run of a piece has, as counted before
    /// reading it, so that their vector is made once (see `pieces`).
    pub(crate) run_nodes: usize,
}

impl State {
    /// A state that records landmarks.
    fn recording() -> Self {
        State {
            landmarks: landmarks::Landmarks::recording(),
            ..State::default()
        }
    }
}

impl<'s, I: chumsky::input::Input<'s>> chumsky::inspector::Inspector<'s, I> for State {
    type Checkpoint = <landmarks::Landmarks as chumsky::inspector::Inspector<'s, I>>::Checkpoint;

    #[inline(always)]
    fn on_token(&mut self, token: &I::Token) {
        chumsky::inspector::Inspector::<I>::on_token(&mut self.landmarks, token);
    }

    #[inline(always)]
    fn on_save<'p>(&self, cursor: &chumsky::input::Cursor<'s, 'p, I>) -> Self::Checkpoint {
        self.landmarks.on_save(cursor)
    }

    #[inline(always)]
    fn on_rewind<'p>(
        &mut self,
        checkpoint: &chumsky::input::Checkpoint<'s, 'p, I, Self::Checkpoint>,
    ) {
        self.landmarks.on_rewind(checkpoint);
    }
}

/// An error that can carry a message of our own, from outside chumsky's
/// expected/found vocabulary (an integer out of range, a bad annotation).
pub(crate) trait CustomError {
    /// An error at `span` that says `message`.
    fn custom(span: SimpleSpan, message: impl ToString) -> Self;
}

/// What the grammar reports where the text does not parse. Every parse
/// runs first with [`EmptyErr`], which records nothing: on valid text the
/// grammar tries and drops thousands of alternatives, and building a
/// [`Rich`] error for each (what was expected, what was found) was the
/// larger part of the parse time. Only text that fails is parsed again,
/// with [`Rich`] errors, to explain why (see [`parse_twice`]).
pub(crate) trait Fail<'t, I: chumsky::input::Input<'t>>:
    chumsky::error::Error<'t, I>
    + chumsky::label::LabelError<'t, I, &'static str>
    + chumsky::label::LabelError<'t, I, chumsky::error::RichPattern<'t, I::Token>>
    + CustomError
    + 't
{
}

impl<'t, 's: 't, I: Tokens<'t, 's>, E> Fail<'t, I> for E where
    E: chumsky::error::Error<'t, I>
        + chumsky::label::LabelError<'t, I, &'static str>
        + chumsky::label::LabelError<'t, I, chumsky::error::RichPattern<'t, I::Token>>
        + CustomError
        + 't
{
}

/// A message, and where it applies when that is known: a [`CustomError`]
/// for work outside the grammar, which can cross threads.
pub(crate) type Problem = (String, Option<SimpleSpan>);

impl CustomError for Problem {
    fn custom(span: SimpleSpan, message: impl ToString) -> Self {
        (message.to_string(), Some(span))
    }
}

impl CustomError for EmptyErr {
    fn custom(_: SimpleSpan, _: impl ToString) -> Self {
        EmptyErr::default()
    }
}

impl<'t, 's> CustomError for Rich<'t, Token<'s>> {
    fn custom(span: SimpleSpan, message: impl ToString) -> Self {
        Rich::custom(span, message)
    }
}

/// The input every production reads: tokens with byte spans.
pub(crate) trait Tokens<'t, 's: 't>:
    ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>
{
}

impl<'t, 's: 't, I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>> Tokens<'t, 's> for I {}

/// A boxed production, the unit the grammar is assembled from.
pub(crate) type Parsed<'t, I, E, O> = Boxed<'t, 't, I, O, Extra<E>>;

/// Reports a diagnostic from outside the grammar (e.g. an annotation) as a
/// parse error at its span.
pub(crate) fn emit_diagnostic<E: CustomError>(
    emitter: &mut chumsky::input::Emitter<E>,
    diagnostic: Diagnostic,
) {
    let span = SimpleSpan::from(diagnostic.span.clone());
    emitter.emit(E::custom(span, hints::encode(diagnostic)));
}

/// Every entry point of the grammar.
struct Grammar<'t, I: chumsky::input::Input<'t>, E: Fail<'t, I>> {
    model: Parsed<'t, I, E, ModelProto>,
    graph: Parsed<'t, I, E, GraphProto>,
    function: Parsed<'t, I, E, FunctionProto>,
    node: Parsed<'t, I, E, NodeProto>,
    nodes: Parsed<'t, I, E, Vec<NodeProto>>,
    /// Nodes up to the end of the input, with no braces: a piece of a
    /// long node list (see [`pieces`]).
    node_run: Parsed<'t, I, E, Vec<NodeProto>>,
    ty: Parsed<'t, I, E, TypeProto>,
    tensor: Parsed<'t, I, E, TensorProto>,
    attribute: Parsed<'t, I, E, AttributeProto>,
    value_info: Parsed<'t, I, E, ValueInfoProto>,
}

impl<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>> Grammar<'t, I, E> {
    /// Ties the productions together. Graphs hold attributes that hold
    /// graphs, and annotations hold values that hold annotations: both
    /// loops are made with `recursive`, whose inner handles are weak, so
    /// the grammar is freed when dropped (`Recursive::declare` would make
    /// a reference cycle, leaking the grammar on every call). The
    /// productions built inside the closure hold those weak handles: use
    /// them only while the `Grammar` lives.
    fn new() -> Self {
        let ty = types::type_proto();
        let mut parts = None;
        let graph = recursive(|graph| {
            let graph = graph.boxed();
            let annotation = recursive(|annotation| {
                let annotation = annotation.boxed();
                let tensor = tensor::tensor_constant(ty.clone(), annotation.clone());
                let sparse = tensor::sparse_constant(tensor, annotation.clone());
                let value = value::value(ty.clone(), graph.clone(), sparse, annotation);
                landmarks::landmark(
                    landmarks::Kind::Annotation,
                    value::entries(Token::AnnotationOpen, value),
                )
            })
            .boxed();
            let tensor = tensor::tensor_constant(ty.clone(), annotation.clone());
            let sparse = tensor::sparse_constant(tensor.clone(), annotation.clone());
            let value = value::value(
                ty.clone(),
                graph.clone(),
                sparse.clone(),
                annotation.clone(),
            );
            let header = value::entries(Token::LAngle, value.clone()).boxed();
            let single =
                attribute::single_value(ty.clone(), graph.clone(), sparse, annotation.clone());
            let written = attribute::written_value(single).boxed();
            let attribute = attribute::attribute(written.clone(), annotation.clone());
            let node = node::node(attribute.clone(), annotation.clone());
            let handoff = plain::Handoff {
                ty: ty.clone(),
                header_value: value,
                attribute_value: written.clone(),
                node: node.clone(),
            };
            let nodes = plain::node_list(handoff.clone())
                .or(node::node_list(node.clone()))
                .boxed();
            let function = graph::function(
                ty.clone(),
                nodes.clone(),
                header.clone(),
                written,
                annotation.clone(),
            );
            let value_info = graph::value_info(ty.clone(), annotation.clone()).boxed();
            let body = plain::graph(handoff.clone()).or(graph::graph(
                ty.clone(),
                nodes.clone(),
                annotation,
            ));
            parts = Some((
                header, handoff, function, node, nodes, tensor, attribute, value_info,
            ));
            body
        })
        .boxed();
        let (header, handoff, function, node, nodes, tensor, attribute, value_info) =
            parts.expect("`recursive` runs its closure before returning");
        let model = plain::model(handoff.clone(), function.clone())
            .or(graph::model(header, graph.clone(), function.clone()))
            .boxed();
        Grammar {
            model,
            graph,
            function,
            node,
            nodes,
            node_run: plain::node_run(handoff).boxed(),
            ty,
            tensor,
            attribute,
            value_info,
        }
    }
}

/// Lexes `source` and checks the tokens before parsing: unreadable text
/// and excessive nesting are reported here.
fn tokenize(source: &str) -> Result<SpannedTokens<'_>, Error> {
    check_tokens(scan(source).0, source)
}

/// Checks lexed tokens before parsing: unreadable text, unpaired brackets
/// and excessive nesting are reported here.
fn check_tokens<'s>(tokens: SpannedTokens<'s>, source: &str) -> Result<SpannedTokens<'s>, Error> {
    if !well_formed(&tokens) {
        explain_malformed(&tokens, source)?;
    }
    Ok(tokens)
}

/// Reports what is wrong with tokens that are not [`well_formed`].
fn explain_malformed(tokens: &[(Token<'_>, SimpleSpan)], source: &str) -> Result<(), Error> {
    let mut diagnostics = lexer_diagnostics(tokens, source);
    // An unclosed string runs to the end of the text, taking the closing
    // brackets with it: reporting those would only repeat the one mistake.
    if !tokens
        .iter()
        .any(|(t, _)| matches!(t, Token::UnclosedString(_)))
    {
        hints::check_delimiters(tokens, source, &mut diagnostics);
    }
    if !diagnostics.is_empty() {
        diagnostics.sort_by_key(|d| d.span.start);
        diagnostics.truncate(MAX_ERRORS);
        return Err(Error::from_diagnostics(diagnostics));
    }
    check_nesting(tokens)
}

/// Whether `tokens` can go straight to the grammar: the lexer read every
/// token, brackets pair up, and none nest deeper than [`MAX_NESTING`]. One
/// quick pass for the common case; [`explain_malformed`] says what is
/// wrong with tokens that fail it.
fn well_formed(tokens: &[(Token<'_>, SimpleSpan)]) -> bool {
    let mut brackets = Brackets::default();
    brackets.walk(tokens) == Some(tokens.len()) && brackets.open() == 0
}

/// A walk over the brackets of tokens, one stretch of them after another.
#[derive(Debug, Default)]
struct Brackets {
    /// The closers of the brackets open, innermost last.
    closers: Vec<Token<'static>>,
    /// The deepest nesting so far.
    deepest: usize,
    /// The `=` tokens outside every bracket the walk opened: in a run of
    /// nodes, one for each node.
    outer_eqs: usize,
}

impl Brackets {
    /// How many brackets are open.
    fn open(&self) -> usize {
        self.closers.len()
    }

    /// Walks on over `tokens`, up to the first closer that closes no
    /// bracket open: its index, or the number of tokens. `None` if a
    /// bracket is closed by the wrong closer or nests deeper than
    /// [`MAX_NESTING`], or a token could not be read, before that.
    fn walk(&mut self, tokens: &[(Token<'_>, SimpleSpan)]) -> Option<usize> {
        for (index, &(token, _)) in tokens.iter().enumerate() {
            if let Some(closer) = hints::closer_of(token) {
                if self.closers.len() == MAX_NESTING {
                    return None;
                }
                self.closers.push(closer);
                self.deepest = self.deepest.max(self.closers.len());
            } else if hints::is_closer(token) {
                match self.closers.pop() {
                    Some(expected) if expected == token => {}
                    Some(_) => return None,
                    None => return Some(index),
                }
            } else if token == Token::Eq {
                self.outer_eqs += usize::from(self.closers.is_empty());
            } else if matches!(
                token,
                Token::Error | Token::Elided(_) | Token::UnclosedString(_)
            ) {
                return None;
            }
        }
        Some(tokens.len())
    }
}

/// Converts the errors of a failed parse of `source`: in the order of the
/// text, at most [`MAX_ERRORS`] of them.
fn to_error(mut errors: Vec<Rich<'_, Token<'_>>>, source: &str) -> Error {
    errors.sort_by_key(|e| e.span().start);
    let mut diagnostics: Vec<Diagnostic> = errors
        .iter()
        .take(MAX_ERRORS)
        .map(|e| {
            let mut diagnostic = diagnostic_of(e);
            hints::improve(&mut diagnostic, source);
            diagnostic
        })
        .collect();
    diagnostics.sort_by_key(|d| d.span.start);
    diagnostics.dedup();
    Error::from_diagnostics(diagnostics)
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

/// Names an expected item in grammar terms (chumsky's own wording quotes
/// tokens a second time).
fn describe(pattern: &chumsky::error::RichPattern<'_, Token<'_>>) -> String {
    use chumsky::error::RichPattern;
    match pattern {
        RichPattern::Token(token) => token.to_string(),
        RichPattern::Label(label) => label.to_string(),
        RichPattern::EndOfInput => "the end of the input".to_owned(),
        other => other.to_string(),
    }
}

/// Turns a chumsky error into a diagnostic.
fn diagnostic_of(error: &Rich<'_, Token<'_>>) -> Diagnostic {
    use chumsky::error::RichReason;
    let span = error.span().into_range();
    match error.reason() {
        RichReason::Custom(message) => {
            let (code, message, help) = hints::split_custom(message);
            let code = code
                .and_then(hints::emitted_code)
                .unwrap_or("onnxtxt::parse::invalid");
            let diagnostic = Diagnostic::new(code, message, span);
            match help {
                Some(help) => diagnostic.with_help(help),
                None => diagnostic,
            }
        }
        RichReason::ExpectedFound { expected, found } => {
            let mut expected: Vec<String> = expected.iter().map(describe).collect();
            expected.sort();
            expected.dedup();
            let found = found
                .as_ref()
                .map_or_else(|| "the end of the input".to_owned(), |t| t.to_string());
            let at_end = expected.iter().any(|e| e == "the end of the input");
            let message = match expected.as_slice() {
                _ if at_end && found != "the end of the input" => {
                    format!("unexpected {found} after the end of the text")
                }
                [] => format!("unexpected {found}"),
                [one] => format!("expected {one}, found {found}"),
                [init @ .., last] => {
                    format!("expected {} or {last}, found {found}", init.join(", "))
                }
            };
            Diagnostic::new("onnxtxt::parse::syntax", message, span)
        }
    }
}

/// The token input the entry points parse.
type TokenInput<'t, 's> =
    chumsky::input::MappedInput<'t, Token<'s>, SimpleSpan, &'t [(Token<'s>, SimpleSpan)]>;

/// Runs `parser` over all of `tokens` (lexed from `text`) with `state`,
/// returning its output and the landmarks it recorded (if `state` records
/// them), or the errors of type `E`.
fn run<'t, 's: 't, E: Fail<'t, TokenInput<'t, 's>>, O>(
    parser: Parsed<'t, TokenInput<'t, 's>, E, O>,
    tokens: &'t [(Token<'s>, SimpleSpan)],
    text: &str,
    mut state: State,
) -> Result<(O, State), Vec<E>> {
    let eoi = SimpleSpan::from(text.len()..text.len());
    let output = parser
        .then_ignore(end())
        .parse_with_state(tokens.split_token_span(eoi), &mut state)
        .into_result()?;
    Ok((output, state))
}

/// The grammar of the fast first pass, built once per thread: building it
/// costs about as much as parsing a small model, and the conformance
/// corpus or a test suite parses thousands of those. (The grammar's
/// productions are reference-counted, not `Sync`, hence one per thread.)
#[derive(Default)]
struct FastGrammar;

impl chumsky::cache::Cached for FastGrammar {
    type Parser<'t> = Grammar<'t, TokenInput<'t, 't>, EmptyErr>;

    fn make_parser<'t>(self) -> Grammar<'t, TokenInput<'t, 't>, EmptyErr> {
        Grammar::new()
    }
}

thread_local! {
    static FAST_GRAMMAR: chumsky::cache::Cache<FastGrammar> = chumsky::cache::Cache::default();
}

/// Parses `tokens` (lexed from `text`) with the grammar's production
/// `$field` and the parser state `$state` (see [`State`]):
/// first with errors that record nothing, the fast path for text that
/// parses; when that fails, again with [`Rich`] errors, which say why (see
/// [`Fail`]). Both runs take the same path through the grammar, which
/// never looks at its errors to decide what to accept.
macro_rules! parse_twice {
    ($field:ident, $tokens:expr, $text:expr, $state:expr) => {{
        let fast =
            FAST_GRAMMAR.with(|cache| run(cache.get().$field.clone(), $tokens, $text, $state));
        match fast {
            Ok(parsed) => Ok(parsed),
            Err(_) => {
                let rich = Grammar::<_, Rich<_>>::new();
                run(rich.$field.clone(), $tokens, $text, $state)
                    .map_err(|errors| to_error(errors, $text))
            }
        }
    }};
}

/// Parsing options; [`parse_model`] and the other `parse_*` functions use
/// the defaults.
///
/// ```
/// use onnxtxt::proto::ModelProto;
/// use onnxtxt::Parser;
///
/// let text = "g (float x) => (float y) { y = Relu(x) }";
/// let model: ModelProto = Parser::new().threads(false).parse(text)?;
/// assert_eq!(model, onnxtxt::parse_model(text)?);
/// # Ok::<(), onnxtxt::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parser {
    threads: bool,
}

impl Default for Parser {
    fn default() -> Self {
        Parser { threads: true }
    }
}

impl Parser {
    /// The default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// With `false`, everything is read on the calling thread. By default
    /// long inputs are read with a second thread (number lists of 1 MiB
    /// and more, texts of 256 KiB and more); the result is the same.
    #[must_use]
    pub fn threads(mut self, threads: bool) -> Self {
        self.threads = threads;
        self
    }

    /// Parses `text` as a `T`: a [`ModelProto`], [`GraphProto`],
    /// [`FunctionProto`], [`NodeProto`], `Vec<NodeProto>` (a node list in
    /// braces), [`TypeProto`], [`TensorProto`], [`AttributeProto`] or
    /// [`ValueInfoProto`], as the `parse_*` function of that kind does.
    pub fn parse<T: Parse>(&self, text: &str) -> Result<T, Error> {
        crate::parallel::with_threads(self.threads, || T::parse_text(text))
    }

    /// [`parse_model_with_source_map`] with these options.
    pub fn parse_model_with_source_map(
        &self,
        text: &str,
    ) -> Result<(ModelProto, SourceMap), Error> {
        crate::parallel::with_threads(self.threads, || parse_model_with_source_map(text))
    }
}

mod sealed {
    pub trait Sealed {}
}

/// An IR kind the parser reads (see [`Parser::parse`]).
pub trait Parse: sealed::Sealed + Sized {
    #[doc(hidden)]
    fn parse_text(text: &str) -> Result<Self, Error>;
}

macro_rules! entry_points {
    ($($(#[$doc:meta])* $name:ident -> $ty:ty = $field:ident;)*) => {$(
        impl sealed::Sealed for $ty {}

        impl Parse for $ty {
            fn parse_text(text: &str) -> Result<$ty, Error> {
                let on_two_threads = pieces::parse(text, |tokens, state| {
                    FAST_GRAMMAR.with(|cache| run(cache.get().$field.clone(), tokens, text, state).ok())
                });
                if let Some(output) = on_two_threads {
                    return Ok(output);
                }
                let tokens = tokenize(text)?;
                parse_twice!($field, &tokens, text, State::default()).map(|(output, _)| output)
            }
        }

        $(#[$doc])*
        pub fn $name(text: &str) -> Result<$ty, Error> {
            <$ty>::parse_text(text)
        }
    )*};
}

/// Parses a model like [`parse_model`], and also returns where each graph,
/// node, attribute, value info and function is in the text.
///
/// ```
/// let text = "g (float x) => (float y) {\n  y = Relu(x)\n}";
/// let (model, map) = onnxtxt::parse_model_with_source_map(text)?;
/// assert_eq!(&text[map.span("graph.node[0]").unwrap()], "y = Relu(x)");
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn parse_model_with_source_map(text: &str) -> Result<(ModelProto, SourceMap), Error> {
    parse_model_with_comments(text).map(|(model, map, _)| (model, map))
}

/// Parses a model like [`parse_model_with_source_map`], and also returns the
/// spans of the text's comments, for the formatter.
pub(crate) fn parse_model_with_comments(
    text: &str,
) -> Result<(ModelProto, SourceMap, Vec<std::ops::Range<usize>>), Error> {
    let (tokens, comments) = scan(text);
    let tokens = check_tokens(tokens, text)?;
    let (model, state) = parse_twice!(model, &tokens, text, State::recording())?;
    let map = SourceMap::of_model(&model, state.landmarks.recorded());
    Ok((model, map, comments))
}

entry_points! {
    /// Parses a model: an optional `<key: value, ...>` header, a graph, and
    /// any number of functions.
    ///
    /// ```
    /// let model = onnxtxt::parse_model(r#"
    ///     <ir_version: 8, opset_import: ["": 18]>
    ///     agraph (float[N] x) => (float[N] y) { y = Relu(x) }
    /// "#)?;
    /// assert_eq!(model.graph.unwrap().node[0].op_type.as_deref(), Some("Relu"));
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_model -> ModelProto = model;
    /// Parses a graph: `name (inputs) => (outputs) <initializers> { nodes }`.
    ///
    /// ```
    /// let graph = onnxtxt::parse_graph("g (float x) => (float y) { y = Neg(x) }")?;
    /// assert_eq!(graph.name.as_deref(), Some("g"));
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_graph -> GraphProto = graph;
    /// Parses a function, with its optional `<domain: ..., opset_import: ...>` header.
    ///
    /// ```
    /// let f = onnxtxt::parse_function(r#"<domain: "local", opset_import: ["": 18]> Sq (x) => (y) { y = Mul(x, x) }"#)?;
    /// assert_eq!(f.input, vec!["x"]);
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_function -> FunctionProto = function;
    /// Parses one node: `[label] outputs = domain.Op <attributes> (inputs)`.
    ///
    /// ```
    /// let node = onnxtxt::parse_node("y = Transpose <perm = [1, 0]> (x)")?;
    /// assert_eq!(node.attribute[0].ints, vec![1, 0]);
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_node -> NodeProto = node;
    /// Parses a node list in braces: `{ node* }`.
    ///
    /// ```
    /// assert_eq!(onnxtxt::parse_nodes("{ t = A(x) y = B(t) }")?.len(), 2);
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_nodes -> Vec<NodeProto> = nodes;
    /// Parses a type such as `float[N, 3]` or `seq(map(int64, string))`.
    ///
    /// ```
    /// assert!(onnxtxt::parse_type("optional(seq(float[2]))")?.value.is_some());
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_type -> TypeProto = ty;
    /// Parses a tensor constant: `type name? =? {values}`.
    ///
    /// ```
    /// let t = onnxtxt::parse_tensor("int64[2] shape = {3, 4}")?;
    /// assert_eq!(t.int64_data, vec![3, 4]);
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_tensor -> TensorProto = tensor;
    /// Parses one attribute: `name (: type)? = value`.
    ///
    /// ```
    /// let a = onnxtxt::parse_attribute("alpha: float = 1")?;
    /// assert_eq!(a.f, Some(1.0));
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_attribute -> AttributeProto = attribute;
    /// Parses a value info: `type? name`.
    ///
    /// ```
    /// assert_eq!(onnxtxt::parse_value_info("float[N] x")?.name.as_deref(), Some("x"));
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_value_info -> ValueInfoProto = value_info;
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn errors_name_what_was_expected_and_where() {
        let text = "g (float x) = (float y) {}";
        let error = crate::parse_graph(text).unwrap_err();
        assert_eq!(&text[error.span()], "=");
        assert!(error.to_string().contains("`=>`"), "{error}");
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
