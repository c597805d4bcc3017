//! What an editor asks about a text, answered in byte offsets: the
//! diagnostics, what is at an offset, where a name is defined and used,
//! what is in scope, the outline, folding ranges, semantic classes of the
//! tokens, hover text, completions, renames and formatting edits.
//!
//! An [`Analysis`] is made once per version of a text and then asked
//! questions; everything is plain data (no editor protocol here: the
//! language server, `onnxtxt lsp`, converts offsets to positions and the
//! answers to its protocol). It reads text that does not parse too: the
//! parser recovers from each error, so what parsed around a mistake is
//! still known, and a text that is half typed still gets its diagnostics.
//!
//! ```
//! use onnxtxt::analysis::{Analysis, Role};
//!
//! let text = "<ir_version: 10, opset_import: [\"\": 21]>\n\
//!             g (float[N] x) => (float[N] y) {\n  t = Relu(x)\n  y = Neg(t)\n}";
//! let analysis = Analysis::new(text);
//! assert!(analysis.diagnostics().is_empty());
//!
//! // `t` in `Neg(t)` is defined by the Relu node.
//! let use_of_t = text.rfind("(t)").unwrap() + 1;
//! let definition = analysis.definition(use_of_t).unwrap();
//! assert_eq!(&text[definition.clone()], "t");
//! assert!(definition.start < use_of_t);
//! let references = analysis.references(use_of_t);
//! assert_eq!(references.iter().map(|r| r.role).collect::<Vec<_>>(), [Role::Definition, Role::Use]);
//! ```

mod complete;
mod diagnostics;
mod formatting;
mod hover;
mod index;
mod lexemes;
mod outline;
mod rename;
mod tokens;

use std::sync::OnceLock;

use crate::check::Severity;
use crate::error::{Diagnostic, Span};
use crate::proto::ModelProto;
use index::{EntryKind, Index};
use lexemes::Lexemes;

pub use complete::{Completion, CompletionKind};
pub use outline::{Fold, FoldKind, Outline, OutlineKind};
pub use rename::RenameError;
pub use tokens::{SemanticToken, TokenClass};

/// How an occurrence of a name relates to what it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Where it is defined: a graph or function input, an initializer, a
    /// node output, a function's name, an attribute a function declares.
    Definition,
    /// Where it is read: a node input, a graph or function output, a call
    /// of a function, an attribute reference `@name`.
    Use,
    /// Where its type is declared apart from its definition (a graph's
    /// `<...>` list of value infos).
    Declaration,
}

/// What defines a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueOrigin {
    /// An input of a graph.
    GraphInput,
    /// An initializer of a graph (one in the input list is an input too).
    Initializer,
    /// An output of a node, the `slot`-th.
    NodeOutput {
        /// The position in the node's outputs.
        slot: usize,
    },
    /// An input of a function.
    FunctionInput,
    /// Nothing: the name is used but never defined.
    Undefined,
}

/// What a named thing is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// A value of a graph or function body.
    Value(ValueOrigin),
    /// A model-local function.
    Function,
    /// An attribute a function declares, which its body refers to as
    /// `@name`.
    FunctionAttribute,
}

/// A graph or a function body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyKind {
    /// A graph: the model's, or a subgraph held by an attribute.
    Graph,
    /// A model-local function.
    Function,
}

/// A problem of the text: a syntax error, or a finding of
/// [`crate::check`] (which run only on text that parses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Error or warning.
    pub severity: Severity,
    /// What, where (`span`, `labels` for related places) and how to fix it
    /// (`help`). The message has no IR path in front: the span says
    /// where.
    pub diagnostic: Diagnostic,
}

/// One occurrence of a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The name's text (with its quotes, if quoted).
    pub span: Span,
    /// Definition, use or declaration.
    pub role: Role,
}

/// What is at an offset of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item<'a> {
    /// The text of the item (a name, an operator, a key, a type word).
    pub span: Span,
    /// What it is.
    pub kind: ItemKind<'a>,
}

/// The kinds of [`Item`]s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemKind<'a> {
    /// A named thing: a value, a model-local function (at its definition
    /// or a call), or a function's attribute (at its declaration or an
    /// `@name` reference).
    Symbol {
        /// The name.
        name: &'a str,
        /// What it names.
        kind: SymbolKind,
        /// How this occurrence relates to it.
        role: Role,
    },
    /// The operator of a node (one of the operator registry, or unknown).
    Operator {
        /// Its domain as written (`""` for the default).
        domain: &'a str,
        /// Its name.
        op_type: &'a str,
    },
    /// The name of an attribute of a node.
    AttributeName {
        /// The attribute's name.
        name: &'a str,
        /// The node's operator.
        op_type: &'a str,
    },
    /// An attribute reference `@name` that names nothing the enclosing
    /// function declares.
    AttributeReference,
    /// A node's label, `[name]`.
    Label,
    /// A key of a model or function header.
    HeaderKey,
    /// An element type, type constructor or attribute type.
    Type,
}

/// Everything known about one version of a text.
#[derive(Debug)]
pub struct Analysis {
    text: String,
    lexemes: Lexemes,
    model: Option<ModelProto>,
    index: Index,
    problems: Vec<Problem>,
    /// Spans of header keys, type words, dimensions and annotation keys,
    /// by class (see [`tokens`]).
    words: Vec<(Span, TokenClass)>,
    /// What inference gives the values of the graphs (see
    /// [`hover::inferred_types`]); worked out at the first hover that
    /// asks.
    inferred: OnceLock<hover::InferredTypes>,
}

impl Analysis {
    /// Analyses `text`: parses it (recovering from errors), checks it when
    /// it parses, and indexes its names.
    pub fn new(text: &str) -> Self {
        let partial = crate::parser::parse_model_partial(text);
        let lexemes = Lexemes::new(text);
        let index = partial
            .model
            .as_ref()
            .map(|model| Index::new(model, &partial.map, &lexemes))
            .unwrap_or_default();
        let problems = diagnostics::problems(text, &partial);
        let words = tokens::words(text, &lexemes, &partial.map, &index);
        Analysis {
            text: text.to_owned(),
            lexemes,
            model: partial.model,
            index,
            problems,
            words,
            inferred: OnceLock::new(),
        }
    }

    /// The text analysed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The model, as far as it could be read: items that did not parse
    /// are default items; `None` when not even the outline could be read.
    pub fn model(&self) -> Option<&ModelProto> {
        self.model.as_ref()
    }

    /// Every problem: syntax errors, or (when the text parses) what
    /// [`crate::check`] finds; in the order of the text.
    pub fn diagnostics(&self) -> &[Problem] {
        &self.problems
    }

    /// What is at `offset` (a cursor just after a name is on it).
    ///
    /// ```
    /// use onnxtxt::analysis::{Analysis, ItemKind};
    ///
    /// let text = "g (float x) => (float y) { y = Relu(x) }";
    /// let analysis = Analysis::new(text);
    /// let item = analysis.item_at(text.find("Relu").unwrap()).unwrap();
    /// assert_eq!(item.kind, ItemKind::Operator { domain: "", op_type: "Relu" });
    /// assert_eq!(&text[item.span], "Relu");
    /// ```
    pub fn item_at(&self, offset: usize) -> Option<Item<'_>> {
        if let Some(entry) = self.index.entry_at(offset) {
            return Some(Item {
                span: entry.span.clone(),
                kind: self.item_kind(entry.kind),
            });
        }
        let (span, class) = self.word_at(offset)?;
        let kind = match class {
            TokenClass::Keyword => ItemKind::HeaderKey,
            TokenClass::Type => ItemKind::Type,
            _ => return None,
        };
        Some(Item { span, kind })
    }

    fn item_kind(&self, kind: EntryKind) -> ItemKind<'_> {
        match kind {
            EntryKind::Symbol(id, role) => {
                let symbol = &self.index.symbols[id];
                ItemKind::Symbol {
                    name: &symbol.name,
                    kind: symbol.kind,
                    role,
                }
            }
            EntryKind::Operator(node) => {
                let node = &self.index.nodes[node];
                ItemKind::Operator {
                    domain: &node.domain,
                    op_type: &node.op_type,
                }
            }
            EntryKind::AttributeName(node, attribute) => {
                let node = &self.index.nodes[node];
                ItemKind::AttributeName {
                    name: &node.attributes[attribute],
                    op_type: &node.op_type,
                }
            }
            EntryKind::Reference => ItemKind::AttributeReference,
            EntryKind::Label(_) => ItemKind::Label,
        }
    }

    /// The word (header key, type, ...) at `offset`, with its class.
    fn word_at(&self, offset: usize) -> Option<(Span, TokenClass)> {
        let after = self.words.partition_point(|(s, _)| s.start <= offset);
        let (span, class) = self.words[..after].last()?;
        (span.contains(&offset) || span.end == offset).then(|| (span.clone(), *class))
    }

    /// The symbol (by index) whose occurrence is at `offset`.
    fn symbol_at(&self, offset: usize) -> Option<usize> {
        match self.index.entry_at(offset)?.kind {
            EntryKind::Symbol(id, _) => Some(id),
            _ => None,
        }
    }

    /// Where the name at `offset` is defined: a value's definition (its
    /// first, if it has several), a model-local function's name, the
    /// declaration of a function's attribute.
    pub fn definition(&self, offset: usize) -> Option<Span> {
        self.index.symbols[self.symbol_at(offset)?]
            .definition
            .clone()
    }

    /// Every occurrence of the name at `offset`, in the order of the text,
    /// definitions included; empty when there is no name there.
    pub fn references(&self, offset: usize) -> Vec<Reference> {
        let Some(id) = self.symbol_at(offset) else {
            return Vec::new();
        };
        self.index
            .occurrences(id)
            .map(|(span, role)| Reference {
                span: span.clone(),
                role,
            })
            .collect()
    }

    /// The values visible at `offset`, as `(name, definition)`: those of
    /// its graph or function defined before the node at `offset`, then
    /// those of the graphs around it, each name once, innermost first.
    ///
    /// ```
    /// let text = "g (float x) => (float y) {\n  t = Relu(x)\n  y = Neg(t)\n  z = Abs(y)\n}";
    /// let analysis = onnxtxt::analysis::Analysis::new(text);
    /// let names: Vec<_> = analysis
    ///     .values_in_scope(text.find("Neg").unwrap())
    ///     .into_iter()
    ///     .map(|(name, _)| name)
    ///     .collect();
    /// assert_eq!(names, ["x", "t"]);
    /// ```
    pub fn values_in_scope(&self, offset: usize) -> Vec<(&str, Span)> {
        let Some(body) = self.index.body_at(offset) else {
            return Vec::new();
        };
        self.index
            .values_in_scope(body, offset)
            .into_iter()
            .filter_map(|id| {
                let symbol = &self.index.symbols[id];
                Some((symbol.name.as_str(), symbol.definition.clone()?))
            })
            .collect()
    }

    /// The text's outline: its graph and functions, with their nodes (by
    /// label, or else by first output) and the subgraphs those hold.
    pub fn outline(&self) -> Vec<Outline> {
        outline::outline(self)
    }

    /// The ranges an editor may fold: multi-line brackets and runs of
    /// comment lines.
    pub fn folding_ranges(&self) -> Vec<Fold> {
        outline::folds(self)
    }

    /// Every token worth colouring, with its class, in the order of the
    /// text (see [`TokenClass`]).
    pub fn semantic_tokens(&self) -> Vec<SemanticToken> {
        tokens::semantic_tokens(self)
    }

    /// Hover text for `offset`, in Markdown, with the span it is about.
    ///
    /// ```
    /// let text = "<ir_version: 10, opset_import: [\"\": 13]>\ng (float x) => (float y) { y = Relu(x) }";
    /// let analysis = onnxtxt::analysis::Analysis::new(text);
    /// let (span, markdown) = analysis.hover(text.find("Relu").unwrap()).unwrap();
    /// assert_eq!(&text[span], "Relu");
    /// assert!(markdown.contains("Relu (ai.onnx) version 13"));
    /// ```
    pub fn hover(&self, offset: usize) -> Option<(Span, String)> {
        hover::hover(self, offset)
    }

    /// What may be written at `offset`.
    pub fn completions(&self, offset: usize) -> Vec<Completion> {
        complete::completions(self, offset)
    }

    /// The span of the name at `offset` if it can be renamed (a value or
    /// a model-local function).
    pub fn prepare_rename(&self, offset: usize) -> Result<Span, RenameError> {
        rename::prepare(self, offset)
    }

    /// The edits that rename the name at `offset` to `new_name`
    /// everywhere, in the order of the text.
    ///
    /// ```
    /// let text = "g (float x) => (float y) { t = Relu(x) y = Neg(t) }";
    /// let analysis = onnxtxt::analysis::Analysis::new(text);
    /// let edits = analysis.rename(text.find("t =").unwrap(), "hidden").unwrap();
    /// assert_eq!(edits.len(), 2);
    /// assert!(analysis.rename(text.find("t =").unwrap(), "x").is_err()); // taken
    /// assert!(analysis.rename(text.find("t =").unwrap(), "a b").is_err()); // needs quotes
    /// ```
    pub fn rename(
        &self,
        offset: usize,
        new_name: &str,
    ) -> Result<Vec<(Span, String)>, RenameError> {
        rename::rename(self, offset, new_name)
    }

    /// The edits that format the text in the canonical style, comments
    /// kept ([`crate::format()`]): one for each run of changed lines.
    /// `None` when the text does not parse.
    pub fn format_edits(&self) -> Option<Vec<(Span, String)>> {
        formatting::format_edits(&self.text)
    }
}

/// `name` as a quoted string: in quotes, with `\\` and `"` escaped.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests;
