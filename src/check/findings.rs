//! The [`Findings`] list the passes add to (the [`Finding`]s themselves
//! are [`crate::finding`]'s), how findings are put in the order of the
//! model, and how messages name the items they are about (nodes and named
//! items as [`crate::finding`] names them, for inference too).

use crate::error::Diagnostic;
use crate::finding::message;
pub(crate) use crate::finding::{named_subject, node_subject, quoted, Finding, Severity};
use crate::ir_path::{IrPath, Step};

/// The family of rules a finding comes from. Findings about one item of
/// the model are put in this order (the order of the families in the
/// table of the [module](super)), whatever order the walk over the nodes
/// found them in.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Family {
    #[default]
    Header,
    Scope,
    Tensors,
    Operators,
    Parameters,
    Inference,
    AsOperator,
}

/// The findings of one check, which every pass adds to.
#[derive(Default)]
pub(crate) struct Findings {
    /// Each finding with the family of rules that found it.
    list: Vec<(Family, Finding)>,
    /// The family of the findings added now.
    family: Family,
}

impl Findings {
    /// The findings, with what is added from now on counted as `family`'s.
    pub(crate) fn of(&mut self, family: Family) -> &mut Findings {
        self.family = family;
        self
    }

    /// Adds a finding about `subject` (how the message names the
    /// construct), at IR path `path`.
    pub(crate) fn push(
        &mut self,
        severity: Severity,
        code: &'static str,
        subject: &str,
        path: impl Into<String>,
        summary: impl Into<String>,
    ) -> &mut Finding {
        let summary = summary.into();
        let mut diagnostic = Diagnostic::new(code, message(subject, &summary), 0..0);
        diagnostic.path = Some(path.into());
        let finding = Finding {
            severity,
            diagnostic,
            summary,
            related: Vec::new(),
        };
        self.list.push((self.family, finding));
        &mut self.list.last_mut().expect("just pushed").1
    }

    /// Adds an error.
    pub(crate) fn error(
        &mut self,
        code: &'static str,
        subject: &str,
        path: impl Into<String>,
        summary: impl Into<String>,
    ) -> &mut Finding {
        self.push(Severity::Error, code, subject, path, summary)
    }

    /// Adds a warning.
    pub(crate) fn warning(
        &mut self,
        code: &'static str,
        subject: &str,
        path: impl Into<String>,
        summary: impl Into<String>,
    ) -> &mut Finding {
        self.push(Severity::Warning, code, subject, path, summary)
    }

    /// The errors found so far.
    pub(crate) fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.list.iter().map(|(_, f)| f).filter(|f| f.is_error())
    }

    /// Adds findings made elsewhere (by [`crate::infer`]).
    pub(crate) fn extend(&mut self, found: impl IntoIterator<Item = Finding>) {
        let family = self.family;
        self.list.extend(found.into_iter().map(|f| (family, f)));
    }

    /// The findings in the order of the model: the header's, then the
    /// graph's, then each function's, and within those by node (a node's
    /// subgraphs after it); by [`Family`] about the same node, in the order
    /// they were found otherwise.
    pub(crate) fn in_model_order(mut self) -> Vec<Finding> {
        self.list.sort_by_cached_key(|(family, f)| {
            let (top, nodes) = model_order(f.diagnostic.path.as_deref().unwrap_or(""));
            (top, nodes, *family)
        });
        self.list.into_iter().map(|(_, f)| f).collect()
    }
}

/// Where IR path `path` is in the model, for sorting: 0 for the header, 1
/// for the graph, 2 + i for `functions[i]`; then the node indices along
/// the path (`graph.node[3].attribute["body"].g.node[1]` gives `[3, 1]`).
fn model_order(path: &str) -> (usize, Vec<usize>) {
    let Some(path) = IrPath::parse(path) else {
        return (0, Vec::new());
    };
    let top = match path.steps() {
        [Step::Field(field), ..] if field == "graph" => 1,
        [Step::Field(field), Step::Index(index), ..] if field == "functions" => 2 + index,
        _ => 0,
    };
    (top, path.node_indices().collect())
}

/// How a message names a function: `functions[0] "local.Swish"`.
pub(crate) fn function_subject(function: &crate::proto::FunctionProto, path: &str) -> String {
    let name = function.name.as_deref().unwrap_or("");
    match function.domain.as_deref() {
        Some(domain) if !domain.is_empty() => named_subject(path, &format!("{domain}.{name}")),
        _ => named_subject(path, name),
    }
}

#[cfg(test)]
mod tests {
    use super::model_order;

    #[test]
    fn paths_sort_in_the_order_of_the_model() {
        let mut paths = vec![
            "functions[1].node[0]",
            "graph.node[10].input[0]",
            "functions[0]",
            "graph.node[2].attribute[\"body\"].g.node[1]",
            "graph.node[2]",
            "graph.output[0]",
            "opset_import[1]",
            "graph.node[2].attribute[\"body\"].g.node[0]",
        ];
        paths.sort_by_key(|p| model_order(p));
        assert_eq!(
            paths,
            [
                "opset_import[1]",
                "graph.output[0]",
                "graph.node[2]",
                "graph.node[2].attribute[\"body\"].g.node[0]",
                "graph.node[2].attribute[\"body\"].g.node[1]",
                "graph.node[10].input[0]",
                "functions[0]",
                "functions[1].node[0]",
            ]
        );
    }
}
