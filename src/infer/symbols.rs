//! Fresh names for unknown dimensions. As onnx does, every unknown
//! dimension of an inferred type gets a name of its own (`unk__0`,
//! `unk__1`, ...) when the type is recorded, so that a later node sees
//! that two dimensions are the same one; names the model already uses are
//! skipped.

use foldhash::HashSet;
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
    taken: HashSet<Arc<str>>,
    /// Graphs whose names are not read yet: they are when the first fresh
    /// name is wanted (most models want none, and reading a graph's
    /// subgraphs is a read of every node's attributes).
    unread: Vec<&'m GraphProto>,
}

impl<'m> Symbols<'m> {
    /// Notes that fresh names must differ from the dimension names of
    /// `graph`'s inputs, outputs and value infos, and of its subgraphs'.
    pub fn take_from(&mut self, graph: &'m GraphProto) {
        self.unread.push(graph);
    }

    /// Notes the dimension names of `graph` and its subgraphs as taken.
    fn read(&mut self, graph: &GraphProto) {
        let infos = graph
            .input
            .iter()
            .chain(&graph.output)
            .chain(&graph.value_info);
        for info in infos {
            self.take_from_info(info);
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
                    .for_each(|g| self.read(g));
            }
        }
    }

    fn take_from_info(&mut self, info: &ValueInfoProto) {
        if let Some(ty) = &info.r#type {
            Type::from_proto(ty).dims(&mut |d| {
                if let Dim::Param(p) = d {
                    self.taken.insert(p.clone());
                }
            });
        }
    }

    /// A name not in use.
    pub fn fresh(&mut self) -> Arc<str> {
        for graph in std::mem::take(&mut self.unread) {
            self.read(graph);
        }
        loop {
            let name: Arc<str> = format!("{FRESH_PREFIX}{}", self.next).into();
            self.next += 1;
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
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
}
