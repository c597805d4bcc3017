//! Fresh names for unknown dimensions. As onnx does, every unknown
//! dimension of an inferred type gets a name of its own (`unk__0`,
//! `unk__1`, ...) when the type is recorded, so that a later node sees
//! that two dimensions are the same one; names the model already uses are
//! skipped. Only a model's names of that very form can be taken: they are
//! kept as their numbers, and a fresh name is written once.

use foldhash::HashSet;
use std::fmt::Write;
use std::sync::Arc;

use crate::proto::{GraphProto, ValueInfoProto};

use super::names::prefetch_attributes;
use super::types::{Dim, Type};

/// The prefix of the names given to unknown dimensions.
pub const FRESH_PREFIX: &str = "unk__";

/// The names in use and the next number to try.
#[derive(Default)]
pub(super) struct Symbols<'m> {
    next: u64,
    /// The numbers `n` of the model's dimension names written `unk__n` (as
    /// a fresh name is written: no sign, no leading zero), the only ones
    /// a fresh name could be. Fresh names themselves go up from `next`.
    taken: HashSet<u64>,
    /// Graphs whose names are not read yet: they are when the first fresh
    /// name is wanted (most models want none, and finding a graph's
    /// subgraphs is a read of every node's attributes).
    unread: Vec<Unread<'m>>,
    /// Where a fresh name is written before it is shared.
    text: String,
}

/// A graph whose dimension names are still to be read.
enum Unread<'m> {
    /// The graph and its subgraphs, found by a read of its nodes.
    WithSubgraphs(&'m GraphProto),
    /// The graph alone: its subgraphs are listed on their own.
    Alone(&'m GraphProto),
}

impl<'m> Symbols<'m> {
    /// Notes that fresh names must differ from the dimension names of
    /// `graph`'s inputs, outputs and value infos, and of its subgraphs'.
    pub fn take_from(&mut self, graph: &'m GraphProto) {
        self.unread.push(Unread::WithSubgraphs(graph));
    }

    /// [`Symbols::take_from`] for a graph and every subgraph in it, all
    /// listed in `graphs` (found by the caller): no node is read to find
    /// them.
    pub fn take_from_each(&mut self, graphs: impl IntoIterator<Item = &'m GraphProto>) {
        self.unread.extend(graphs.into_iter().map(Unread::Alone));
    }

    /// Notes the dimension names of `graph` as taken, and those of its
    /// subgraphs when `subgraphs`.
    fn read(&mut self, graph: &GraphProto, subgraphs: bool) {
        let infos = graph
            .input
            .iter()
            .chain(&graph.output)
            .chain(&graph.value_info);
        for info in infos {
            self.take_from_info(info);
        }
        if !subgraphs {
            return;
        }
        for (index, node) in graph.node.iter().enumerate() {
            // A node takes a few nanoseconds here: ask for the attributes
            // of one well ahead.
            if let Some(ahead) = graph.node.get(index + 16) {
                prefetch_attributes(ahead);
            }
            for attribute in &node.attribute {
                attribute
                    .g
                    .as_deref()
                    .into_iter()
                    .chain(&attribute.graphs)
                    .for_each(|g| self.read(g, true));
            }
        }
    }

    fn take_from_info(&mut self, info: &ValueInfoProto) {
        if let Some(ty) = &info.r#type {
            Type::from_proto(ty).dims(&mut |d| {
                if let Some(number) = fresh_number(d) {
                    self.taken.insert(number);
                }
            });
        }
    }

    /// A name not in use.
    pub fn fresh(&mut self) -> Arc<str> {
        for graph in std::mem::take(&mut self.unread) {
            match graph {
                Unread::WithSubgraphs(graph) => self.read(graph, true),
                Unread::Alone(graph) => self.read(graph, false),
            }
        }
        while self.taken.contains(&self.next) {
            self.next += 1;
        }
        self.text.clear();
        let _ = write!(self.text, "{FRESH_PREFIX}{}", self.next);
        self.next += 1;
        Arc::from(self.text.as_str())
    }

    /// Names every unknown dimension of `ty`.
    pub fn materialize(&mut self, ty: &mut Type) {
        ty.dims_mut(&mut |d| {
            if !d.is_known() {
                *d = Dim::Param(self.fresh());
            }
        });
    }
}

/// The number `n` of a dimension named `unk__n`, written as a fresh name
/// is written.
fn fresh_number(dim: &Dim) -> Option<u64> {
    let Dim::Param(name) = dim else { return None };
    let digits = name.strip_prefix(FRESH_PREFIX)?;
    let canonical =
        digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'));
    canonical.then(|| digits.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_names_skip_the_models_own() {
        let model = crate::parse_model(
            r#"<ir_version: 10, opset_import: ["": 21]>
            g (float[unk__0, N] x) => (float[unk__2] y) { y = Relu(x) }"#,
        )
        .unwrap();
        let mut symbols = Symbols::default();
        symbols.take_from(model.graph.as_ref().unwrap());
        assert_eq!(&*symbols.fresh(), "unk__1");
        assert_eq!(&*symbols.fresh(), "unk__3");
        let mut ty = Type::from_proto(&crate::parse_type("float[?,3,?]").unwrap());
        symbols.materialize(&mut ty);
        assert_eq!(ty.to_string(), "float[unk__4,3,unk__5]");
    }

    #[test]
    fn fresh_names_skip_the_names_of_subgraphs_and_of_every_graph_noted() {
        let model = crate::parse_model(
            r#"<ir_version: 10, opset_import: ["": 21]>
            g (bool c, float[unk__0] x) => (float[N] y) {
                y = If (c) <then_branch = t () => (float[unk__1] z) { z = Relu (x) },
                            else_branch = e () => (float[unk__3] w) { w = Relu (x) }>
            }"#,
        )
        .unwrap();
        let other = crate::parse_model(
            r#"<ir_version: 10, opset_import: ["": 21]>
            g (float[unk__4] x) => (float[unk__2] y) { y = Relu(x) }"#,
        )
        .unwrap();
        let mut symbols = Symbols::default();
        symbols.take_from(model.graph.as_ref().unwrap());
        symbols.take_from(other.graph.as_ref().unwrap());
        let fresh: Vec<String> = (0..3).map(|_| symbols.fresh().to_string()).collect();
        assert_eq!(fresh, ["unk__5", "unk__6", "unk__7"]);
    }

    #[test]
    fn fresh_names_skip_only_the_models_names_written_as_fresh_ones() {
        let model = crate::parse_model(
            r#"<ir_version: 10, opset_import: ["": 21]>
            g (float[unk__01, unk__1x, unk__, unk__2] x) => (float[unk__00, unk__18446744073709551616] y) {
                y = Relu(x)
            }"#,
        )
        .unwrap();
        let mut symbols = Symbols::default();
        symbols.take_from(model.graph.as_ref().unwrap());
        let fresh: Vec<String> = (0..3).map(|_| symbols.fresh().to_string()).collect();
        assert_eq!(fresh, ["unk__0", "unk__1", "unk__3"]);
    }

    #[test]
    fn graphs_listed_each_are_read_without_their_subgraphs() {
        let model = crate::parse_model(
            r#"<ir_version: 10, opset_import: ["": 21]>
            g (bool c, float[unk__1] x) => (float[N] y) {
                y = If (c) <then_branch = t () => (float[unk__0] z) { z = Relu (x) },
                            else_branch = e () => (float[unk__2] w) { w = Relu (x) }>
            }"#,
        )
        .unwrap();
        let graph = model.graph.as_ref().unwrap();
        let then_branch = graph.node[0].attribute[0].g.as_deref().unwrap();
        let mut symbols = Symbols::default();
        symbols.take_from_each([graph, then_branch]);
        let fresh: Vec<String> = (0..2).map(|_| symbols.fresh().to_string()).collect();
        assert_eq!(fresh, ["unk__2", "unk__3"]);
    }
}
