//! The fast readers: what reads most text without the grammar's layers of
//! combinators. Both give their input back untouched when it is not what
//! they read, and the grammar reads it instead; the `parse_text` fuzz
//! target and the tests check that they read exactly what it would.
//!
//! | file | reads |
//! |---|---|
//! | `plain/` | the common forms of model, graph and node, token by token |
//! | `pieces.rs` | a long node list or initializer list, in pieces on two threads |

pub(super) mod pieces;
pub(super) mod plain;

/// What `pieces.rs` hands the plain readers through the parser state: the
/// nodes of the pieces read apart, to splice in where the text had them,
/// and how many nodes the node run of a piece has. Opaque outside this
/// folder: the grammar carries it without knowing how pieces are spliced.
#[derive(Debug, Default)]
pub(crate) struct PieceNodes {
    splice: pieces::Splice,
    /// How many nodes (or initializers) the run of a piece has, counted
    /// before it is read, so that its vector is made once.
    run_items: usize,
}

/// Test builds count, on each thread, what the plain readers leave to the
/// grammar, so that tests can tell that they read what they are meant to.
#[cfg(test)]
pub(crate) mod tally {
    use std::cell::Cell;

    thread_local! {
        static READ: Cell<usize> = const { Cell::new(0) };
        static GIVEN_BACK: Cell<usize> = const { Cell::new(0) };
        static HANDED: Cell<usize> = const { Cell::new(0) };
        static BUILT_TO_ENCODE: Cell<usize> = const { Cell::new(0) };
    }

    /// A reader read its construct (a model, a graph, a node list).
    pub(crate) fn read() {
        READ.with(|n| n.set(n.get() + 1));
    }

    /// A reader gave its whole construct back to the grammar.
    pub(crate) fn given_back() {
        GIVEN_BACK.with(|n| n.set(n.get() + 1));
    }

    /// A reader handed a part (a subgraph, a function, an annotated node,
    /// ...) to a production of the grammar.
    pub(crate) fn handed() {
        HANDED.with(|n| n.set(n.get() + 1));
    }

    /// A reader built an attribute to encode it, not encoding it as read.
    pub(crate) fn attribute_built_to_encode() {
        BUILT_TO_ENCODE.with(|n| n.set(n.get() + 1));
    }

    /// How many attributes `work` built to encode them, on this thread.
    pub(crate) fn attributes_built_to_encode<T>(work: impl FnOnce() -> T) -> (T, usize) {
        let before = BUILT_TO_ENCODE.with(Cell::get);
        let output = work();
        (output, BUILT_TO_ENCODE.with(Cell::get) - before)
    }

    /// What `work` gave back and handed, on this thread.
    pub(crate) fn of<T>(work: impl FnOnce() -> T) -> (T, Tally) {
        let count = || Tally {
            read: READ.with(Cell::get),
            given_back: GIVEN_BACK.with(Cell::get),
            handed: HANDED.with(Cell::get),
        };
        let before = count();
        let output = work();
        let after = count();
        let tally = Tally {
            read: after.read - before.read,
            given_back: after.given_back - before.given_back,
            handed: after.handed - before.handed,
        };
        (output, tally)
    }

    /// The counts of a piece of work.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) struct Tally {
        /// Constructs read.
        pub(crate) read: usize,
        /// Constructs given back whole.
        pub(crate) given_back: usize,
        /// Parts handed to the grammar.
        pub(crate) handed: usize,
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use prost::Message as _;

    use super::tally::{self, Tally};
    use crate::proto::tensor_proto::DataType;
    use crate::proto::{GraphProto, ModelProto, TensorProto};
    use crate::{parse_model, parse_model_with_source_map, Parser};

    /// The model `text` parses to (on this thread, where the tally is
    /// kept), and what the plain readers left to the grammar.
    fn parse(text: &str) -> (ModelProto, Tally) {
        let (model, tally) = tally::of(|| Parser::new().threads(false).parse::<ModelProto>(text));
        (model.expect("the text parses"), tally)
    }

    /// The model `text` parses to with the plain readers and with the
    /// grammar alone: the same, or the same diagnostics.
    pub(super) fn assert_read_as_the_grammar_reads(text: &str) {
        // A parse that records a source map takes the grammar only.
        let plain = parse_model(text);
        let grammar = parse_model_with_source_map(text).map(|(model, _)| model);
        match (plain, grammar) {
            (Ok(a), Ok(b)) => assert_eq!(a.encode_to_vec(), b.encode_to_vec(), "{text}"),
            (Err(a), Err(b)) => assert_eq!(a.diagnostics(), b.diagnostics(), "{text}"),
            (plain, grammar) => panic!(
                "{text}: the plain readers give {:?}, the grammar {:?}",
                plain.map(|_| "a model"),
                grammar.map(|_| "a model")
            ),
        }
    }

    /// What of a model's main graph came encoded as read.
    pub(super) struct EncodedAsRead {
        pub(super) nodes: bool,
        pub(super) inputs_and_outputs: bool,
    }

    /// What of the main graph of `text` comes encoded as read (on one
    /// thread, as `Parser::encode_model` reads short texts), or `None` when
    /// it does not parse; in any case the bytes written, and their length
    /// told before, are those of the model's IR, or the error the same.
    pub(super) fn encoded_as_read(text: &str) -> Option<EncodedAsRead> {
        use crate::parser::entry::encode_on_one_thread;
        use crate::parser::write::EncodedModel;
        let ir = Parser::new().threads(false).parse::<ModelProto>(text);
        match (encode_on_one_thread(text), ir) {
            (Ok((model, runs, depth)), Ok(ir)) => {
                let graph = model.graph.as_ref();
                let read = EncodedAsRead {
                    nodes: graph.is_some_and(|g| g.node.is_empty()) && !runs.nodes.is_empty(),
                    inputs_and_outputs: graph
                        .is_some_and(|g| g.input.is_empty() && g.output.is_empty())
                        && !runs.inputs_and_outputs.is_empty(),
                };
                let expected = ir.encode_to_vec();
                let encoded = EncodedModel::new(model, runs, depth);
                assert_eq!(encoded.encoded_len(), expected.len(), "{text}");
                let mut bytes = Vec::new();
                encoded.write(&mut bytes).unwrap();
                assert!(bytes == expected, "{text}");
                Some(read)
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.diagnostics(), b.diagnostics(), "{text}");
                None
            }
            (encoded, ir) => panic!(
                "{text}: encoded {:?}, the IR {:?}",
                encoded.map(|_| "a model"),
                ir.map(|_| "a model")
            ),
        }
    }

    /// `text`, cut in half, with a stray token and with an unclosed
    /// bracket at its middle (its `char` nearest below).
    pub(super) fn broken(text: &str) -> [String; 3] {
        let middle = (0..=text.len() / 2)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        let (head, tail) = text.split_at(middle);
        [
            head.to_owned(),
            format!("{head} $ {tail}"),
            format!("{head} ( {tail}"),
        ]
    }

    /// The constructs the plain readers give back whole on `model`'s text:
    /// each graph with an initializer they do not read, one whose values
    /// are no list of numbers (strings, or no values at all), or with
    /// sparse initializers (the graph, and for the main graph the model
    /// too), which the grammar reads.
    fn expected_given_back(model: &ModelProto) -> usize {
        fn numbers(tensor: &TensorProto) -> bool {
            tensor.data_type != Some(DataType::String as i32)
                && !(tensor.float_data.is_empty()
                    && tensor.int32_data.is_empty()
                    && tensor.int64_data.is_empty()
                    && tensor.double_data.is_empty()
                    && tensor.uint64_data.is_empty()
                    && tensor.raw_data.as_ref().is_none_or(Vec::is_empty))
        }
        fn given_back(graph: &GraphProto) -> bool {
            !graph.initializer.iter().all(numbers) || !graph.sparse_initializer.is_empty()
        }
        fn graphs_given_back(graph: &GraphProto) -> usize {
            let nested: usize = graph
                .node
                .iter()
                .flat_map(|node| &node.attribute)
                .flat_map(|a| a.g.as_deref().into_iter().chain(&a.graphs))
                .map(graphs_given_back)
                .sum();
            usize::from(given_back(graph)) + nested
        }
        let main = model.graph.as_ref().map_or(0, graphs_given_back);
        let model_too = model.graph.as_ref().is_some_and(given_back);
        main + usize::from(model_too)
    }

    pub(super) fn examples() -> Vec<(PathBuf, String)> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("examples/ exists")
            .map(|entry| entry.expect("a readable entry").path())
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|path| {
                let text = std::fs::read_to_string(&path).expect("a readable example");
                (path, text)
            })
            .collect()
    }

    /// What the plain readers make of each shipped example: the models,
    /// graphs (with their initializers) and node lists are theirs;
    /// subgraph attributes, functions and nodes with annotations are
    /// handed over.
    #[test]
    fn the_plain_readers_read_the_examples() {
        let expected = [
            (
                "control_flow",
                Tally {
                    read: 4,
                    given_back: 0,
                    handed: 3,
                },
            ),
            (
                "local_function",
                Tally {
                    read: 2,
                    given_back: 0,
                    handed: 3,
                },
            ),
            (
                "mlp",
                Tally {
                    read: 1,
                    given_back: 0,
                    handed: 0,
                },
            ),
            (
                "quantized",
                Tally {
                    read: 1,
                    given_back: 0,
                    handed: 0,
                },
            ),
        ];
        let examples = examples();
        assert_eq!(examples.len(), expected.len());
        for ((path, text), (name, expected)) in examples.iter().zip(expected) {
            assert_eq!(path.file_stem().and_then(|s| s.to_str()), Some(name));
            let (model, tally) = parse(text);
            assert_eq!(tally, expected, "{name}");
            assert_eq!(tally.given_back, expected_given_back(&model), "{name}");
        }
    }

    /// Each shipped example is read in pieces, to the same model (test
    /// builds cut any text into pieces of about 64 bytes).
    #[test]
    fn the_examples_are_read_in_pieces() {
        use super::pieces::Keep;
        use crate::parser::grammar::{run, FAST_GRAMMAR};
        for (path, text) in examples() {
            let read = super::pieces::parse_counting(&text, Keep::Read, |tokens, state| {
                FAST_GRAMMAR.with(|cache| run(cache.get().model.clone(), tokens, &text, state).ok())
            });
            let ((model, ..), pieces) =
                read.unwrap_or_else(|| panic!("{} not read in pieces", path.display()));
            assert!(pieces >= 1, "{}: no piece read apart", path.display());
            assert_eq!(*model, parse(&text).0, "{}", path.display());
        }
    }

    /// Over the reference printer's text of every model of the conformance
    /// corpus: the plain readers read every graph but those with
    /// initializers, and read some construct of every model.
    #[test]
    #[ignore = "needs the conformance corpus: bash conformance/run.sh runs it"]
    fn the_plain_readers_read_the_corpus() {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join(
            std::env::var_os("ONNXTXT_CORPUS").unwrap_or_else(|| "target/conformance".into()),
        );
        let manifest = std::fs::read_to_string(corpus.join("manifest.tsv"))
            .expect("a conformance corpus: run bash conformance/run.sh");
        let mut models = 0;
        let mut misses = Vec::new();
        for line in manifest.lines().filter(|line| !line.starts_with('#')) {
            let fields: Vec<&str> = line.split('\t').collect();
            if fields.get(1..3) != Some(&["model", "ok"][..]) {
                continue;
            }
            let path = corpus.join(format!("{}.txt", fields[0]));
            let text = std::fs::read_to_string(&path).expect("the case's text");
            let (model, tally) = parse(&text);
            models += 1;
            if tally.read == 0 || tally.given_back != expected_given_back(&model) {
                misses.push(format!("{}: {tally:?}", fields[0]));
            }
        }
        eprintln!(
            "the plain readers read {} of {models} corpus models as expected",
            models - misses.len()
        );
        assert!(models > 1000, "only {models} models in the corpus");
        assert!(misses.is_empty(), "{}", misses.join("\n"));
    }
}
