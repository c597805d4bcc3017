//! Operators with subgraphs: `If`, `Loop`, `Scan`, `SequenceMap`. Their
//! bodies hold random nodes of their own (reading the body's inputs and
//! the enclosing graphs' values) and give outputs of exactly the types the
//! operator needs; loops run a constant number of times.

use arbitrary::Result;

use super::{
    graph, graph_attribute, int_attribute, ints_attribute, node, value_info, Builder, Need, Recipe,
    Tensor, Valid, Value,
};
use crate::infer::{Dim, Type};
use crate::ops::Schema;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("If", if_node),
    ("Loop", loop_node),
    ("Scan", scan),
    ("SequenceMap", sequence_map),
];

/// The type of a scalar of `elem`.
fn scalar(elem: ElementType) -> Type {
    Type::tensor(elem.data_type() as i32, Vec::new())
}

fn tensor_type(t: &Tensor) -> Type {
    Type::tensor(t.elem.data_type() as i32, t.shape.clone())
}

/// How deep subgraphs nest (the main graph is depth 0).
const MAX_DEPTH: usize = 2;
/// The most nodes of a subgraph.
const MAX_BODY_NODES: usize = 3;

impl Valid<'_, '_> {
    /// The builder of a subgraph of a node of `outer`: its inputs of
    /// `types` (named here), the values of `outer` visible, and up to
    /// [`MAX_BODY_NODES`] random nodes; `None` when subgraphs are not
    /// allowed or too deep.
    fn body(&mut self, outer: &Builder, types: Vec<Type>) -> Result<Option<Builder>> {
        if !self.config.subgraphs || self.depth >= MAX_DEPTH {
            return Ok(None);
        }
        let mut inner = Builder {
            pool: outer.pool.clone(),
            ..Builder::default()
        };
        for ty in types {
            let value = Value {
                name: self.fresh("b"),
                ty,
                len: None,
            };
            inner.inputs.push(value_info(&value));
            inner.pool.push(value);
        }
        let nodes = self.u.int_in_range(0..=MAX_BODY_NODES)?;
        self.depth += 1;
        let done = self.nodes(&mut inner, nodes);
        self.depth -= 1;
        done?;
        Ok(Some(inner))
    }

    /// A body output of `inner`'s of exactly type `ty`, not one of
    /// `taken`: a value its nodes made, else one it can see passed through
    /// `Identity` (when the config allows it); `None` when there is none.
    fn body_output(
        &mut self,
        inner: &mut Builder,
        ty: &Type,
        taken: &[Value],
    ) -> Result<Option<Value>> {
        let made: Vec<Value> = inner
            .made
            .iter()
            .filter(|v| v.ty == *ty && !taken.contains(v))
            .cloned()
            .collect();
        let identity = self.schema("Identity");
        if !made.is_empty() && (identity.is_none() || self.chance(3, 4)?) {
            return Ok(Some(self.u.choose(&made)?.clone()));
        }
        let visible: Vec<String> = inner
            .pool
            .iter()
            .filter(|v| v.ty == *ty)
            .map(|v| v.name.clone())
            .collect();
        let (Some(identity), Ok(source)) = (identity, self.u.choose(&visible)) else {
            return Ok(None);
        };
        let value = Value {
            name: self.fresh("v"),
            ty: ty.clone(),
            len: None,
        };
        inner
            .nodes
            .push(node(identity, vec![source.clone()], Vec::new()));
        if let Some(n) = inner.nodes.last_mut() {
            n.output.push(value.name.clone());
        }
        inner.made.push(value.clone());
        Ok(Some(value))
    }

    /// The body of `inner` with outputs of `types` (values its nodes made,
    /// or ones it can see passed through), then `extra` more of any tensor
    /// type its nodes made; `None` when a type has no value.
    fn body_graph(
        &mut self,
        mut inner: Builder,
        types: &[Type],
        extra: usize,
    ) -> Result<Option<crate::proto::GraphProto>> {
        let mut outputs = Vec::with_capacity(types.len() + extra);
        for ty in types {
            let Some(value) = self.body_output(&mut inner, ty, &outputs)? else {
                return Ok(None);
            };
            outputs.push(value);
        }
        let mut made: Vec<Value> = inner
            .made
            .iter()
            .filter(|v| v.tensor().is_some() && !outputs.contains(v))
            .cloned()
            .collect();
        for _ in 0..extra.min(made.len()) {
            let i = self.index(made.len())?;
            outputs.push(made.remove(i));
        }
        let name = self.fresh("body");
        Ok(Some(graph(inner, name, &outputs)))
    }
}

/// `If` on a boolean scalar: both branches give a value of the type of one
/// the node can see (made by their nodes, or passed through).
fn if_node(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.config.element_types().to_vec();
    let Some(x) = g.operand(b, &elems, Need::ANY)? else {
        return Ok(false);
    };
    let ty = tensor_type(&x);
    let mut branches = Vec::with_capacity(2);
    for branch in ["then_branch", "else_branch"] {
        let Some(inner) = g.body(b, Vec::new())? else {
            return Ok(false);
        };
        let Some(body) = g.body_graph(inner, std::slice::from_ref(&ty), 0)? else {
            return Ok(false);
        };
        branches.push(graph_attribute(branch, body));
    }
    let Some(cond) = g.value_of(b, ElementType::Bool, &[])? else {
        return Ok(false);
    };
    Ok(g.add(b, node(schema, vec![cond], branches), 1))
}

/// `Loop` of a constant trip count (up to 3), a condition sometimes, up to
/// two carried tensors; the body's condition and carried values of their
/// input types, a scan output sometimes (one at least without carried
/// values).
fn loop_node(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let elems = g.config.element_types().to_vec();
    let mut carried = Vec::new();
    // Opset 7's version carries one value at least.
    let min_carried = schema.min_inputs().saturating_sub(2) as i64;
    for _ in 0..g.int(min_carried, 2)? {
        let Some(t) = g.operand(b, &elems, Need::ANY)? else {
            return Ok(false);
        };
        carried.push(t);
    }
    let carried_types: Vec<Type> = carried.iter().map(tensor_type).collect();
    let mut body_inputs = vec![scalar(ElementType::Int64), scalar(ElementType::Bool)];
    body_inputs.extend(carried_types.iter().cloned());
    let Some(inner) = g.body(b, body_inputs)? else {
        return Ok(false);
    };
    let mut outputs = vec![scalar(ElementType::Bool)];
    outputs.extend(carried_types);
    let scans = usize::from(carried.is_empty() || g.chance(1, 2)?);
    let Some(body) = g.body_graph(inner, &outputs, scans)? else {
        return Ok(false);
    };
    let made = body.output.len() - 1;
    if made == 0 {
        return Ok(false);
    }
    // Scan outputs of no iteration would have no element to take a shape
    // from: a loop that has them runs at least once, its condition a
    // constant true (onnx's evaluator takes a condition left out for false).
    let scanning = made > carried.len();
    let trips = g.int(i64::from(scanning), 3)?;
    let mut inputs = vec![g.int_scalar(b, trips)];
    inputs.push(if scanning {
        g.constant(b, ElementType::Bool, Vec::new(), &[1.0])
    } else if g.chance(1, 2)? {
        match g.value_of(b, ElementType::Bool, &[])? {
            Some(cond) => cond,
            None => return Ok(false),
        }
    } else {
        String::new()
    });
    inputs.extend(carried.into_iter().map(|t| t.name));
    Ok(g.add(
        b,
        node(schema, inputs, vec![graph_attribute("body", body)]),
        made,
    ))
}

/// `Scan` (from opset 9) of up to two tensors of one known length along
/// their first axis, forward or backward, with up to two state tensors;
/// the body's states of their input types, a scan output sometimes (one
/// at least).
fn scan(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    if schema.since_version() < 9 {
        return Ok(false);
    }
    let elems = g.config.element_types().to_vec();
    let Some(first) = g.operand(b, &elems, Need::rank(1, usize::MAX).fixed_in(0, 1))? else {
        return Ok(false);
    };
    let mut scanned = vec![first.clone()];
    if g.chance(1, 3)? {
        let elem = g.pick(&elems)?;
        let mut shape = vec![first.shape[0].clone()];
        shape.extend(g.small_dims(2)?.into_iter().map(Dim::Value));
        let Some(name) = g.value_of(b, elem, &shape)? else {
            return Ok(false);
        };
        scanned.push(Tensor { name, elem, shape });
    }
    let mut states = Vec::new();
    for _ in 0..g.int(0, 2)? {
        let Some(t) = g.operand(b, &elems, Need::ANY)? else {
            return Ok(false);
        };
        states.push(t);
    }
    let state_types: Vec<Type> = states.iter().map(tensor_type).collect();
    let mut body_inputs = state_types.clone();
    body_inputs.extend(
        scanned
            .iter()
            .map(|t| Type::tensor(t.elem.data_type() as i32, t.shape[1..].to_vec())),
    );
    let Some(inner) = g.body(b, body_inputs)? else {
        return Ok(false);
    };
    let scans = usize::from(states.is_empty() || g.chance(1, 2)?);
    let Some(body) = g.body_graph(inner, &state_types, scans)? else {
        return Ok(false);
    };
    let outputs = body.output.len();
    if outputs == 0 {
        return Ok(false);
    }
    let mut attributes = vec![int_attribute("num_scan_inputs", scanned.len() as i64)];
    if g.chance(1, 3)? {
        let directions = scanned
            .iter()
            .map(|_| g.int(0, 1))
            .collect::<Result<Vec<_>>>()?;
        attributes.push(ints_attribute("scan_input_directions", directions));
    }
    attributes.push(graph_attribute("body", body));
    let inputs = states.into_iter().chain(scanned).map(|t| t.name).collect();
    Ok(g.add(b, node(schema, inputs, attributes), outputs))
}

/// `SequenceMap` of a sequence (and sometimes a tensor given whole to
/// each call): the body gives one or two tensors a call, which make the
/// output sequences.
fn sequence_map(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(s) = super::sequence::sequence(g, b, None)? else {
        return Ok(false);
    };
    let Type::Sequence(element) = &s.ty else {
        return Ok(false);
    };
    if !matches!(**element, Type::Tensor(_)) {
        return Ok(false);
    }
    let mut inputs = vec![s.name.clone()];
    let mut body_inputs = vec![(**element).clone()];
    if g.chance(1, 3)? {
        let elems = g.config.element_types().to_vec();
        let Some(extra) = g.operand(b, &elems, Need::ANY)? else {
            return Ok(false);
        };
        body_inputs.push(tensor_type(&extra));
        inputs.push(extra.name);
    }
    let Some(inner) = g.body(b, body_inputs)? else {
        return Ok(false);
    };
    // At least one output: the element passed through when the body's
    // nodes made nothing.
    let first = if inner.made.iter().any(|v| v.tensor().is_some()) {
        Vec::new()
    } else {
        vec![(**element).clone()]
    };
    let extra = g.int(1, 2)? as usize;
    let Some(body) = g.body_graph(inner, &first, extra)? else {
        return Ok(false);
    };
    let outputs = body.output.len();
    if outputs == 0 {
        return Ok(false);
    }
    let body = graph_attribute("body", body);
    Ok(g.add_counted(b, node(schema, inputs, vec![body]), outputs, s.len))
}
