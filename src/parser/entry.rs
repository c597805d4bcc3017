//! The entry points: [`Parser`] and its options, and one `parse_*`
//! function per IR kind. Each parse tries, in turn, the two-thread pieces
//! reader (long node lists), the grammar with errors that record nothing
//! (whose model, graph and node list productions try the plain reader
//! first), and only when that fails the grammar again with errors that say
//! why.

use std::borrow::Cow;
use std::io::{self, Write};

use chumsky::error::Rich;

use super::data::{self, data_sets_start, RawDataSet};
use super::errors::to_error;
use super::fast::pieces::{self, EncodedRun, EncodedRuns};
use super::fast::plain::EncodedMainGraph;
use super::grammar::{run, Grammar, State, FAST_GRAMMAR};
use super::landmarks::{Kept, SourceMap};
use super::tokens::{check_tokens, tokenize, with_tokens};
use super::write::{self, EncodedModel};
use crate::error::Error;
use crate::lexer::scan;
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, MapProto, ModelProto, NodeProto, OptionalProto,
    SequenceProto, TensorProto, TypeProto, ValueInfoProto,
};
use crate::test_data::Value;

/// Parses `tokens` (lexed from `text`) with the grammar's production
/// `$field` and the parser state `$state` (see [`State`]):
/// first with errors that record nothing, the fast path for text that
/// parses; when that fails, again with [`Rich`] errors, which say why (see
/// [`super::Fail`]). Both runs take the same path through the grammar, which
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
    /// long inputs are read with a second thread (texts of 256 KiB and
    /// more, number lists of 256 KiB and more while the other core is
    /// idle, of 1 MiB while it reads pieces of a node list); the result is
    /// the same.
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
        let text = blank_bom(text);
        crate::parallel::with_threads(self.threads, || T::parse_text(&text))
    }

    /// Parses `text` as [`parse_model`] does and writes the model's binary
    /// encoding to `out`: the bytes of `parse_model(text)?.encode_to_vec()`,
    /// through one buffer of 256 KiB. A long node list is read in pieces
    /// (see [`Parser::threads`]), and the nodes of the main graph are
    /// encoded as each piece is read: a node-heavy model's IR takes several
    /// times its encoding, which a parse that builds it whole holds all at
    /// once.
    ///
    /// `Err` is the error of [`parse_model`], found before anything is
    /// written; `Ok` holds what writing gave.
    ///
    /// ```
    /// use onnxtxt::prost::Message;
    /// use onnxtxt::Parser;
    ///
    /// let text = "g (float x) => (float y) { y = Relu(x) }";
    /// let mut out = Vec::new();
    /// Parser::new().write_model(text, &mut out)?.unwrap();
    /// assert_eq!(out, onnxtxt::parse_model(text)?.encode_to_vec());
    ///
    /// let error = Parser::new().write_model("g (", Vec::new()).unwrap_err();
    /// assert_eq!(error.primary().code, "onnxtxt::parse::unclosed_delimiter");
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    pub fn write_model<W: Write>(&self, text: &str, out: W) -> Result<io::Result<()>, Error> {
        Ok(self.encode_model(text)?.write(out))
    }

    /// Parses `text` as [`Parser::write_model`] does, up to writing: the
    /// [`EncodedModel`] knows its length before it writes a byte, for an
    /// output made the right size at once and written in place.
    ///
    /// ```
    /// use onnxtxt::prost::Message;
    /// use onnxtxt::Parser;
    ///
    /// let text = "g (float x) => (float y) { y = Relu(x) }";
    /// let encoded = Parser::new().encode_model(text)?;
    /// let mut bytes = vec![0; encoded.encoded_len()];
    /// encoded.write(&mut bytes[..]).unwrap();
    /// assert_eq!(bytes, onnxtxt::parse_model(text)?.encode_to_vec());
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    pub fn encode_model(&self, text: &str) -> Result<EncodedModel, Error> {
        let text = &*blank_bom(text);
        crate::parallel::with_threads(self.threads, || {
            let on_two_threads = pieces::parse_encoding(text, |tokens, state| {
                FAST_GRAMMAR.with(|cache| run(cache.get().model.clone(), tokens, text, state).ok())
            });
            let (model, encoded, depth) = match on_two_threads {
                Some(parsed) => parsed,
                None => encode_on_one_thread(text)?,
            };
            Ok(EncodedModel::new(model, encoded, depth))
        })
    }

    /// Writes `model`'s binary encoding to `out` as
    /// [`Parser::write_model`] writes it: the bytes of
    /// `model.encode_to_vec()`, through one buffer of 256 KiB, never all
    /// in memory at once.
    ///
    /// ```
    /// use onnxtxt::prost::Message;
    /// use onnxtxt::Parser;
    ///
    /// let model = onnxtxt::parse_model("g (float x) => (float y) { y = Relu(x) }")?;
    /// let mut out = Vec::new();
    /// Parser::write_encoded(&model, &mut out).unwrap();
    /// assert_eq!(out, model.encode_to_vec());
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    pub fn write_encoded<W: Write>(model: &ModelProto, mut out: W) -> io::Result<()> {
        write::write_encoded(model, &mut out)
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

/// Parsing on the calling thread, with errors that say why.
trait OneThread: Sized {
    /// Parses `text` on the calling thread (the grammar, with errors that
    /// say why when it fails); also how deep its plain brackets nest (see
    /// [`EncodedModel::deepest_brackets`]).
    fn parse_on_one_thread(text: &str) -> Result<(Self, usize), Error>;
}

/// [`ModelProto::parse_on_one_thread`] for [`Parser::encode_model`]: the
/// main graph's nodes, inputs and outputs, when the plain reader reads the
/// model, come encoded as it read them, its nodes in one run before the
/// graph's (empty) node list.
pub(super) fn encode_on_one_thread(
    text: &str,
) -> Result<(Box<ModelProto>, EncodedRuns, usize), Error> {
    located(text, || {
        with_tokens(text, |tokens, depth| {
            let encoding = || State {
                main_graph: Some(EncodedMainGraph::with_room_for(text)),
                ..State::default()
            };
            let (model, state) = parse_twice!(model, tokens, text, encoding())?;
            let encoded = state.main_graph.unwrap_or_default();
            let nodes = (!encoded.nodes.is_empty()).then(|| EncodedRun {
                at: 0,
                pieces: vec![encoded.nodes],
            });
            let encoded = EncodedRuns {
                nodes: nodes.into_iter().collect(),
                initializers: Vec::new(),
                inputs_and_outputs: encoded.inputs_and_outputs,
            };
            Ok((model, encoded, depth))
        })
    })
}

/// An entry point's IR kind, from what its production gives: the same,
/// but for the model, which the grammar gives boxed.
trait FromProduction<P> {
    fn from_production(output: P) -> Self;
}

impl<T> FromProduction<T> for T {
    fn from_production(output: T) -> T {
        output
    }
}

impl FromProduction<Box<ModelProto>> for ModelProto {
    fn from_production(output: Box<ModelProto>) -> ModelProto {
        *output
    }
}

macro_rules! entry_points {
    ($($(#[$doc:meta])* $name:ident -> $ty:ty = $field:ident;)*) => {$(
        impl sealed::Sealed for $ty {}

        impl Parse for $ty {
            fn parse_text(text: &str) -> Result<$ty, Error> {
                let on_two_threads = pieces::parse(text, |tokens, state| {
                    FAST_GRAMMAR.with(|cache| run(cache.get().$field.clone(), tokens, text, state).ok())
                });
                match on_two_threads {
                    Some(output) => Ok(<$ty>::from_production(output)),
                    None => Self::parse_on_one_thread(text).map(|(output, _)| output),
                }
            }
        }

        impl OneThread for $ty {
            fn parse_on_one_thread(text: &str) -> Result<($ty, usize), Error> {
                located(text, || {
                    with_tokens(text, |tokens, depth| {
                        parse_twice!($field, tokens, text, State::default())
                            .map(|(output, _)| (<$ty>::from_production(output), depth))
                    })
                })
            }
        }

        $(#[$doc])*
        pub fn $name(text: &str) -> Result<$ty, Error> {
            <$ty>::parse_text(&blank_bom(text))
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

/// Parses a model like [`parse_model_with_source_map`], but keeps in the
/// map only what [`SourceMap::find`] needs to locate the items at `paths`
/// (the paths of a checker's findings, say): each of them, the items
/// enclosing it and their names (`graph.node[3].name`), the header, and
/// the main graph and its name. Making the map of a large model costs
/// more than parsing it; this costs what the paths need.
///
/// ```
/// let text = "g (float x) => (float y) {\n  t = Neg(x)\n  y = Relu(t)\n}";
/// let (_, map) = onnxtxt::parse_model_with_source_map_for(text, ["graph.node[1].input[0]"])?;
/// assert_eq!(&text[map.span("graph.node[1].input[0]").unwrap()], "t");
/// assert_eq!(&text[map.find("graph.node[1].attribute[0]").unwrap()], "y = Relu(t)");
/// assert_eq!(map.span("graph.node[0]"), None);
/// # Ok::<(), onnxtxt::Error>(())
/// ```
pub fn parse_model_with_source_map_for<'p>(
    text: &str,
    paths: impl IntoIterator<Item = &'p str>,
) -> Result<(ModelProto, SourceMap), Error> {
    let kept = Kept::around(paths);
    parse_model_keeping(text, &kept).map(|(model, map, _)| (model, map))
}

/// Parses a model like [`parse_model_with_source_map`], and also returns the
/// spans of the text's comments, for the formatter.
pub(crate) fn parse_model_with_comments(
    text: &str,
) -> Result<(ModelProto, SourceMap, Vec<std::ops::Range<usize>>), Error> {
    parse_model_keeping(text, &Kept::All)
}

/// The model of `text`, the map of its items `kept` names, and the spans
/// of its comments.
fn parse_model_keeping(
    text: &str,
    kept: &Kept,
) -> Result<(ModelProto, SourceMap, Vec<std::ops::Range<usize>>), Error> {
    let text = &*blank_bom(text);
    located(text, || {
        let (tokens, comments) = scan(text);
        let (tokens, _) = check_tokens(tokens, text)?;
        let (model, state) = parse_twice!(model, &tokens, text, State::recording())?;
        let map = SourceMap::of_model_keeping(&model, state.landmarks.recorded(), kept);
        Ok((*model, map, comments))
    })
}

/// `text` with the UTF-8 byte order mark it may start with (some editors
/// write one) made three spaces, its length in bytes, so that every span
/// stays where it is: the mark is read as a blank.
fn blank_bom(text: &str) -> Cow<'_, str> {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => Cow::Owned(format!("   {rest}")),
        None => Cow::Borrowed(text),
    }
}

/// What `parse` gives, its error located (by line and column) in `text`.
fn located<T>(text: &str, parse: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    parse().map_err(|error| error.located_in(text))
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
    /// (An extension.) Parses a sequence: `seq(KIND) name? =? [value, ...]`, its
    /// values tensor constants, sparse tensor constants, sequences, maps or
    /// optionals.
    ///
    /// ```
    /// let q = onnxtxt::parse_sequence("seq(tensor) xs = [float[2] {1, 2}, float {3}]")?;
    /// assert_eq!(q.tensor_values.len(), 2);
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_sequence -> SequenceProto = sequence;
    /// (An extension.) Parses a map: `map(KEY) name? =? {keys: [...], values: seq(KIND) [...]}`
    /// (`string_keys: ["a", ...]` for string keys).
    ///
    /// ```
    /// let m = onnxtxt::parse_map(r#"map(string) m = {string_keys: ["a"], values: seq(tensor) [float {1}]}"#)?;
    /// assert_eq!(m.string_keys, vec![b"a".to_vec()]);
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_map -> MapProto = map;
    /// (An extension.) Parses an optional: `optional(KIND) name? =? [value]`, or `[]`
    /// for none.
    ///
    /// ```
    /// let o = onnxtxt::parse_optional("optional(tensor) o = []")?;
    /// assert!(o.tensor_value.is_none());
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_optional -> OptionalProto = optional;
    /// (An extension.) Parses a data value, as in a test case's data file: a tensor,
    /// sequence, map or optional.
    ///
    /// ```
    /// use onnxtxt::testcase::Value;
    ///
    /// let value = onnxtxt::parse_value("float[2,2] t = {1, 2, 3, 4}")?;
    /// assert!(matches!(value, Value::Tensor(t) if t.float_data.len() == 4));
    /// # Ok::<(), onnxtxt::Error>(())
    /// ```
    parse_value -> Value = data_value;
}

/// What `text` holds, told by its tokens: a data value, a test case (a
/// model followed by data sets) or a model.
pub(crate) fn text_kind(text: &str) -> crate::test_data::TextKind {
    use crate::test_data::TextKind;
    if data::starts_with_value(data::lazy_tokens(text)) {
        TextKind::Value
    } else if data_sets_offset(text).is_some() {
        TextKind::Case
    } else {
        TextKind::Model
    }
}

/// Where the data sets of a test case's `text` start, if it has any.
pub(crate) fn data_sets_offset(text: &str) -> Option<usize> {
    if !data::may_have_data_sets(text) {
        return None;
    }
    data::data_sets_start(data::lazy_tokens(text))
}

/// The data sets at the end of a test case's `text`, if it has any: where
/// they start, and each as written.
pub(crate) fn parse_data_sets(text: &str) -> Result<Option<(usize, Vec<RawDataSet>)>, Error> {
    located(text, || {
        let (tokens, _) = tokenize(text)?;
        let Some(start) = data_sets_start(tokens.iter().copied()) else {
            return Ok(None);
        };
        let first = tokens.partition_point(|(_, span)| span.start < start);
        let (sets, _) = parse_twice!(data_sets, &tokens[first..], text, State::default())?;
        Ok(Some((start, sets)))
    })
}
