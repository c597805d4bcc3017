//! Value names interned once per body: each graph or function body's
//! value names (its inputs, outputs, initializers, value infos and its
//! nodes' inputs and outputs) numbered densely, so that inference and the
//! checker's scope rules keep what they know of a value in vectors indexed
//! by that number instead of maps keyed by its name. A large model's names
//! are read (hashed and compared) once, here, rather than at every lookup.
//!
//! A body sees the values of the bodies it is nested in (a subgraph, its
//! node's body, and so on out), as the IR's scoping rules say: each of its
//! names also says where the nearest enclosing body that names it the same
//! numbers it ([`Outer`]), so that a lookup the body cannot answer goes on
//! outward without reading the name again.
//!
//! [`Tables`] holds the tables of a model's bodies by body, made once and
//! shared: `check` makes them for its walk and hands them to inference.

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};

use crate::name_key::{same, NameKey};
use crate::proto::{FunctionProto, GraphProto, NodeProto};

/// A value's number in its body's [`Names`].
pub(crate) type ValueId = u32;

/// How many of the names numbered last [`Names::intern`] compares a name
/// with before it looks it up in the map.
const RECENT: usize = 4;

/// Where a name goes on to when its body does not define it: the body
/// `up` levels out that names it too, and its number there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Outer {
    pub(crate) up: usize,
    pub(crate) id: ValueId,
}

/// The value names of one body, numbered.
#[derive(Debug)]
pub(crate) struct Names<'m> {
    index: HashMap<NameKey<'m>, ValueId>,
    names: Vec<&'m str>,
    /// Where each node's numbers start in `occurrences` (one more entry
    /// than nodes): its inputs', then its outputs'.
    starts: Vec<u32>,
    occurrences: Vec<ValueId>,
    /// For each number, where the name goes on to outside the body (empty
    /// for a body nested in none).
    outer: Vec<Option<Outer>>,
}

impl<'m> Names<'m> {
    /// The names of `graph`, nested in the bodies `enclosing` (the
    /// nearest first); `visit` sees each node, with its index, as its
    /// names are numbered.
    pub(crate) fn of_graph(
        graph: &'m GraphProto,
        enclosing: &[&Names<'m>],
        visit: impl FnMut(usize, &'m NodeProto),
    ) -> Self {
        let infos = graph
            .value_info
            .iter()
            .chain(&graph.input)
            .chain(&graph.output)
            .map(|info| info.name.as_deref());
        let initializers = graph.initializer.iter().map(|t| t.name.as_deref());
        let sparse = graph
            .sparse_initializer
            .iter()
            .map(|s| s.values.as_ref().and_then(|v| v.name.as_deref()));
        let declared = infos.chain(initializers).chain(sparse);
        let count = graph.value_info.len()
            + graph.input.len()
            + graph.output.len()
            + graph.initializer.len()
            + graph.sparse_initializer.len();
        let declared = (declared.map(Option::unwrap_or_default), count);
        Names::new(declared, &graph.node, enclosing, visit)
    }

    /// The names of `function`'s body, `visit` seeing each node (as
    /// [`Names::of_graph`]).
    pub(crate) fn of_function(
        function: &'m FunctionProto,
        visit: impl FnMut(usize, &'m NodeProto),
    ) -> Self {
        let declared = function.input.iter().chain(&function.output);
        let count = function.input.len() + function.output.len();
        let declared = (declared.map(String::as_str), count);
        Names::new(declared, &function.node, &[], visit)
    }

    /// The names `declared` (as many as it says), then those of `nodes`,
    /// each node handed to `visit` while it is read.
    fn new(
        (declared, count): (impl Iterator<Item = &'m str>, usize),
        nodes: &'m [NodeProto],
        enclosing: &[&Names<'m>],
        mut visit: impl FnMut(usize, &'m NodeProto),
    ) -> Self {
        // Sized for nodes of one output and two inputs, as most are,
        // without a pass over the nodes to count.
        let values = count + nodes.len();
        let mut names = Names {
            index: HashMap::with_capacity(values),
            names: Vec::with_capacity(values),
            starts: Vec::with_capacity(nodes.len() + 1),
            occurrences: Vec::with_capacity(3 * nodes.len()),
            outer: Vec::new(),
        };
        for name in declared {
            names.intern(name);
        }
        for (index, node) in nodes.iter().enumerate() {
            // `visit` reads them (the first read since the model was made).
            if let Some(ahead) = nodes.get(index + 2) {
                prefetch_attributes(ahead);
            }
            names.starts.push(names.occurrences.len() as u32);
            for name in node.input.iter().chain(&node.output) {
                let id = names.intern(name);
                names.occurrences.push(id);
            }
            visit(index, node);
        }
        names.starts.push(names.occurrences.len() as u32);
        if enclosing.is_empty() {
            return names;
        }
        names.outer = names
            .names
            .iter()
            .map(|name| {
                let mut levels = enclosing.iter().enumerate();
                levels.find_map(|(level, outer)| {
                    let id = outer.id(name)?;
                    Some(Outer { up: level + 1, id })
                })
            })
            .collect();
        names
    }

    fn intern(&mut self, name: &'m str) -> ValueId {
        // A node mostly reads what the nodes just before it wrote, the
        // names numbered last: those are found without hashing the name
        // or probing the map (a read of memory far from the last).
        let mut recent = self.names.iter().rev().take(RECENT);
        if let Some(back) = recent.position(|numbered| same(numbered, name)) {
            return (self.names.len() - 1 - back) as ValueId;
        }
        let next = self.names.len() as ValueId;
        let id = *self.index.entry(NameKey(name)).or_insert(next);
        if id == next {
            self.names.push(name);
        }
        id
    }

    /// How many names the body has.
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    /// The number of `name`, if the body names it.
    pub(crate) fn id(&self, name: &str) -> Option<ValueId> {
        self.index.get(&NameKey(name)).copied()
    }

    /// The name numbered `id`.
    pub(crate) fn name(&self, id: ValueId) -> &'m str {
        self.names[id as usize]
    }

    /// Every name with its number, in the order of the numbers.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (ValueId, &'m str)> + '_ {
        (0..).zip(self.names.iter().copied())
    }

    /// The numbers of node `node`'s inputs then outputs, in order.
    fn occurrences_of(&self, node: usize) -> &[ValueId] {
        let (start, end) = (self.starts[node], self.starts[node + 1]);
        &self.occurrences[start as usize..end as usize]
    }

    /// The numbers of node `node`'s inputs (it has `inputs` of them).
    pub(crate) fn inputs(&self, node: usize, inputs: usize) -> &[ValueId] {
        &self.occurrences_of(node)[..inputs]
    }

    /// The numbers of node `node`'s outputs (it has `inputs` inputs).
    pub(crate) fn outputs(&self, node: usize, inputs: usize) -> &[ValueId] {
        &self.occurrences_of(node)[inputs..]
    }

    /// Where `id`'s name goes on to outside the body.
    pub(crate) fn outer(&self, id: ValueId) -> Option<Outer> {
        self.outer.get(id as usize).copied().flatten()
    }
}

/// Asks the processor to start loading `node`'s attributes, for a walk
/// over the nodes that reads them soon, from memory a pass over the model
/// has let go cold: a hint, which changes nothing but when the memory
/// arrives (and nothing at all but on `x86_64`).
pub(crate) fn prefetch_attributes(node: &NodeProto) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = node.attribute.as_ptr().cast::<i8>();
        let bytes = std::mem::size_of_val(node.attribute.as_slice());
        for offset in (0..bytes).step_by(64) {
            // SAFETY: a prefetch is a hint: it neither reads nor faults,
            // whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = node;
}

/// The tables of a model's bodies, by the body (its address).
#[derive(Debug, Default, Clone)]
pub(crate) struct Tables<'m>(HashMap<usize, Arc<Names<'m>>>);

impl<'m> Tables<'m> {
    /// The table of `graph`, nested in `enclosing` (the nearest first),
    /// made if it is not there yet.
    pub(crate) fn graph(
        &mut self,
        graph: &'m GraphProto,
        enclosing: &[&Names<'m>],
    ) -> Arc<Names<'m>> {
        self.graph_visiting(graph, enclosing, |_, _| {})
    }

    /// [`Tables::graph`], `visit` seeing each node as the table is made
    /// (not when it was there already): what a caller reads of the nodes
    /// is read in the same pass as their names.
    pub(crate) fn graph_visiting(
        &mut self,
        graph: &'m GraphProto,
        enclosing: &[&Names<'m>],
        visit: impl FnMut(usize, &'m NodeProto),
    ) -> Arc<Names<'m>> {
        let key = graph as *const GraphProto as usize;
        let table = self.0.entry(key);
        table
            .or_insert_with(|| Arc::new(Names::of_graph(graph, enclosing, visit)))
            .clone()
    }

    /// The table of `function`'s body, made if it is not there yet.
    pub(crate) fn function(&mut self, function: &'m FunctionProto) -> Arc<Names<'m>> {
        self.function_visiting(function, |_, _| {})
    }

    /// [`Tables::function`], `visit` seeing each node as the table is
    /// made (as [`Tables::graph_visiting`]).
    pub(crate) fn function_visiting(
        &mut self,
        function: &'m FunctionProto,
        visit: impl FnMut(usize, &'m NodeProto),
    ) -> Arc<Names<'m>> {
        let key = function as *const FunctionProto as usize;
        let table = self.0.entry(key);
        table
            .or_insert_with(|| Arc::new(Names::of_function(function, visit)))
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> crate::proto::ModelProto {
        crate::parse_model(text).unwrap()
    }

    #[test]
    fn names_that_share_a_prefix_or_are_empty_get_their_own_numbers() {
        let m = model(
            "<ir_version: 10, opset_import: [\"\": 21]>\n\
             g (float x, float m) => (float xy) { xy_ = Clip (x, , m) \n xy = Relu (xy_) }",
        );
        let graph = m.graph.as_ref().unwrap();
        let names = Names::of_graph(graph, &[], |_, _| {});
        let ids: Vec<_> = ["x", "m", "xy", "xy_", ""]
            .map(|n| names.id(n).unwrap())
            .into();
        let mut distinct = ids.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 5);
        for (id, name) in names.iter() {
            assert_eq!(names.id(name), Some(id));
        }
        assert_eq!(names.inputs(0, 3), &[ids[0], ids[4], ids[1]]);
        assert_eq!(names.outputs(0, 3), &[ids[3]]);
        assert_eq!(names.inputs(1, 1), &[ids[3]]);
        assert_eq!(names.outputs(1, 1), &[ids[2]]);
    }

    #[test]
    fn each_name_read_or_written_has_the_number_the_map_gives_it() {
        // Names read right after they are written, a few nodes later and
        // much later, that differ from recent ones by a character (`v12`,
        // `v13`) or in length (`v1`, `v10`), and inputs given twice.
        let nodes: String = (1..300)
            .map(|i| format!("v{i} = Add (v{}, v{})\n", i - 1, i - 1 - i % 7.min(i)))
            .collect();
        let chain = format!(
            "<ir_version: 10, opset_import: [\"\": 21]>\n\
             g (float v0) => (float v299) {{\n{nodes}}}"
        );
        let mut corpus = crate::ir_path::corpus_texts();
        corpus.push(("chain".into(), chain));
        let mut checked = 0;
        for (file, text) in &corpus {
            let Ok(m) = crate::parse_model(text) else {
                continue;
            };
            let Some(graph) = &m.graph else { continue };
            let names = Names::of_graph(graph, &[], |_, _| {});
            for (index, node) in graph.node.iter().enumerate() {
                let numbered = names.occurrences_of(index);
                let looked_up: Vec<_> = node
                    .input
                    .iter()
                    .chain(&node.output)
                    .map(|n| names.id(n).unwrap())
                    .collect();
                assert_eq!(numbered, looked_up, "node {index} of {file}");
                for (&id, name) in numbered.iter().zip(node.input.iter().chain(&node.output)) {
                    assert_eq!(names.name(id), name, "node {index} of {file}");
                }
                checked += 1;
            }
        }
        assert!(checked > 400, "{checked} nodes");
    }

    #[test]
    fn a_subgraph_name_goes_on_to_the_nearest_enclosing_body_that_has_it() {
        let m = model(
            "<ir_version: 10, opset_import: [\"\": 21]>\n\
             g (bool c, float a, float b) => (float y) {\n\
               y = If (c) <then_branch = t () => (float z) { z = Add (a, b) },\n\
                           else_branch = e () => (float w) { w = Identity (b) }>\n}",
        );
        let graph = m.graph.as_ref().unwrap();
        let mut tables = Tables::default();
        let outer = tables.graph(graph, &[]);
        let branch = graph.node[0].attribute[0].g.as_ref().unwrap();
        let inner = tables.graph(branch, &[&outer]);
        let a = inner.id("a").unwrap();
        let outer_a = Outer {
            up: 1,
            id: outer.id("a").unwrap(),
        };
        assert_eq!(inner.outer(a), Some(outer_a));
        assert_eq!(inner.outer(inner.id("z").unwrap()), None);
        // The same graph gets the same table.
        assert!(Arc::ptr_eq(&inner, &tables.graph(branch, &[])));
    }
}
