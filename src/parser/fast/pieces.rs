//! A long node list (or list of initializers) read in pieces, on two
//! threads. The text is cut where nodes start, about every [`PIECE`]
//! bytes. Both threads take pieces in turn: each lexes its piece into a token buffer it keeps (small enough to
//! stay in the cache, where tokens for the whole text would be several
//! times its size, in memory the system has to clear first) and reads the
//! nodes in it, and the nodes of pieces that follow one another are merged
//! into one vector as they come ([`Merged`]). This thread then lexes the
//! text before the first cut and parses it all with the grammar, one
//! [`Token::Spliced`] standing for each vector of nodes: the plain node
//! list reader takes them there (the first as the list itself, with no
//! copy), and nothing else accepts the token.
//!
//! A piece's nodes are read up to a `}` that closes a bracket opened before
//! it (the end of the node list, or of a subgraph's), or up to a node still
//! open at its end (one holding a subgraph that the next pieces go on
//! with), and so are the nodes of each subgraph still open at its end: the
//! weights in `Constant`s of nested `If` and `Loop` bodies are read on both
//! threads. The other tokens, and nodes that do not read, go to the grammar
//! as they are.
//!
//! A graph's long `<...>` list of initializers (which the reference printer
//! writes on one line) is cut too, where an initializer starts after the
//! `},` of the one before ([`entry_cut`]): a piece that starts so holds
//! entries of the list up to its `>`, read apart by the plain list reader
//! and spliced in the same way, then maybe the start of the node list.
//! When the model is written, the main graph's nodes and initializers read
//! apart stay encoded as each piece encoded them ([`Keep::Encoded`]).
//!
//! The output is used only when each piece's lexing ends exactly at the
//! next cut, the brackets of the whole pair up within [`MAX_NESTING`], the
//! parse succeeds and takes every run of nodes; the result is then the
//! one-thread parse's. Otherwise (a mistake anywhere, a cut that is not
//! where a token starts) the caller parses on one thread, which also
//! explains any mistake.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use chumsky::span::SimpleSpan;
use prost::Message;

use super::plain::ListEntries;
use super::PieceNodes;
use crate::decode::{GRAPH_INITIALIZER, GRAPH_NODE};
use crate::lexer::{scan_into, scan_part, SpannedTokens, Token};
use crate::parser::grammar::{run, State, FAST_GRAMMAR};
use crate::parser::hints;
use crate::parser::tokens::Brackets;
use crate::parser::MAX_NESTING;
use crate::proto::{GraphProto, NodeProto, TensorProto, ValueInfoProto};
use crate::vocabulary::element_type_by_name;

/// Texts shorter than this, in bytes, are parsed on one thread. The tests
/// and fuzz targets take the two-thread path with any text they can.
const MIN_TEXT: usize = if cfg!(any(test, fuzzing)) { 1 } else { 1 << 18 };

/// The text of a piece, about, in bytes: its tokens (40 bytes for every 6
/// or 7 bytes of node-heavy text) then fit in the cache.
const PIECE: usize = if cfg!(any(test, fuzzing)) {
    64
} else {
    1 << 16
};

/// The most pieces a text is cut into: a long text is cut into longer
/// pieces, so that looking for cuts stays a small share of the work.
const MAX_PIECES: usize = 256;

/// How far past a line start, in bytes, a node start is looked for.
const PROBE: usize = 1 << 10;

/// The nodes of the pieces, in the parser state of the thread that parses
/// the whole text: one run for each run of pieces that follow one another
/// (see [`Merged`]).
#[derive(Debug, Default)]
pub(crate) struct Splice {
    /// Each run's nodes by where it starts, in text order, until taken.
    runs: Vec<(usize, Option<Run<NodeProto>>)>,
    /// Where the `{` that opens the main graph's node list starts, when
    /// the runs of that list are left encoded ([`Keep::Encoded`]).
    main_list: Option<usize>,
    /// Where the `<` that opens the main graph's `<...>` list starts, when
    /// the runs of its initializers are left encoded.
    main_entries: Option<usize>,
    /// The runs of the main graph's node list and initializers taken so
    /// far, encoded.
    encoded: EncodedRuns,
    /// Each run of a graph's `<...>` list by where it starts, in text
    /// order, until taken.
    lists: Vec<(usize, Option<EntryRun>)>,
}

/// The nodes, or the initializers, of a run of pieces.
#[derive(Debug)]
enum Run<T> {
    /// As read.
    Read(Vec<T>),
    /// Encoded as they were read, piece by piece: the fields of a graph
    /// that hold them ([`Item::FIELD`]), each its tag, length and encoding
    /// as `prost` writes them.
    Encoded { pieces: Vec<Vec<u8>>, items: usize },
}

/// What a [`Run`] holds: a repeated field of a graph.
trait Item: Message + Default + Sized {
    /// The field's number in `GraphProto`.
    const FIELD: u32;
    /// The field, in `graph`.
    fn field(graph: &mut GraphProto) -> &mut Vec<Self>;
}

impl Item for NodeProto {
    const FIELD: u32 = GRAPH_NODE;
    fn field(graph: &mut GraphProto) -> &mut Vec<Self> {
        &mut graph.node
    }
}

impl Item for TensorProto {
    const FIELD: u32 = GRAPH_INITIALIZER;
    fn field(graph: &mut GraphProto) -> &mut Vec<Self> {
        &mut graph.initializer
    }
}

/// The entries of a run of a graph's `<...>` list: [`ListEntries`], the
/// initializers kept as the pieces were asked to.
#[derive(Debug)]
struct EntryRun {
    value_info: Vec<ValueInfoProto>,
    initializers: Run<TensorProto>,
    comma_after: bool,
}

/// How the pieces' nodes are kept until the parse takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::parser) enum Keep {
    /// As read.
    Read,
    /// Encoded as soon as each piece is read, those of the main graph's
    /// node list and `<...>` list's initializers until the model is
    /// written (`Parser::write_model`): a node's IR takes several times its
    /// encoding, and is built, encoded and dropped on both threads.
    Encoded,
}

/// Nodes of the main graph's node list (or initializers of its `<...>`
/// list) left encoded by the parse, in pieces (see [`Run::Encoded`]): they
/// come before the node (initializer) at index `at` of the list it
/// returned.
#[derive(Debug)]
pub(in crate::parser) struct EncodedRun {
    pub(in crate::parser) at: usize,
    pub(in crate::parser) pieces: Vec<Vec<u8>>,
}

/// What the parse left encoded of the main graph ([`Keep::Encoded`]).
#[derive(Debug, Default)]
pub(in crate::parser) struct EncodedRuns {
    /// The runs of its node list, in order.
    pub(in crate::parser) nodes: Vec<EncodedRun>,
    /// The runs of its initializers, in order.
    pub(in crate::parser) initializers: Vec<EncodedRun>,
    /// Its inputs and outputs, all of them, when the plain reader encoded
    /// them as read (see `plain::EncodedMainGraph`).
    pub(in crate::parser) inputs_and_outputs: Vec<u8>,
}

impl Splice {
    /// The nodes of the run that starts at `start`, once, for the node list
    /// whose `{` starts at `list`, which has `read` nodes so far: none when
    /// they stay encoded (the main graph's list's, kept here). `None` if
    /// there is no such run or it was taken before.
    pub(crate) fn take(
        &mut self,
        start: usize,
        list: usize,
        read: usize,
    ) -> Option<Vec<NodeProto>> {
        let index = self
            .runs
            .binary_search_by_key(&start, |&(start, _)| start)
            .ok()?;
        let main = self.main_list == Some(list);
        self.runs[index]
            .1
            .take()?
            .take(main, read, &mut self.encoded.nodes)
    }

    /// The entries of the run of a graph's `<...>` list that starts at
    /// `start`, once, for the list whose `<` starts at `list`, which has
    /// `read` initializers so far: none when they stay encoded (the main
    /// graph's list's, kept here). `None` if there is no such run or it was
    /// taken before.
    pub(crate) fn take_entries(
        &mut self,
        start: usize,
        list: usize,
        read: usize,
    ) -> Option<ListEntries> {
        let index = self
            .lists
            .binary_search_by_key(&start, |&(start, _)| start)
            .ok()?;
        let run = self.lists[index].1.take()?;
        let main = self.main_entries == Some(list);
        Some(ListEntries {
            value_info: run.value_info,
            initializer: (run.initializers).take(main, read, &mut self.encoded.initializers)?,
            comma_after: run.comma_after,
        })
    }

    /// How many nodes read are still to be taken.
    pub(crate) fn nodes_left(&self) -> usize {
        self.runs
            .iter()
            .map(|(_, run)| match run {
                Some(Run::Read(nodes)) => nodes.len(),
                _ => 0,
            })
            .sum()
    }

    /// Whether the parse took every run.
    fn all_taken(&self) -> bool {
        self.runs.iter().all(|(_, nodes)| nodes.is_none())
            && self.lists.iter().all(|(_, entries)| entries.is_none())
    }
}

impl<T: Item> Run<T> {
    /// How many items the run has.
    fn len(&self) -> usize {
        match self {
            Run::Read(items) => items.len(),
            Run::Encoded { items, .. } => *items,
        }
    }

    /// `items`, read from `text_len` bytes of text, kept as `keep` says.
    fn new(items: Vec<T>, text_len: usize, keep: Keep) -> Run<T> {
        match keep {
            Keep::Read => Run::Read(items),
            Keep::Encoded => {
                // Encoded item by item, each measured once (prost's
                // `encode_to_vec` of a graph would measure every node twice
                // and every attribute three times), into room for as many
                // bytes as the text had: an item's encoding is shorter than
                // its text unless it holds escaped strings.
                let mut bytes = Vec::with_capacity(text_len);
                for item in &items {
                    prost::encoding::message::encode(T::FIELD, item, &mut bytes);
                }
                Run::Encoded {
                    items: items.len(),
                    pieces: vec![bytes],
                }
            }
        }
    }

    /// The run's items as read, for a list that has `read` items so far;
    /// none when they stay encoded, `encoded` then taking them, which only
    /// the `main` graph's lists do (`None` for others).
    fn take(self, main: bool, read: usize, encoded: &mut Vec<EncodedRun>) -> Option<Vec<T>> {
        match self {
            Run::Read(items) => Some(items),
            Run::Encoded { pieces, .. } => {
                main.then_some(())?;
                encoded.push(EncodedRun { at: read, pieces });
                Some(Vec::new())
            }
        }
    }

    /// The run, encoded.
    fn into_encoded(self) -> Run<T> {
        match self {
            Run::Read(items) => Run::new(items, 0, Keep::Encoded),
            Run::Encoded { .. } => self,
        }
    }

    /// The run's items as read (decoded again if need be); `None` if they
    /// do not decode, which a run encoded by [`Run::new`] always does.
    fn read(self) -> Option<Run<T>> {
        self.into_items().ok().map(Run::Read)
    }

    /// The run's items as read (decoded again if need be), or the run as it
    /// was if they do not decode.
    fn into_items(self) -> Result<Vec<T>, Run<T>> {
        match self {
            Run::Read(items) => Ok(items),
            Run::Encoded { pieces, items } => {
                let mut read = Vec::with_capacity(items);
                for piece in &pieces {
                    match GraphProto::decode(piece.as_slice()) {
                        Ok(mut graph) => read.append(T::field(&mut graph)),
                        Err(_) => return Err(Run::Encoded { pieces, items }),
                    }
                }
                Ok(read)
            }
        }
    }

    /// Appends `other`'s items (kept the same way), with room for
    /// `expected` items in all when it grows.
    fn append(&mut self, other: Run<T>, expected: usize) {
        let len = self.len();
        match (self, other) {
            (Run::Read(run), Run::Read(mut items)) => {
                if run.capacity() - run.len() < items.len() {
                    run.reserve(expected.saturating_sub(len).max(items.len()));
                }
                run.append(&mut items);
            }
            (
                Run::Encoded { pieces, items },
                Run::Encoded {
                    pieces: mut more,
                    items: count,
                },
            ) => {
                pieces.append(&mut more);
                *items += count;
            }
            // Nodes read and nodes encoded: the run is in a subgraph or a
            // function (only their runs are read, see `read_piece`), whose
            // runs the parse decodes anyway. The encoded ones are decoded
            // now, or, should they not decode, the others are encoded.
            (this, other) => {
                let taken = std::mem::replace(this, Run::Read(Vec::new()));
                match (taken.into_items(), other.into_items()) {
                    (Ok(nodes), Ok(more)) => {
                        *this = Run::Read(nodes);
                        this.append(Run::Read(more), expected);
                    }
                    (taken, other) => {
                        let run =
                            |nodes: Result<_, Run<T>>| nodes.map_or_else(|run| run, Run::Read);
                        *this = run(taken).into_encoded();
                        this.append(run(other).into_encoded(), expected);
                    }
                }
            }
        }
    }
}

/// What a thread made of a piece of the text, in text order.
enum Read<'s> {
    /// The nodes of the text from `span.start` to `span.end`, where
    /// brackets nest `deepest` deep.
    Nodes {
        nodes: Run<NodeProto>,
        span: SimpleSpan,
        deepest: Depth,
    },
    /// The entries of a graph's `<...>` list in the text from
    /// `span.start` to `span.end`, where brackets nest `deepest` deep.
    Entries {
        entries: EntryRun,
        span: SimpleSpan,
        deepest: Depth,
    },
    /// Tokens for the grammar to read.
    Tokens(SpannedTokens<'s>),
}

/// How deep the brackets of a stretch of tokens nest, all of them and the
/// plain ones ([`Brackets::deepest_plain`]).
#[derive(Debug, Clone, Copy)]
struct Depth {
    all: usize,
    plain: usize,
}

impl Depth {
    /// How deep the brackets walked by `brackets` nested.
    fn of(brackets: &Brackets) -> Depth {
        Depth {
            all: brackets.deepest,
            plain: brackets.deepest_plain,
        }
    }

    /// The deeper of the two, kind by kind.
    fn max(self, other: Depth) -> Depth {
        Depth {
            all: self.all.max(other.all),
            plain: self.plain.max(other.plain),
        }
    }
}

/// What `read` (an entry point of the fast grammar) parses from the tokens
/// of `text`, read in pieces as the module docs say; `None` when the text
/// is not read so, and must be parsed on one thread.
pub(in crate::parser) fn parse<O>(
    text: &str,
    read: impl for<'t> FnOnce(&'t [(Token<'t>, SimpleSpan)], State) -> Option<(O, State)>,
) -> Option<O> {
    parse_counting(text, Keep::Read, read).map(|((output, ..), _)| output)
}

/// [`parse`] of a model, the nodes of its main graph's node list and the
/// initializers of its `<...>` list kept encoded as they are read
/// ([`Keep::Encoded`]): the model, whose graph holds only the nodes and
/// initializers that were not, and those that were, in order; and how deep
/// the text's plain brackets nest ([`Brackets::deepest_plain`]).
pub(in crate::parser) fn parse_encoding<O>(
    text: &str,
    read: impl for<'t> FnOnce(&'t [(Token<'t>, SimpleSpan)], State) -> Option<(O, State)>,
) -> Option<(O, EncodedRuns, usize)> {
    parse_counting(text, Keep::Encoded, read).map(|(output, _)| output)
}

/// Whether the model header that starts `tokens`, `<...>`, has a `graph`
/// entry (`graph: unset`, `graph: {node: unset}`, ...): it must apply to
/// the main graph's nodes and initializers, which an encoding in pieces
/// holds encoded apart from the model, so such a model is parsed whole.
fn header_sets_graph(tokens: &[(Token<'_>, SimpleSpan)]) -> bool {
    if tokens.first().map(|(token, _)| token) != Some(&Token::LAngle) {
        return false;
    }
    let mut depth = 0usize;
    for pair in tokens.windows(2) {
        let (token, next) = (pair[0].0, pair[1].0);
        if hints::closer_of(token).is_some() {
            depth += 1;
        } else if hints::is_closer(token) {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return false;
            }
        } else if depth == 1 && token == Token::Ident("graph") && next == Token::Colon {
            return true;
        }
    }
    false
}

/// [`parse`] or [`parse_encoding`] as `keep` says, and how many pieces'
/// nodes were read apart.
pub(super) fn parse_counting<O>(
    text: &str,
    keep: Keep,
    read: impl for<'t> FnOnce(&'t [(Token<'t>, SimpleSpan)], State) -> Option<(O, State)>,
) -> Option<((O, EncodedRuns, usize), usize)> {
    if text.len() < MIN_TEXT || !crate::parallel::available() {
        return None;
    }
    let cuts = cuts(text);
    let first = *cuts.first()?;
    let next_piece = AtomicUsize::new(0);
    let merged = Mutex::new(Merged::new(cuts.len()));
    let (part, ()) = crate::parallel::join(
        || {
            read_pieces(text, &cuts, keep, &next_piece, &merged);
            scan_part(text, 0, first)
        },
        || read_pieces(text, &cuts, keep, &next_piece, &merged),
    );
    let merged = merged.into_inner().ok()?;
    // A piece that could not be read stops the merge before it.
    if part.next != first || merged.next < cuts.len() {
        return None;
    }
    let mut tokens = part.tokens;
    if keep == Keep::Encoded && header_sets_graph(&tokens) {
        return None;
    }
    let mut brackets = Brackets::default();
    if brackets.walk(&tokens)? != tokens.len() {
        return None;
    }
    let mut splice = Splice::default();
    // How deep the plain brackets of the runs nest, where they are.
    let mut runs_plain = 0;
    for read in merged.reads {
        let (span, deepest) = match &read {
            Read::Nodes { span, deepest, .. } | Read::Entries { span, deepest, .. } => {
                (*span, *deepest)
            }
            Read::Tokens(more) => {
                if brackets.walk(more)? != more.len() {
                    return None;
                }
                tokens.extend_from_slice(more);
                continue;
            }
        };
        if brackets.open() + deepest.all > MAX_NESTING {
            return None;
        }
        runs_plain = runs_plain.max(brackets.plain_open() + deepest.plain);
        tokens.push((Token::Spliced, span));
        match read {
            Read::Nodes { nodes, .. } => splice.runs.push((span.start, Some(nodes))),
            Read::Entries { entries, .. } => splice.lists.push((span.start, Some(entries))),
            Read::Tokens(_) => {}
        }
    }
    if brackets.open() != 0 {
        return None;
    }
    if keep == Keep::Encoded {
        splice.keep_main_list_encoded(&tokens)?;
    }
    let (output, state) = read(
        &tokens,
        State {
            pieces: PieceNodes {
                splice,
                ..PieceNodes::default()
            },
            ..State::default()
        },
    )?;
    let splice = state.pieces.splice;
    let depth = runs_plain.max(brackets.deepest_plain);
    splice
        .all_taken()
        .then_some(((output, splice.encoded, depth), merged.pieces_with_nodes))
}

impl Splice {
    /// Of the runs, all encoded, leaves encoded those that the main graph's
    /// node list and `<...>` list take, and decodes the others: the main
    /// graph's node list is the first `{` of a model's `tokens` outside
    /// every bracket (a model is an optional `<header>`, then a graph whose
    /// node list follows its name and bracketed lists), its `<...>` list the
    /// `<` outside every bracket closed right before that `{`, and their
    /// runs are those spliced in at the first level inside them. `None`
    /// when a run does not decode.
    fn keep_main_list_encoded(&mut self, tokens: &[(Token<'_>, SimpleSpan)]) -> Option<()> {
        let mut depth = 0usize;
        let mut main = Vec::new();
        // The last `<` outside every bracket, the runs spliced in it, and
        // whether it was closed by the token before this one.
        let mut angle: Option<(usize, Vec<usize>)> = None;
        let mut angle_closed = false;
        let mut main_entries = Vec::new();
        for &(token, span) in tokens {
            let just_closed = std::mem::take(&mut angle_closed);
            if hints::closer_of(token).is_some() {
                if depth == 0 && token == Token::LBrace && self.main_list.is_none() {
                    self.main_list = Some(span.start);
                    if let Some((list, runs)) = angle.take().filter(|_| just_closed) {
                        self.main_entries = Some(list);
                        main_entries = runs;
                    }
                } else if depth == 0 && token == Token::LAngle && self.main_list.is_none() {
                    angle = Some((span.start, Vec::new()));
                }
                depth += 1;
            } else if hints::is_closer(token) {
                depth = depth.saturating_sub(1);
                if depth == 0 && self.main_list.is_some() {
                    break;
                }
                angle_closed = depth == 0 && token == Token::RAngle;
            } else if token == Token::Spliced && depth == 1 {
                match (&self.main_list, &mut angle) {
                    (Some(_), _) => main.push(span.start),
                    (None, Some((_, runs))) => runs.push(span.start),
                    (None, None) => {}
                }
            }
        }
        for (start, run) in &mut self.runs {
            if main.binary_search(start).is_err() {
                *run = Some(run.take()?.read()?);
            }
        }
        for (start, run) in &mut self.lists {
            if main_entries.binary_search(start).is_err() {
                let mut entries = run.take()?;
                entries.initializers = entries.initializers.read()?;
                *run = Some(entries);
            }
        }
        Some(())
    }
}

/// What the threads made of the pieces, merged in text order as they come:
/// the nodes of pieces that follow one another without tokens between them
/// go into one vector, moved while they are still in the cache.
struct Merged<'s> {
    /// The number of the next piece to merge.
    next: usize,
    /// What was made of pieces read ahead of it, by number.
    ahead: Vec<Option<Vec<Read<'s>>>>,
    /// What is merged so far.
    reads: Vec<Read<'s>>,
    /// The number of the first piece in the last run of nodes merged.
    run_first: usize,
    /// How many pieces had nodes read apart.
    pieces_with_nodes: usize,
}

impl<'s> Merged<'s> {
    /// Nothing merged yet, of `pieces` pieces.
    fn new(pieces: usize) -> Self {
        let mut ahead = Vec::new();
        ahead.resize_with(pieces, || None);
        Merged {
            next: 0,
            ahead,
            reads: Vec::new(),
            run_first: 0,
            pieces_with_nodes: 0,
        }
    }

    /// Takes what was made of piece `index`, and merges it and the pieces
    /// read ahead that now follow.
    fn put(&mut self, index: usize, reads: Vec<Read<'s>>) {
        self.ahead[index] = Some(reads);
        while let Some(reads) = self.ahead.get_mut(self.next).and_then(Option::take) {
            for read in reads {
                self.merge(read);
            }
            self.next += 1;
        }
    }

    /// Merges `read`, of piece `self.next`, after what is merged so far.
    fn merge(&mut self, read: Read<'s>) {
        if let Read::Entries { .. } = read {
            self.merge_entries(read);
            return;
        }
        let Read::Nodes {
            nodes,
            span,
            deepest,
        } = read
        else {
            self.reads.push(read);
            return;
        };
        self.pieces_with_nodes += 1;
        let run_pieces = self.run_pieces();
        let Some(Read::Nodes {
            nodes: run,
            span: run_span,
            deepest: run_deepest,
        }) = self.reads.last_mut()
        else {
            self.run_first = self.next;
            self.reads.push(Read::Nodes {
                nodes,
                span,
                deepest,
            });
            return;
        };
        let so_far = run.len() + nodes.len();
        run.append(nodes, expected(so_far, run_pieces));
        run_span.end = span.end;
        *run_deepest = (*run_deepest).max(deepest);
    }

    /// [`Merged::merge`] of the entries of a graph's `<...>` list: into
    /// the last run merged when it goes on where they start.
    fn merge_entries(&mut self, read: Read<'s>) {
        self.pieces_with_nodes += 1;
        let run_pieces = self.run_pieces();
        match (self.reads.last_mut(), read) {
            (
                Some(Read::Entries {
                    entries: run,
                    span: run_span,
                    deepest: run_deepest,
                }),
                Read::Entries {
                    entries,
                    span,
                    deepest,
                },
            ) if run.comma_after => {
                let so_far = run.initializers.len() + entries.initializers.len();
                (run.initializers).append(entries.initializers, expected(so_far, run_pieces));
                run.value_info.extend(entries.value_info);
                run.comma_after = entries.comma_after;
                run_span.end = span.end;
                *run_deepest = (*run_deepest).max(deepest);
            }
            (_, read) => {
                self.run_first = self.next;
                self.reads.push(read);
            }
        }
    }

    /// How many pieces the last run merged may take in all, and how many
    /// it has with piece `self.next`.
    fn run_pieces(&self) -> (usize, usize) {
        (
            self.ahead.len() - self.run_first,
            self.next + 1 - self.run_first,
        )
    }
}

/// Room for the items of a run of pieces, `(all, read)` as
/// [`Merged::run_pieces`] gives it, holding `so_far` items in the pieces
/// read: at the items per piece so far, an eighth to spare, so that the run
/// is not copied as it grows. (Pieces are cut only where items start, so
/// text with few items has few pieces.)
fn expected(so_far: usize, (all, read): (usize, usize)) -> usize {
    let expected = so_far.saturating_mul(all) / read;
    expected + expected / 8
}

/// Where the text is cut into pieces: node starts (or initializer starts,
/// [`entry_cut`]) about [`PIECE`] bytes apart (more for a long text), in
/// order, from the first one found (the first node, when the node list
/// starts within [`PROBE`] bytes); the text before it is parsed with the
/// whole.
fn cuts(text: &str) -> Vec<usize> {
    let piece = PIECE.max(text.len() / MAX_PIECES);
    let mut cuts = Vec::new();
    let mut at = 0;
    while at < text.len() {
        match entry_cut(text, at).map(Ok).or_else(|| cut_after(text, at)) {
            Some(Ok(cut)) => {
                cuts.push(cut);
                at = cut + piece;
            }
            // Each byte is searched for a line start once.
            Some(Err(line)) => at = line.max(at + piece),
            None => break,
        }
    }
    cuts
}

/// Where a node starts soon after `at`: the first token, after the start
/// of the next line (or of the text), that looks like a node start and
/// follows the end of a node or the start of a node list; `Err` with the
/// line's start when there is none within [`PROBE`] bytes of it, `None`
/// when no line starts after `at`. The next line may be far: a node
/// holding a long number list (a `Constant`'s weights) is one line of
/// hundreds of kilobytes.
fn cut_after(text: &str, at: usize) -> Option<Result<usize, usize>> {
    let bytes = text.as_bytes();
    let line = match at {
        0 => 0,
        _ => at + memchr::memchr(b'\n', &bytes[at..])? + 1,
    };
    let probe = scan_part(text, line, (line + PROBE).min(text.len())).tokens;
    // After a line that ends a node with the `)` of its inputs, a line that
    // starts like a node: however long both are.
    if bytes[..line].trim_ascii_end().last() == Some(&b')') && starts_node(&probe) {
        return Some(Ok(probe[0].1.start));
    }
    Some(
        (1..probe.len())
            .find(|&i| ends_node(&probe[..i]) && starts_node(&probe[i..]))
            .map(|i| probe[i].1.start)
            .ok_or(line),
    )
}

/// Where an initializer of a graph's `<...>` list starts soon after `at`:
/// past a `<` (the first of the list, which is then a piece's start and
/// taken whole) or a `}` and the comma after it (the reference printer
/// writes the whole list on one line), within [`PROBE`] bytes of `at`, a
/// token that starts an initializer ([`starts_initializer`]).
fn entry_cut(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let window = &bytes[at..(at + PROBE).min(bytes.len())];
    memchr::memchr2_iter(b'}', b'<', window).find_map(|found| {
        let after = at + found + 1;
        let end = (after + ENTRY_PROBE).min(text.len());
        // Most `<` and `}` are not before an initializer: a look at the
        // bytes first, then the tokens.
        let rest = bytes[after..end].trim_ascii_start();
        let rest = match (window[found], rest) {
            (b'}', [b',', rest @ ..]) => rest.trim_ascii_start(),
            (b'<', rest) => rest,
            _ => return None,
        };
        let word_len = rest
            .iter()
            .position(|&b| !b.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        let word = std::str::from_utf8(&rest[..word_len]).unwrap_or("");
        if !rest.starts_with(b"@<") && element_type_by_name(word).is_none() {
            return None;
        }
        let probe = scan_part(text, after, end).tokens;
        let entry = match (window[found], probe.as_slice()) {
            (b'}', [(Token::Comma, _), rest @ ..]) => rest,
            (b'<', tokens) => tokens,
            _ => return None,
        };
        starts_initializer(entry).then(|| entry[0].1.start)
    })
}

/// How far past a `}` or `<`, in bytes, the start of an initializer is
/// looked for: room for its annotation, type and name.
const ENTRY_PROBE: usize = 256;

/// Whether `tokens` start like an initializer as the printers write it:
/// `@<raw: true>?`, an element type, its dimensions, a name and `=`.
fn starts_initializer(tokens: &[(Token<'_>, SimpleSpan)]) -> bool {
    let tokens = match tokens {
        [(Token::AnnotationOpen, _), (Token::Ident("raw"), _), (Token::Colon, _), (Token::Ident("true"), _), (Token::RAngle, _), rest @ ..] => {
            rest
        }
        _ => tokens,
    };
    let [(Token::Ident(element), _), rest @ ..] = tokens else {
        return false;
    };
    let rest = match rest {
        [(Token::LBracket, _), dims @ ..] => {
            let Some(close) = dims.iter().position(|(token, _)| *token == Token::RBracket) else {
                return false;
            };
            &dims[close + 1..]
        }
        _ => rest,
    };
    element_type_by_name(element).is_some()
        && matches!(
            rest,
            [(Token::Ident(_) | Token::Str(_), _), (Token::Eq, _), ..]
        )
}

/// Whether `tokens` end like a node: with the `)` of its inputs, or the
/// `>` of attributes after them (a `>` that closes an annotation `@<...>`
/// comes before a node); or with the `{` that opens a node list.
fn ends_node(tokens: &[(Token<'_>, SimpleSpan)]) -> bool {
    match tokens.last() {
        Some((Token::RParen | Token::LBrace, _)) => true,
        Some((Token::RAngle, _)) => {
            let mut depth = 0usize;
            for (token, _) in tokens.iter().rev() {
                match token {
                    Token::RAngle => depth += 1,
                    Token::LAngle | Token::AnnotationOpen => {
                        depth -= 1;
                        if depth == 0 {
                            return *token == Token::LAngle;
                        }
                    }
                    _ => {}
                }
            }
            false
        }
        _ => false,
    }
}

/// Whether `tokens` start like a node: `[label]`, or a name followed by
/// `,` or `=`.
fn starts_node(tokens: &[(Token<'_>, SimpleSpan)]) -> bool {
    let name = |token: &Token<'_>| matches!(token, Token::Ident(_) | Token::Str(_));
    match tokens {
        [(Token::LBracket, _), (Token::RBracket, _), ..] => true,
        [(Token::LBracket, _), (label, _), (Token::RBracket, _), ..] => name(label),
        [(first, _), (Token::Comma | Token::Eq, _), ..] => name(first),
        _ => false,
    }
}

/// Where the last node of a piece's `tokens` that follows the end of
/// another, outside every bracket, starts; 0 when no node does. A node
/// ends with the `)` of its inputs or the `>` of attributes after them, not
/// with the `>` of an annotation `@<...>` (which comes before a node).
fn last_node_start(tokens: &[(Token<'_>, SimpleSpan)]) -> usize {
    let mut depth = 0usize;
    let mut outermost = None;
    let mut node_ended = false;
    let mut last = 0;
    for (index, &(token, _)) in tokens.iter().enumerate() {
        if node_ended && starts_node(&tokens[index..]) {
            last = index;
        }
        node_ended = false;
        if hints::closer_of(token).is_some() {
            if depth == 0 {
                outermost = Some(token);
            }
            depth += 1;
        } else if hints::is_closer(token) {
            depth = depth.saturating_sub(1);
            node_ended = depth == 0 && matches!(outermost, Some(Token::LParen | Token::LAngle));
        }
    }
    last
}

/// Reads the pieces of `text` cut at `cuts` that `next_piece` hands out,
/// one at a time, into one token buffer, and puts what it made of each in
/// `merged`; stops handing out pieces when one cannot be read.
fn read_pieces<'s>(
    text: &'s str,
    cuts: &[usize],
    keep: Keep,
    next_piece: &AtomicUsize,
    merged: &Mutex<Merged<'s>>,
) {
    let mut buffer = Vec::new();
    let mut comments = Vec::new();
    loop {
        let index = next_piece.fetch_add(1, Ordering::Relaxed);
        let Some(&from) = cuts.get(index) else {
            return;
        };
        let until = cuts.get(index + 1).copied().unwrap_or(text.len());
        buffer.clear();
        comments.clear();
        // Room for the piece's tokens at once, at a token every 4 bytes
        // (node-heavy text has one every 6 or 7): grown from nothing, the
        // buffer would be copied as it doubles, each time into fresh memory
        // (what the allocator refuses is left to the lexer's growth). A
        // buffer too small for the piece is replaced, not grown: growing
        // copies all its room, and so touches memory never used until then.
        let room = (until - from) / 4;
        if buffer.capacity() < room {
            buffer = Vec::new();
            let _ = buffer.try_reserve_exact(room);
        }
        // While pieces are left, the other thread has them to read.
        let others_left = index + 1 < cuts.len();
        let read = (scan_into(text, from, until, &mut buffer, &mut comments) == until).then(|| {
            crate::parallel::with_other_busy(others_left, || {
                read_piece(text, from, until, &buffer, keep)
            })
        });
        let Some(reads) = read else {
            // The merge stops before this piece, so no other piece matters
            // now: the text is parsed on one thread.
            next_piece.store(cuts.len(), Ordering::Relaxed);
            return;
        };
        let Ok(mut merged) = merged.lock() else {
            return;
        };
        merged.put(index, reads);
    }
}

/// What to make of the `tokens` of the text from `from` to `until`: the
/// runs of nodes and of list entries in it ([`runs`]), the nodes kept as
/// `keep` says, and the tokens around them; the tokens as they are where a
/// run does not read.
fn read_piece<'s>(
    text: &'s str,
    from: usize,
    until: usize,
    tokens: &[(Token<'s>, SimpleSpan)],
    keep: Keep,
) -> Vec<Read<'s>> {
    let mut reads = Vec::new();
    let mut read_up_to = 0;
    // Where the run of a graph's `<...>` list read in the piece ends.
    let mut entries_end = None;
    for (stretch, kind) in runs(tokens) {
        let mut brackets = Brackets::default();
        brackets.walk(&tokens[stretch.clone()]);
        // Nodes kept as the caller says may be the main graph's list's,
        // whose `{` comes before every piece, or after a piece's run of the
        // main graph's `<...>` list: any other run after a `{` of the piece
        // is not, and its nodes are not kept encoded (see
        // `Splice::keep_main_list_encoded`, which decodes those that are
        // not the main list's).
        let after_entries = entries_end.is_some_and(|end: usize| {
            stretch.start == end + 2 && tokens.get(end + 1).map(|t| t.0) == Some(Token::LBrace)
        });
        let keep = if stretch.start == 0 || after_entries {
            keep
        } else {
            Keep::Read
        };
        let start = if stretch.start == 0 {
            from
        } else {
            tokens[stretch.start].1.start
        };
        let end = tokens
            .get(stretch.end)
            .map_or(until, |(_, span)| span.start);
        let span = SimpleSpan::from(start..end);
        let deepest = Depth::of(&brackets);
        let read = FAST_GRAMMAR.with(|cache| {
            let grammar = cache.get();
            let tokens = &tokens[stretch.clone()];
            let state = State {
                pieces: PieceNodes {
                    run_items: brackets.outer_eqs,
                    ..PieceNodes::default()
                },
                ..State::default()
            };
            match kind {
                Kind::Nodes => {
                    let (nodes, _) = run(grammar.node_run.clone(), tokens, text, state).ok()?;
                    let nodes = Run::new(nodes, end - start, keep);
                    Some(Read::Nodes {
                        nodes,
                        span,
                        deepest,
                    })
                }
                Kind::Entries => {
                    let (entries, _) = run(grammar.list_run.clone(), tokens, text, state).ok()?;
                    let entries = EntryRun {
                        value_info: entries.value_info,
                        initializers: Run::new(entries.initializer, end - start, keep),
                        comma_after: entries.comma_after,
                    };
                    Some(Read::Entries {
                        entries,
                        span,
                        deepest,
                    })
                }
            }
        });
        let Some(read) = read else {
            continue;
        };
        if kind == Kind::Entries {
            entries_end = Some(stretch.end);
        }
        if read_up_to < stretch.start {
            reads.push(Read::Tokens(tokens[read_up_to..stretch.start].to_vec()));
        }
        reads.push(read);
        read_up_to = stretch.end;
    }
    if read_up_to < tokens.len() {
        reads.push(Read::Tokens(tokens[read_up_to..].to_vec()));
    }
    reads
}

/// What a run of a piece's tokens holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Nodes of a node list.
    Nodes,
    /// Entries of a graph's `<...>` list.
    Entries,
}

/// Where a piece's `tokens` hold whole nodes, or whole entries of a
/// graph's `<...>` list, that can be read apart. A piece that starts with
/// an initializer ([`starts_initializer`]) holds entries up to the `>`
/// that closes the list, or to its end when its brackets all pair up.
/// Else nodes, from its start, up to a closer of a bracket opened before
/// the piece (the end of its node list, or of a subgraph's) or else up to
/// the node still open at its end. And, in both cases, when the piece ends
/// inside a node that the next pieces go on with (one holding a subgraph),
/// in each node list still open at its end, from the list's `{` up to the
/// node open inside it, the innermost to the end. Empty when the piece's
/// brackets do not pair up.
fn runs(tokens: &[(Token<'_>, SimpleSpan)]) -> Vec<(Range<usize>, Kind)> {
    if Brackets::default().walk(tokens).is_none() {
        return Vec::new();
    }
    // The brackets open, by index, innermost last, and where the first
    // closer of a bracket opened before the piece is.
    let mut open = Vec::new();
    let mut first_closer = None;
    for (index, &(token, _)) in tokens.iter().enumerate() {
        if hints::closer_of(token).is_some() {
            open.push(index);
        } else if hints::is_closer(token) && open.pop().is_none() {
            first_closer.get_or_insert(index);
        }
    }
    let mut runs = Vec::new();
    if starts_initializer(tokens) {
        match first_closer {
            Some(closer) => runs.push((0..closer, Kind::Entries)),
            None if open.is_empty() => runs.push((0..tokens.len(), Kind::Entries)),
            None => {}
        }
    }
    // Each stretch of nodes: its start, and the bracket open after it.
    let mut stretches = Vec::new();
    if runs.is_empty() {
        match first_closer {
            Some(closer) => stretches.push((0, closer, None)),
            None => stretches.push((0, tokens.len(), open.first().copied())),
        }
    }
    for (level, &bracket) in open.iter().enumerate() {
        if tokens[bracket].0 == Token::LBrace {
            stretches.push((bracket + 1, tokens.len(), open.get(level + 1).copied()));
        }
    }
    let nodes = stretches.into_iter().map(|(start, end, inner)| {
        let run = match inner {
            Some(inner) => start..start + last_node_start(&tokens[start..inner]),
            None => start..end,
        };
        (run, Kind::Nodes)
    });
    runs.extend(nodes);
    runs.retain(|(run, _)| !run.is_empty());
    runs
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;
    use crate::parser::fast::tests::assert_read_as_the_grammar_reads;
    use crate::{parse_model, parse_model_with_source_map};

    /// The encoding of the model `text` read in pieces, if it is (checking
    /// that its brackets are found to nest as deep as on one thread), how
    /// many pieces' nodes were read apart, and how many runs of the main graph's
    /// node list and of its initializers were left encoded; its nodes and
    /// initializers kept as `keep` says, then written as
    /// `Parser::write_model` writes them.
    fn in_pieces(text: &str, keep: Keep) -> Option<(Vec<u8>, usize, (usize, usize))> {
        let model = parse_counting(text, keep, |tokens, state| {
            FAST_GRAMMAR.with(|cache| run(cache.get().model.clone(), tokens, text, state).ok())
        });
        let ((model, encoded, depth), pieces) = model?;
        // As deep as on one thread.
        let (_, one_thread) = crate::parser::tokens::tokenize(text).unwrap();
        assert_eq!(depth, one_thread, "{text}");
        let left_encoded = (encoded.nodes.len(), encoded.initializers.len());
        // Each piece of the main graph's node list, or none.
        assert!(keep == Keep::Encoded || left_encoded == (0, 0));
        let mut bytes = Vec::new();
        crate::parser::write::write_model(model, encoded, &mut bytes).unwrap();
        Some((bytes, pieces, left_encoded))
    }

    /// A model whose graph has `count` nodes of the `forms` in turn, with
    /// `%` in a form replaced by the node's number.
    fn model(forms: &[&str], count: usize) -> String {
        let nodes: Vec<String> = (0..count)
            .map(|i| {
                format!(
                    "  {}\n",
                    forms[i % forms.len()].replace('%', &i.to_string())
                )
            })
            .collect();
        format!(
            "<ir_version: 8, opset_import: [\"\": 18]>\ng (float[N] x) => (float[N] y) {{\n{}}}\n",
            nodes.concat()
        )
    }

    /// Node forms: plain ones, and ones the plain reader hands to the
    /// grammar (an annotation, an overload, a subgraph).
    const FORMS: &[&str] = &[
        r#"["/n%/Relu"] "/n%/out" = Relu ("x")"#,
        "a%, b% = Split <axis: int = 0> (x)",
        "c% = Constant <value: tensor = int64[2] {1, 2}> ()",
        r#"d% = com.example.Custom (x) <alpha = 1.5, names = ["p", "q"]>"#,
        "e% = If (c) <then_branch: graph = t () => (float y) { y = Relu(x) }>",
        r#"@<doc_string: "d"> [f%] f% = Op:v1 (x)"#,
        "g% = Loop <body: graph = b () => () {\n    z = Relu(x)\n    w = Neg(z)\n  }> (x)",
        r#"h% = "".Op ("", x) # a comment"#,
        "i% = Identity (x) <values = [1.5, -2, inf]>",
        // Braces followed by what looks like a node start.
        r#"j% = Constant <value: tensor = string[2] {"a", "b"}> ()"#,
    ];

    /// A node whose subgraph has `count` nodes, spanning pieces.
    fn long_subgraph(count: usize) -> String {
        let inner: Vec<String> = (0..count)
            .map(|i| format!("      s{i} = Relu (x)\n"))
            .collect();
        format!(
            "l = Loop <body: graph = b () => () {{\n{}    }}> (x)",
            inner.concat()
        )
    }

    /// A cut is found after a line longer than [`PROBE`] (a `Constant`
    /// holding its weights), however far its end is, also before another
    /// such line; a text of one line has none past its first node, found in
    /// one search.
    #[test]
    fn cuts_come_after_long_lines() {
        let weights = vec!["0.0125"; 400].join(", ");
        let constant = format!("c% = Constant <value: tensor = float[400] {{{weights}}}> ()");
        let text = model(&[&constant, "r% = Relu (x)"], 40);
        let at = text.find("c0 = ").unwrap() + 10;
        assert!(text[at..].find('\n').unwrap() > 2 * PROBE);
        let cut = cut_after(&text, at).unwrap().unwrap();
        assert!(text[cut..].starts_with("r1 = "), "{}", &text[cut..cut + 10]);
        let (bytes, pieces, _) = in_pieces(&text, Keep::Read).expect("read in pieces");
        assert!(pieces > 1);
        assert_eq!(bytes, parse_model(&text).unwrap().encode_to_vec());
        assert!(cuts(&text.replace('\n', " ")).len() <= 1);
        // Only `Constant`s, each on a line longer than the probe.
        let constants = model(&[&constant], 40);
        let (bytes, pieces, _) = in_pieces(&constants, Keep::Read).expect("read in pieces");
        assert!(pieces > 20, "{pieces} pieces");
        assert_eq!(bytes, parse_model(&constants).unwrap().encode_to_vec());
    }

    #[test]
    fn long_node_lists_read_in_pieces_as_on_one_thread() {
        let mut texts = Vec::new();
        for count in [1, 2, 5, 40, 301] {
            for first in 0..FORMS.len() {
                let forms = [&FORMS[first..], &FORMS[..first]].concat();
                texts.push((count >= 40, model(&forms, count)));
            }
        }
        // Nodes that all end with attributes, as onnxtxt prints them.
        let after = [
            "a% = Op (x) <k = 1>",
            "b% = Op (x) <\n    k = [1, 2],\n    s = \"t\"\n  >",
        ];
        texts.push((true, model(&after, 100)));
        let function = "<domain: \"d\", opset_import: [\"\": 18]>\nf (x) => (y) { y = Relu(x) }\n";
        texts.push((true, model(FORMS, 100) + function));
        // Pieces that end inside a subgraph, or start there and end after it.
        let subgraph = long_subgraph(50);
        texts.push((true, model(&[FORMS[0], &subgraph, FORMS[1]], 12)));
        // Long node lists in functions, and in a graph with initializers
        // (which the grammar reads).
        let nodes: String = (0..60).map(|i| format!("  y{i} = Relu (x)\n")).collect();
        let long_function = format!(
            "<domain: \"d\", opset_import: [\"\": 18]>\nlong (x) => (y) {{\n{nodes}  y = Relu(x)\n}}\n"
        );
        texts.push((true, model(FORMS, 30) + &long_function + function));
        let initializers = model(FORMS, 100).replacen(
            "(float[N] y) {",
            "(float[N] y) <float[2] w = {1, 2}, int64[1] k = {3}> {",
            1,
        );
        texts.push((true, initializers));
        let mut left_encoded = 0;
        for (long, text) in &texts {
            let one = parse_model_with_source_map(text).unwrap().0.encode_to_vec();
            for keep in [Keep::Read, Keep::Encoded] {
                let pieces = in_pieces(text, keep);
                assert!(
                    pieces.as_ref().is_some_and(|&(_, n, _)| n >= 2) || !long,
                    "not read in pieces:\n{text}"
                );
                if let Some((pieces, _, (runs, _))) = pieces {
                    assert!(pieces == one, "different in pieces, {keep:?}:\n{text}");
                    left_encoded += runs;
                }
            }
            assert!(parse_model(text).unwrap().encode_to_vec() == one);
            let mut written = Vec::new();
            crate::Parser::new()
                .write_model(text, &mut written)
                .unwrap()
                .unwrap();
            assert!(written == one, "written differently:\n{text}");
        }
        assert!(
            left_encoded > texts.len(),
            "{left_encoded} runs left encoded"
        );
    }

    /// Entries of a graph's `<...>` list: initializers of every element
    /// type and form the printers write, and a value info.
    const ENTRIES: &[&str] = &[
        r#"float[3] "/w%.weight" = {1.5, -2, 3e-3}"#,
        "@<raw: true> float[2] r% = {0.25, -1}",
        "int64[1] k% = {-9}",
        "@<raw: true> int64[2] q% = {1, 9223372036854775807}",
        "int32[2] i% = {1, -2}",
        "double[1] d% = {2.5}",
        "@<raw: true> double[2] e% = {1e300, -0.5}",
        "uint8[3] u% = {0, 7, 255}",
        "@<raw: true> uint8[1] v% = {3}",
        "float16[1] h% = {15360}",
        "bool[2] b% = {1, 0}",
        "float[N] info%",
        "float f% = {nan}",
    ];

    /// A model whose graph's `<...>` list has `count` of `entries` in turn
    /// (`%` replaced by the entry's number), written one after the other
    /// with `separator` between them, and `nodes` plain nodes (two are too
    /// few to be read in more than two pieces).
    fn listed(entries: &[&str], count: usize, separator: &str, nodes: usize) -> String {
        let list: Vec<String> = (0..count)
            .map(|i| entries[i % entries.len()].replace('%', &i.to_string()))
            .collect();
        model(&FORMS[..1], nodes).replacen(
            "(float[N] y) {",
            &format!("(float[N] y) <{}> {{", list.join(separator)),
            1,
        )
    }

    #[test]
    fn initializer_lists_read_in_pieces_as_on_one_thread() {
        let mut texts = Vec::new();
        for first in 0..ENTRIES.len() {
            let entries = [&ENTRIES[first..], &ENTRIES[..first]].concat();
            // On one line as the reference printer writes them, and one
            // entry a line as onnxtxt does.
            for separator in [", ", ",\n  "] {
                texts.push(listed(&entries, 60, separator, 2));
            }
        }
        // A long list in a subgraph's graph, and in a graph after a
        // header.
        let branch = listed(ENTRIES, 40, ", ", 2);
        let graph = &branch[branch.find("g (").unwrap()..];
        let subgraph = format!("s = If (c) <then_branch: graph = {}>", graph.trim());
        let in_subgraph = model(&[FORMS[0], &subgraph, FORMS[1]], 3);
        texts.push(in_subgraph.clone());
        texts.push(in_subgraph.replacen(
            "(float[N] y) {",
            "(float[N] y) <float[2] w = {1, 2}, int64[1] k = {3}> {",
            1,
        ));
        for text in &texts {
            let one = parse_model_with_source_map(text).unwrap().0.encode_to_vec();
            for keep in [Keep::Read, Keep::Encoded] {
                let (pieces, count, (_, initializer_runs)) =
                    in_pieces(text, keep).expect("read in pieces");
                assert!(count > 10, "{count} pieces read apart:\n{text}");
                assert!(pieces == one, "different in pieces, {keep:?}:\n{text}");
                // The main graph's initializers stay encoded, in one run;
                // a subgraph's are decoded.
                let expected = usize::from(keep == Keep::Encoded && *text != in_subgraph);
                assert_eq!(initializer_runs, expected, "{keep:?}:\n{text}");
            }
        }
        // The nodes after the list, from the piece where it ends on, are
        // left encoded as the main graph's node list's are, and its
        // initializers too.
        let text = listed(ENTRIES, 60, ", ", 40);
        let (bytes, _, left_encoded) = in_pieces(&text, Keep::Encoded).expect("read in pieces");
        assert!(bytes == parse_model(&text).unwrap().encode_to_vec());
        assert_eq!(left_encoded, (1, 1), "runs left encoded:\n{text}");
    }

    /// A list with an entry the plain readers give back (a string tensor)
    /// or a mistake in it is read on one thread, as the grammar reads it.
    #[test]
    fn initializer_lists_not_read_in_pieces_are_read_on_one_thread() {
        let long = listed(ENTRIES, 60, ", ", 2);
        let cases = [
            long.replacen("int64[1] k28 = {-9}", r#"string[1] k28 = {"a"}"#, 1),
            long.replacen("int64[1] k28 = {-9}", "int64[1] k28 = {1.5}", 1),
            long.replacen("int64[1] k28 = {-9}", "int64[1] k28 = {-9},", 1),
            long.replacen("> {", ",> {", 1),
            long.replacen(
                "int32[2] i4 = {1, -2}",
                "@<raw: true, doc_string: \"d\"> int32[2] i4 = {1, -2}",
                1,
            ),
        ];
        for text in &cases {
            assert_ne!(text, &long);
            for keep in [Keep::Read, Keep::Encoded] {
                assert_eq!(in_pieces(text, keep), None, "{text}");
            }
            assert_read_as_the_grammar_reads(text);
        }
    }

    /// `If`s nested `depth` deep, each branch's weights in a `Constant`
    /// (the shape of a model exported with its control flow): every piece
    /// ends inside a subgraph that the next pieces go on with.
    fn nested_ifs(depth: usize) -> String {
        let weights = vec!["0.0125"; 20].join(", ");
        let mut body = "y = Relu (x)".to_owned();
        for level in (0..depth).rev() {
            body = format!(
                "w{level} = Constant <value: tensor = float[20] {{{weights}}}> ()
                 r{level} = Relu (w{level})
                 y = If (c) <then_branch: graph = t{level} () => (float[20] y) {{
{body}
}},                  else_branch: graph = e{level} () => (float[20] y) {{ y = Neg (x) }}>"
            );
        }
        model(&[&body], 1)
    }

    #[test]
    fn nodes_before_a_subgraph_that_goes_on_are_read_in_pieces() {
        let text = nested_ifs(30);
        let one = parse_model_with_source_map(&text)
            .unwrap()
            .0
            .encode_to_vec();
        for keep in [Keep::Read, Keep::Encoded] {
            let (bytes, pieces, _) = in_pieces(&text, keep).expect("read in pieces");
            assert!(bytes == one, "different in pieces, {keep:?}");
            // Most pieces hold a `Constant` and a `Relu` before the next `If`.
            assert!(pieces >= 40, "{pieces} pieces' nodes read apart");
        }
        // A mistake in a node read apart: the text is parsed on one thread.
        let mistake = text.replacen("r15 = Relu (w15)", "r15 = Relu (w15) (x)", 1);
        assert_eq!(in_pieces(&mistake, Keep::Read), None);
        let written = crate::Parser::new().write_model(&mistake, Vec::new());
        let (Err(written), Err(parsed)) = (written, parse_model(&mistake)) else {
            panic!("the mistake was not found");
        };
        assert_eq!(written.diagnostics(), parsed.diagnostics());
    }

    #[test]
    fn a_pieces_nodes_are_counted_before_they_are_read() {
        // Every form, with `=` inside attributes, subgraphs and lists.
        let nodes: Vec<String> = (0..23)
            .map(|i| FORMS[i % FORMS.len()].replace('%', &i.to_string()) + "\n")
            .collect();
        let text = nodes.concat();
        let (tokens, _) = crate::lexer::scan(&text);
        let reads = read_piece(&text, 0, text.len(), &tokens, Keep::Read);
        let [Read::Nodes {
            nodes: Run::Read(nodes),
            ..
        }] = reads.as_slice()
        else {
            panic!("the nodes were not read");
        };
        // Made once, at its size: not grown by doubling.
        assert_eq!((nodes.len(), nodes.capacity()), (23, 23));
    }

    #[test]
    fn a_pieces_initializers_are_counted_before_they_are_read() {
        let entries: Vec<String> = (0..23)
            .map(|i| ENTRIES[i % ENTRIES.len()].replace('%', &i.to_string()))
            .collect();
        let text = entries.join(", ") + ", ";
        let (tokens, _) = crate::lexer::scan(&text);
        let reads = read_piece(&text, 0, text.len(), &tokens, Keep::Read);
        let [Read::Entries { entries, .. }] = reads.as_slice() else {
            panic!("the entries were not read");
        };
        let Run::Read(initializers) = &entries.initializers else {
            panic!("the initializers were not kept as read");
        };
        // Made once, at its size: not grown by doubling.
        assert_eq!((initializers.len(), initializers.capacity()), (22, 22));
        assert_eq!(entries.value_info.len(), 1);
        assert!(entries.comma_after);
    }

    #[test]
    fn text_not_read_in_pieces_is_read_on_one_thread() {
        let long = model(FORMS, 100);
        let middle = long.len() / 2;
        let mistake = |node: &str, mistake: &str| {
            assert!(long.contains(node));
            long.replacen(node, mistake, 1)
        };
        let cases = [
            // Mistakes near the start, in the middle and near the end.
            mistake("a1, b1 =", "a1, b1 = ="),
            mistake("a91, b91 =", "a91, b91 = ="),
            mistake("c22 = Constant", "c22 = Constant (x) (y)"),
            mistake("a51, b51 =", "a51, b51 = }"),
            // A string, a list of numbers and a bad character across cuts.
            format!("{}\"{}", &long[..middle], &long[middle..]),
            format!("{}{{1, 2,\n\n3}}{}", &long[..middle], &long[middle..]),
            format!("{}$\n{}", &long[..middle], &long[middle..]),
        ];
        for text in &cases {
            for keep in [Keep::Read, Keep::Encoded] {
                assert_eq!(in_pieces(text, keep), None, "{text}");
            }
            let written = crate::Parser::new().write_model(text, Vec::new());
            match (written, parse_model(text)) {
                (Err(a), Err(b)) => assert_eq!(a.diagnostics(), b.diagnostics()),
                (Ok(_), Ok(_)) => {}
                (a, b) => panic!("{text}: {:?} written, {:?} parsed", a.is_ok(), b.is_ok()),
            }
            assert_read_as_the_grammar_reads(text);
        }
    }
}
