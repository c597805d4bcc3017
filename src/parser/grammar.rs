//! The grammar as a whole: chumsky's setup for this crate (the error
//! types, the parser state, the token input), the productions tied
//! together into one [`Grammar`], and a built grammar kept per thread
//! ([`FAST_GRAMMAR`]) for the fast first pass of every parse.

use chumsky::input::ValueInput;
use chumsky::prelude::*;

use super::fast::{plain, PieceNodes};
use super::tokens::with_room_for;
use super::{attribute, data, graph, hints, landmarks, node, tensor, types, value};
use crate::error::Diagnostic;
use crate::lexer::Token;
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, MapProto, ModelProto, NodeProto, OptionalProto,
    SequenceProto, TensorProto, TypeProto, ValueInfoProto,
};
use crate::test_data::Value;

/// The chumsky setup: errors of type `E` (see [`Fail`]) over our tokens,
/// with a [`State`].
pub(crate) type Extra<E> = extra::Full<E, State, ()>;

/// The parser state: the landmarks that map IR items to their spans, and
/// the nodes of a long node list read in pieces (opaque here: the fast
/// readers put them in and take them out).
#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) landmarks: landmarks::Landmarks,
    pub(crate) pieces: PieceNodes,
    /// `Some` when the main graph's nodes, inputs and outputs are wanted
    /// encoded ([`Parser::encode_model`](crate::Parser::encode_model)): the
    /// plain model reader then encodes them into it, as the graph's fields,
    /// and leaves the graph's lists empty. A model it gives back leaves
    /// `None`, its nodes and value infos in the IR.
    pub(crate) main_graph: Option<plain::EncodedMainGraph>,
    /// How many broken constructs recovery skipped (see `recovery.rs`);
    /// past [`MAX_ERRORS`](super::MAX_ERRORS) it skips the rest of their
    /// lists, so that errors are never collected by the million.
    pub(crate) recoveries: usize,
}

impl State {
    /// A state that records landmarks.
    pub(super) fn recording() -> Self {
        State {
            landmarks: landmarks::Landmarks::recording(),
            ..State::default()
        }
    }
}

impl<'s, I: chumsky::input::Input<'s>> chumsky::inspector::Inspector<'s, I> for State {
    /// The landmarks recorded and the recoveries made: both are undone
    /// when the parse backtracks.
    type Checkpoint = (usize, usize);

    #[inline(always)]
    fn on_token(&mut self, _: &I::Token) {}

    #[inline(always)]
    fn on_save<'p>(&self, _: &chumsky::input::Cursor<'s, 'p, I>) -> Self::Checkpoint {
        (self.landmarks.save(), self.recoveries)
    }

    #[inline(always)]
    fn on_rewind<'p>(
        &mut self,
        checkpoint: &chumsky::input::Checkpoint<'s, 'p, I, Self::Checkpoint>,
    ) {
        let (landmarks, recoveries) = *checkpoint.inspector();
        self.landmarks.rewind(landmarks);
        self.recoveries = recoveries;
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
/// with [`Rich`] errors, to explain why (see `parse_twice` in `entry.rs`).
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
pub(super) struct Grammar<'t, I: chumsky::input::Input<'t>, E: Fail<'t, I>> {
    /// A model, boxed: the large struct is moved through the grammar's
    /// layers and the entry points as a pointer.
    pub(super) model: Parsed<'t, I, E, Box<ModelProto>>,
    pub(super) graph: Parsed<'t, I, E, GraphProto>,
    pub(super) function: Parsed<'t, I, E, FunctionProto>,
    pub(super) node: Parsed<'t, I, E, NodeProto>,
    pub(super) nodes: Parsed<'t, I, E, Vec<NodeProto>>,
    /// Nodes up to the end of the input, with no braces: a piece of a
    /// long node list (see `fast/pieces.rs`).
    pub(super) node_run: Parsed<'t, I, E, Vec<NodeProto>>,
    /// Entries of a graph's `<...>` list up to the end of the input: a
    /// piece of a long list of initializers (see `fast/pieces.rs`).
    pub(super) list_run: Parsed<'t, I, E, plain::ListEntries>,
    pub(super) ty: Parsed<'t, I, E, TypeProto>,
    pub(super) tensor: Parsed<'t, I, E, TensorProto>,
    pub(super) attribute: Parsed<'t, I, E, AttributeProto>,
    pub(super) value_info: Parsed<'t, I, E, ValueInfoProto>,
    /// [ext] A data value (a test case's data file) and each kind of it.
    pub(super) data_value: Parsed<'t, I, E, Value>,
    pub(super) sequence: Parsed<'t, I, E, SequenceProto>,
    pub(super) map: Parsed<'t, I, E, MapProto>,
    pub(super) optional: Parsed<'t, I, E, OptionalProto>,
    /// [ext] The data sets that follow a test case's model.
    pub(super) data_sets: Parsed<'t, I, E, Vec<data::RawDataSet>>,
}

impl<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>> Grammar<'t, I, E> {
    /// Ties the productions together. Graphs hold attributes that hold
    /// graphs, and annotations hold values that hold annotations: both
    /// loops are made with `recursive`, whose inner handles are weak, so
    /// the grammar is freed when dropped (`Recursive::declare` would make
    /// a reference cycle, leaking the grammar on every call). The
    /// productions built inside the closure hold those weak handles: use
    /// them only while the `Grammar` lives.
    pub(super) fn new() -> Self {
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
            let data_value = data::value(data::element(tensor.clone(), sparse.clone()));
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
                header, handoff, function, node, nodes, tensor, attribute, value_info, data_value,
            ));
            body
        })
        .boxed();
        let (header, handoff, function, node, nodes, tensor, attribute, value_info, data_value) =
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
            node_run: plain::node_run(handoff.clone()).boxed(),
            list_run: plain::list_run(handoff).boxed(),
            ty,
            tensor,
            attribute,
            value_info,
            sequence: data::only(data_value.clone(), "a sequence", |v| match v {
                Value::Sequence(q) => Some(q),
                _ => None,
            }),
            map: data::only(data_value.clone(), "a map", |v| match v {
                Value::Map(m) => Some(m),
                _ => None,
            }),
            optional: data::only(data_value.clone(), "an optional", |v| match v {
                Value::Optional(o) => Some(o),
                _ => None,
            }),
            data_sets: data::data_sets(data_value.clone()),
            data_value,
        }
    }
}

/// The token input the entry points parse.
pub(super) type TokenInput<'t, 's> =
    chumsky::input::MappedInput<'t, Token<'s>, SimpleSpan, &'t [(Token<'s>, SimpleSpan)]>;

/// Runs `parser` over all of `tokens` (lexed from `text`) with `state`, on
/// a stack with room for their nesting ([`with_room_for`]), returning its
/// output and the landmarks it recorded (if `state` records them), or the
/// errors of type `E`.
pub(super) fn run<'t, 's: 't, E: Fail<'t, TokenInput<'t, 's>>, O>(
    parser: Parsed<'t, TokenInput<'t, 's>, E, O>,
    tokens: &'t [(Token<'s>, SimpleSpan)],
    text: &str,
    mut state: State,
) -> Result<(O, State), Vec<E>> {
    let eoi = SimpleSpan::from(text.len()..text.len());
    let output = with_room_for(tokens, || {
        parser
            .then_ignore(end())
            .parse_with_state(tokens.split_token_span(eoi), &mut state)
            .into_result()
    })?;
    Ok((output, state))
}

/// The grammar of the fast first pass, built once per thread: building it
/// costs about as much as parsing a small model, and the conformance
/// corpus or a test suite parses thousands of those. (The grammar's
/// productions are reference-counted, not `Sync`, hence one per thread.)
#[derive(Default)]
pub(super) struct FastGrammar;

impl chumsky::cache::Cached for FastGrammar {
    type Parser<'t> = Grammar<'t, TokenInput<'t, 't>, EmptyErr>;

    fn make_parser<'t>(self) -> Grammar<'t, TokenInput<'t, 't>, EmptyErr> {
        Grammar::new()
    }
}

thread_local! {
    pub(super) static FAST_GRAMMAR: chumsky::cache::Cache<FastGrammar> = chumsky::cache::Cache::default();
}
