//! A graph held by a node's attribute (the body of an `If`, a `Loop`, a
//! `Scan`) read from its encoding for the print ([`GraphView`]): its nodes
//! read by node views and its initializers by tensor views, as the main
//! graph's are, at every depth, all kept from one read to the next (as the
//! graph view is by the node view that holds it); only its other fields (name, inputs,
//! outputs, value infos…) are decoded, by `prost`, after the walk checked
//! them. It accepts only what the walk accepts, as the node view does
//! (`node_view.rs`, whose reader it shares): anything else leaves the
//! node that holds the graph to the walk and `prost`.

use std::ops::Range;

use super::kept_list::KeptList;
use super::node_view::{key, within_nesting, NodeView, Reader, LEN};
use super::tensor_view::TensorView;
use super::{merged, Nodes, Walker, GRAPH_INITIALIZER, GRAPH_NODE};
use crate::proto::GraphProto;

/// A graph read from its encoding (see the module's documentation).
#[derive(Default)]
pub(crate) struct GraphView<'a> {
    /// Its fields but its nodes and initializers.
    pub(crate) rest: GraphProto,
    pub(crate) node: KeptList<NodeView<'a>>,
    pub(crate) initializer: KeptList<TensorView<'a>>,
    /// Where the fields of `rest` are in the input, tag included.
    rest_fields: Vec<Range<usize>>,
}

impl<'a> GraphView<'a> {
    /// Reads the graph `reader` reads, nested `depth` deep in the model,
    /// into this view, cleared first (its nodes' and initializers' views
    /// kept); `None`, the view's content unspecified, when it holds, at any
    /// depth, what the views do not read, or what the walk could refuse.
    pub(super) fn read(&mut self, mut reader: Reader<'a>, depth: usize) -> Option<()> {
        self.node.clear();
        self.initializer.clear();
        self.rest_fields.clear();
        while !reader.done() {
            let start = reader.pos();
            match reader.varint()? {
                k if k == key(GRAPH_NODE.into(), LEN) => {
                    let depth = within_nesting(depth + 1)?;
                    self.node.push_kept().read_at(reader.message()?, depth)?;
                }
                k if k == key(GRAPH_INITIALIZER.into(), LEN) => {
                    within_nesting(depth + 1)?;
                    self.initializer.push_kept().read_from(reader.message()?)?;
                }
                k => {
                    reader.skip(k)?;
                    self.rest_fields.push(start..reader.pos());
                }
            }
        }
        self.rest = GraphProto::default();
        if !self.rest_fields.is_empty() {
            // Walked as the walk of the model walks them, their strings
            // left to `prost`, which checks them.
            let walker = Walker::new::<GraphProto>(reader.input(), Nodes::Walked);
            for field in &self.rest_fields {
                (walker.message(walker.top, field.start, field.end, depth, false)).ok()?;
            }
            self.rest = merged(reader.input(), &self.rest_fields).ok()?;
        }
        Some(())
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
