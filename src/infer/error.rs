//! How an inference rule ends early: because something it needs is unknown
//! (no finding: unknown stays unknown), or because the node is wrong (a
//! finding, where onnx's strict inference fails too).

use std::fmt;

/// What is wrong with a node, for the finding's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Shapes that cannot go together: broadcasting, `MatMul`'s inner
    /// dimensions, `Concat`'s other axes.
    IncompatibleShapes,
    /// An `axis` or `axes` value outside `[-rank, rank)`.
    AxisOutOfRange,
    /// A value whose type its parameter's type constraint does not allow.
    TypeNotAllowed,
    /// Two values bound to the same type variable with different types.
    TypeMismatch,
    /// A declared type or shape (graph output, value info) that contradicts
    /// the inferred one.
    DeclaredMismatch,
    /// Anything else the operator's rules forbid: a rank the operator does
    /// not take, inconsistent attributes.
    Invalid,
}

impl ErrorKind {
    /// The diagnostic code.
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::IncompatibleShapes => "onnxtxt::infer::incompatible_shapes",
            ErrorKind::AxisOutOfRange => "onnxtxt::infer::axis_out_of_range",
            ErrorKind::TypeNotAllowed => "onnxtxt::infer::type_not_allowed",
            ErrorKind::TypeMismatch => "onnxtxt::infer::type_mismatch",
            ErrorKind::DeclaredMismatch => "onnxtxt::infer::declared_type_mismatch",
            ErrorKind::Invalid => "onnxtxt::infer::invalid",
        }
    }
}

/// A node that is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InferError {
    /// What kind of mistake.
    pub kind: ErrorKind,
    /// What is wrong, for people (`inner dimensions differ: 3 ≠ 4`).
    pub message: String,
}

impl fmt::Display for InferError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why a rule stopped before the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Something it needs is not known; what it set so far stands.
    Unknown,
    /// The node is wrong; nothing of it is inferred.
    Error(InferError),
}

impl From<InferError> for Stop {
    fn from(error: InferError) -> Stop {
        Stop::Error(error)
    }
}

/// What a rule returns.
pub type Outcome = Result<(), Stop>;

/// A [`Stop::Error`] of `kind`.
pub fn fail(kind: ErrorKind, message: impl Into<String>) -> Stop {
    Stop::Error(InferError {
        kind,
        message: message.into(),
    })
}

/// `Err(Stop::Error(..))` of `kind`, for rules to return.
pub fn failed<T>(kind: ErrorKind, message: impl Into<String>) -> Result<T, Stop> {
    Err(fail(kind, message))
}

/// Turns "not known" into [`Stop::Unknown`], for `?`.
pub trait Known<T> {
    /// The value, or [`Stop::Unknown`].
    fn known(self) -> Result<T, Stop>;
}

impl<T> Known<T> for Option<T> {
    fn known(self) -> Result<T, Stop> {
        self.ok_or(Stop::Unknown)
    }
}
