//! From a model a predicate finds interesting (it makes a runtime crash,
//! two runtimes disagree on it, ...) to the smallest model found that it
//! still finds interesting: test-case reduction, as `wasm-tools shrink`
//! does it for WebAssembly and C-Reduce for C.
//!
//! ```
//! use onnxtxt::shrink::{shrink, Options};
//!
//! // The fault: a model with a `Softsign` after a `Neg`, deep in the graph.
//! let model = onnxtxt::parse_model(r#"
//!     <ir_version: 10, opset_import: ["": 21]>
//!     g (float[N, 4] x) => (float[N, 4] y) {
//!         a = Relu(x)
//!         b = Sigmoid(a)
//!         c = Neg(b)
//!         d = Softsign(c)
//!         e = Add(d, a)
//!         y = Tanh(e)
//!     }
//! "#)?;
//! let faulty = |m: &onnxtxt::proto::ModelProto| {
//!     let nodes = &m.graph.as_ref().unwrap().node;
//!     nodes.windows(2).any(|w| w[0].op_type() == "Neg" && w[1].op_type() == "Softsign")
//! };
//! let shrunk = shrink(model, &Options::default(), faulty).unwrap();
//! assert_eq!(shrunk.nodes, (6, 2));
//! assert_eq!(onnxtxt::to_text(&shrunk.model), r#"<
//!   ir_version: 10,
//!   opset_import: ["": 21]
//! >
//! g (float[1,4] x) => (float[1,4] d) {
//!   c = Neg (x)
//!   d = Softsign (c)
//! }
//! "#);
//! # Ok::<(), onnxtxt::Error>(())
//! ```
//!
//! # How it works
//!
//! The shrinker keeps the smallest interesting model found (fewest nodes,
//! counting those of subgraphs and functions, then fewest bytes) and tries
//! edits of it, one pass of a kind of edit after another, until a whole
//! round of passes changes nothing (a fixpoint):
//!
//! 1. keep one of the main graph's outputs and the nodes it needs;
//! 2. remove nodes, in every graph, subgraph and function: chunks of half
//!    the nodes first, then smaller ones down to single nodes (delta
//!    debugging). What the other nodes read of a removed node's outputs
//!    is one of its inputs of the same type, or a new graph input of the
//!    inferred type (`body.rs` finds the bodies, `edits.rs` edits them);
//! 3. replace an `If` by one of its branches, a `Loop` or `Scan` by its
//!    body's nodes, a call of a model-local function by the function's;
//! 4. drop doc strings, metadata, value infos, functions, opset imports,
//!    initializers and graph inputs; make initializers inputs; make
//!    tensors one element, symbolic dimensions 1;
//! 5. remove attributes (to their defaults), shorten list attributes.
//!
//! An edit is kept when the model it gives is smaller, valid (no error
//! from [`crate::check_model`], which runs inference too; unless
//! [`Options::allow_invalid`]) and interesting. The predicate sees only
//! such candidates, so it sees models a runtime would accept.
//! Candidates are tried in batches of [`Options::jobs`] at once; the
//! first interesting one of a batch is kept, so the result does not
//! depend on `jobs`. [`Options::seed`] orders the finer edits: the same
//! seed always gives the same result.

mod body;
mod edits;

use std::ops::ControlFlow;
use std::rc::Rc;

use prost::Message;

use crate::check::Finding;
use crate::proto::ModelProto;
use body::{bodies, node_count};
// For smith's IR 3 subgraphs.
#[cfg(feature = "smith")]
pub(crate) use edits::constant_node;
use edits::{Edit, Facts};

/// How to shrink.
#[derive(Clone, Debug)]
pub struct Options {
    /// Orders the edits of the finer passes; the same seed gives the same
    /// result.
    pub seed: u64,
    /// Let the predicate see models that [`crate::check_model`] finds
    /// errors in (and accept an invalid model to start from).
    pub allow_invalid: bool,
    /// How many candidates the predicate is asked about at once, each on
    /// a thread of its own (at least 1).
    pub jobs: usize,
}

impl Default for Options {
    /// Seed 0, valid models only, one candidate at a time.
    fn default() -> Self {
        Options {
            seed: 0,
            allow_invalid: false,
            jobs: 1,
        }
    }
}

/// The result of shrinking.
#[derive(Debug)]
pub struct Shrunk {
    /// The smallest interesting model found.
    pub model: ModelProto,
    /// The nodes (of every graph and function) before and after.
    pub nodes: (usize, usize),
    /// How many times the predicate was asked.
    pub runs: usize,
    /// Whether the observer stopped the search before its fixpoint.
    pub stopped: bool,
}

/// Where a search stands, for an observer ([`shrink_observed`]).
#[derive(Debug)]
pub struct Status<'a> {
    /// The smallest interesting model found so far.
    pub best: &'a ModelProto,
    /// Its nodes.
    pub nodes: usize,
    /// The predicate's runs so far.
    pub runs: usize,
}

/// Why shrinking could not start.
#[derive(Debug)]
pub enum Error {
    /// The predicate does not find the input interesting.
    NotInteresting,
    /// The input has errors (and [`Options::allow_invalid`] is off): these.
    Invalid(Vec<Finding>),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotInteresting => write!(f, "the predicate does not find the input interesting"),
            Error::Invalid(findings) => write!(
                f,
                "the input has {} error(s) (first: {}); shrink it with allow_invalid",
                findings.len(),
                findings
                    .first()
                    .map_or("", |e| e.diagnostic.message.as_str())
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Shrinks `model` to the smallest model found that `interesting` holds
/// for (see the [module docs](self)).
pub fn shrink(
    model: ModelProto,
    options: &Options,
    interesting: impl Fn(&ModelProto) -> bool + Sync,
) -> Result<Shrunk, Error> {
    shrink_observed(model, options, interesting, |_| ControlFlow::Continue(()))
}

/// [`shrink`], calling `observe` after each batch of predicate runs: for
/// progress, and to stop early (`ControlFlow::Break`) with the smallest
/// model found so far.
pub fn shrink_observed(
    model: ModelProto,
    options: &Options,
    interesting: impl Fn(&ModelProto) -> bool + Sync,
    observe: impl FnMut(&Status<'_>) -> ControlFlow<()>,
) -> Result<Shrunk, Error> {
    if !options.allow_invalid {
        let errors: Vec<Finding> = crate::check_model(&model)
            .into_iter()
            .filter(Finding::is_error)
            .collect();
        if !errors.is_empty() {
            return Err(Error::Invalid(errors));
        }
    }
    if !interesting(&model) {
        return Err(Error::NotInteresting);
    }
    let before = node_count(&model);
    let mut shrinker = Shrinker {
        size: size(&model),
        facts: Rc::new(Facts::of(&model)),
        best: model,
        options,
        interesting: &interesting,
        observe,
        runs: 1,
        stopped: false,
    };
    shrinker.run();
    Ok(Shrunk {
        nodes: (before, shrinker.size.0),
        runs: shrinker.runs,
        stopped: shrinker.stopped,
        model: shrinker.best,
    })
}

/// What makes a model smaller: fewer nodes, then fewer bytes.
type Size = (usize, usize);

fn size(model: &ModelProto) -> Size {
    (node_count(model), model.encoded_len())
}

/// The search: the best model so far and what the passes need.
struct Shrinker<'a, P, O> {
    best: ModelProto,
    size: Size,
    /// What edits need to know of the best model.
    facts: Rc<Facts>,
    options: &'a Options,
    interesting: &'a P,
    observe: O,
    runs: usize,
    stopped: bool,
}

impl<P, O> Shrinker<'_, P, O>
where
    P: Fn(&ModelProto) -> bool + Sync,
    O: FnMut(&Status<'_>) -> ControlFlow<()>,
{
    /// The passes, in rounds until one changes nothing.
    fn run(&mut self) {
        loop {
            let mut changed = self.keep_one_output();
            changed |= self.remove_nodes();
            changed |= self.inline_subgraphs();
            changed |= self.pass(false, |_, facts| edits::cleanups(facts));
            changed |= self.pass(true, |model, _| edits::drops(model));
            changed |= self.pass(true, |model, _| {
                bodies(model)
                    .iter()
                    .flat_map(|body| edits::attribute_edits(model, body))
                    .collect()
            });
            if !changed || self.stopped {
                return;
            }
        }
    }

    fn keep_one_output(&mut self) -> bool {
        let outputs = self.best.graph.as_ref().map_or(0, |g| g.output.len());
        let edits: Vec<Edit> = (0..outputs)
            .map(|i| Box::new(move |m: &mut ModelProto| edits::keep_one_output(m, i)) as Edit)
            .collect();
        self.first_success(&edits).is_some()
    }

    /// Delta debugging over each body's nodes: remove chunks of half its
    /// nodes, from the end, then of a quarter, ..., down to single nodes.
    fn remove_nodes(&mut self) -> bool {
        let mut changed = false;
        let mut b = 0;
        while let Some(body) = bodies(&self.best).get(b).cloned() {
            let len = |best: &ModelProto| body.nodes(best).map_or(0, <[_]>::len);
            let mut chunk = len(&self.best).div_ceil(2);
            let mut cursor = 0;
            while chunk > 0 && !self.stopped {
                let n = len(&self.best);
                let ranges: Vec<_> = (0..n.div_ceil(chunk))
                    .rev()
                    .map(|k| k * chunk..((k + 1) * chunk).min(n))
                    .collect();
                let edits: Vec<Edit> = ranges
                    .into_iter()
                    .skip(cursor)
                    .map(|range| {
                        let (body, facts) = (body.clone(), Rc::clone(&self.facts));
                        Box::new(move |m: &mut ModelProto| {
                            edits::remove_nodes(m, &facts, &body, range.clone())
                        }) as Edit
                    })
                    .collect();
                match self.first_success(&edits) {
                    Some(i) => {
                        changed = true;
                        cursor += i;
                    }
                    None => {
                        chunk /= 2;
                        cursor = 0;
                    }
                }
            }
            b += 1;
        }
        changed
    }

    /// Replaces `If`, `Loop` and `Scan` nodes by a subgraph's nodes, and
    /// calls of the model's functions by their bodies.
    fn inline_subgraphs(&mut self) -> bool {
        self.pass(false, |model, _| {
            let mut found: Vec<Edit> = Vec::new();
            for body in bodies(model) {
                for (n, node) in body.nodes(model).unwrap_or_default().iter().enumerate() {
                    for &branch in edits::inlinable(node) {
                        let body = body.clone();
                        found.push(Box::new(move |m| edits::inline(m, &body, n, branch)));
                    }
                    if edits::called_function(model, node).is_some() {
                        let body = body.clone();
                        found.push(Box::new(move |m| edits::inline_call(m, &body, n)));
                    }
                }
            }
            found
        })
    }

    /// Runs the edits `generate` gives for the best model (in an order
    /// drawn from the seed if `shuffled`); after each success, those it
    /// gives for the new best, from where the last success was.
    fn pass(
        &mut self,
        shuffled: bool,
        generate: impl Fn(&ModelProto, &Rc<Facts>) -> Vec<Edit>,
    ) -> bool {
        let mut changed = false;
        let mut start = 0;
        while !self.stopped {
            let mut edits = generate(&self.best, &self.facts);
            if shuffled {
                shuffle(&mut edits, self.options.seed);
            }
            let Some(rest) = edits.get(start..).filter(|r| !r.is_empty()) else {
                break;
            };
            match self.first_success(rest) {
                Some(i) => {
                    changed = true;
                    start += i;
                }
                None => break,
            }
        }
        changed
    }

    /// Tries `edits` in order, in batches of `jobs`: each applied to a copy
    /// of the best model is a candidate if it applies and makes the model
    /// smaller and (unless allowed otherwise) valid; the candidates of a
    /// batch go to the predicate at once. The first interesting one becomes
    /// the best, and its edit's index is returned.
    fn first_success(&mut self, edits: &[Edit]) -> Option<usize> {
        let jobs = self.options.jobs.max(1);
        let mut next = 0;
        while next < edits.len() && !self.stopped {
            let mut batch = Vec::with_capacity(jobs);
            while batch.len() < jobs && next < edits.len() {
                if let Some(candidate) = self.candidate(&edits[next]) {
                    batch.push((next, candidate));
                }
                next += 1;
            }
            if batch.is_empty() {
                break;
            }
            let verdicts = self.ask(&batch);
            self.runs += batch.len();
            let kept = batch.into_iter().zip(verdicts).find(|(_, yes)| *yes);
            if let Some(((index, (model, size)), _)) = kept {
                self.facts = Rc::new(Facts::of(&model));
                self.best = model;
                self.size = size;
                self.notify();
                return Some(index);
            }
            self.notify();
        }
        None
    }

    /// The model `edit` makes of the best, if it is a candidate.
    fn candidate(&self, edit: &Edit) -> Option<(ModelProto, Size)> {
        let mut model = self.best.clone();
        if !edit(&mut model) {
            return None;
        }
        let size = size(&model);
        if size >= self.size {
            return None;
        }
        let valid =
            self.options.allow_invalid || !crate::check_model(&model).iter().any(Finding::is_error);
        valid.then_some((model, size))
    }

    /// The predicate's verdict on each candidate, asked on a thread each.
    fn ask(&self, batch: &[(usize, (ModelProto, Size))]) -> Vec<bool> {
        let interesting = self.interesting;
        if let [(_, (model, _))] = batch {
            return vec![interesting(model)];
        }
        std::thread::scope(|scope| {
            let asked: Vec<_> = batch
                .iter()
                .map(|(_, (model, _))| scope.spawn(move || interesting(model)))
                .collect();
            // A predicate that panics counts as not interesting here; the
            // panic is the predicate's to report.
            asked
                .into_iter()
                .map(|h| h.join().unwrap_or(false))
                .collect()
        })
    }

    fn notify(&mut self) {
        let status = Status {
            best: &self.best,
            nodes: self.size.0,
            runs: self.runs,
        };
        if (self.observe)(&status).is_break() {
            self.stopped = true;
        }
    }
}

/// Shuffles `list` (Fisher-Yates, drawing from splitmix64 seeded with
/// `seed`): the same way for the same seed and length.
fn shuffle<T>(list: &mut [T], seed: u64) {
    let mut state = seed;
    for i in (1..list.len()).rev() {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        list.swap(i, (z % (i as u64 + 1)) as usize);
    }
}
