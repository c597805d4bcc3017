//! A graph held by a node's attribute (the body of an `If`, a `Loop`, a
//! `Scan`) read from its encoding for the print ([`GraphView`]): its nodes
//! read by node views and its initializers by tensor views, as the main
//! graph's are, at every depth; only its other fields (name, inputs,
//! outputs, value infos…) are decoded, by `prost`, after the walk checked
//! them. It accepts only what the walk accepts, as the node view does
//! (`node_view.rs`, whose reader it shares): anything else leaves the
//! node that holds the graph to the walk and `prost`.

use super::node_view::{key, within_nesting, NodeView, Reader, LEN};
use super::tensor_view::TensorView;
use super::{Gapped, Nodes, Walker, GRAPH_INITIALIZER, GRAPH_NODE};
use crate::proto::GraphProto;
use prost::Message as _;

/// A graph read from its encoding (see the module's documentation).
#[derive(Default)]
pub(crate) struct GraphView<'a> {
    /// Its fields but its nodes and initializers.
    pub(crate) rest: GraphProto,
    pub(crate) node: Vec<NodeView<'a>>,
    pub(crate) initializer: Vec<TensorView<'a>>,
}

impl<'a> GraphView<'a> {
    /// Reads the graph `reader` reads, nested `depth` deep in the model;
    /// `None` when it holds, at any depth, what the views do not read, or
    /// what the walk could refuse.
    pub(super) fn read(mut reader: Reader<'a>, depth: usize) -> Option<GraphView<'a>> {
        let mut graph = GraphView::default();
        // Where the other fields are in the input, tag included.
        let mut rest = Vec::new();
        while !reader.done() {
            let start = reader.pos();
            match reader.varint()? {
                k if k == key(GRAPH_NODE.into(), LEN) => {
                    let mut node = NodeView::default();
                    node.read_at(reader.message()?, within_nesting(depth + 1)?)?;
                    graph.node.push(node);
                }
                k if k == key(GRAPH_INITIALIZER.into(), LEN) => {
                    within_nesting(depth + 1)?;
                    let mut initializer = TensorView::default();
                    initializer.read_from(reader.message()?)?;
                    graph.initializer.push(initializer);
                }
                k => {
                    reader.skip(k)?;
                    rest.push(start..reader.pos());
                }
            }
        }
        if !rest.is_empty() {
            // Walked as the walk of the model walks them, their strings
            // left to `prost`, which checks them.
            let walker = Walker::new::<GraphProto>(reader.input(), Nodes::Walked);
            for field in &rest {
                (walker.message(walker.top, field.start, field.end, depth, false)).ok()?;
            }
            graph.rest = GraphProto::decode(Gapped::new(reader.input(), &rest)).ok()?;
        }
        Some(graph)
    }

    /// The graph as the IR holds it: what `prost` decodes of its encoding.
    pub(crate) fn to_proto(&self) -> GraphProto {
        GraphProto {
            node: self.node.iter().map(NodeView::to_proto).collect(),
            initializer: self.initializer.iter().map(TensorView::to_proto).collect(),
            ..self.rest.clone()
        }
    }
}
