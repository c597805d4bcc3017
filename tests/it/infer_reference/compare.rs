//! How two inferred types of one value compare: equal, one knowing less
//! or more than the other, or contradicting each other.

use onnxtxt::infer::{contradiction, Dim, TensorType, Type, UNDEFINED};

#[derive(Debug, PartialEq)]
pub enum Verdict {
    Agree,
    /// onnxtxt knows less than the reference.
    Less,
    /// onnxtxt knows more.
    More,
    /// They contradict each other, or each knows something the other
    /// does not (the reason).
    Disagree(String),
}

/// Compares onnxtxt's type of a value with the reference's (`None`: no
/// type at all).
pub fn compare(reference: Option<&Type>, ours: Option<&Type>) -> Verdict {
    let unknown = Type::Unknown;
    let (reference, ours) = (reference.unwrap_or(&unknown), ours.unwrap_or(&unknown));
    if reference == ours {
        return Verdict::Agree;
    }
    if let Some(why) = contradiction(ours, reference) {
        return Verdict::Disagree(why);
    }
    let mut knowledge = Knowledge::default();
    knowledge.types(reference, ours);
    match (knowledge.less, knowledge.more, knowledge.differ) {
        (_, _, Some(why)) => Verdict::Disagree(why),
        (true, true, None) => Verdict::Disagree("each knows something the other does not".into()),
        (true, false, None) => Verdict::Less,
        (false, true, None) => Verdict::More,
        (false, false, None) => Verdict::Agree,
    }
}

#[derive(Default)]
struct Knowledge {
    less: bool,
    more: bool,
    differ: Option<String>,
}

impl Knowledge {
    fn types(&mut self, reference: &Type, ours: &Type) {
        match (reference, ours) {
            (Type::Unknown, Type::Unknown) => {}
            (Type::Unknown, _) => self.more = true,
            (_, Type::Unknown) => self.less = true,
            (Type::Tensor(r), Type::Tensor(o)) | (Type::SparseTensor(r), Type::SparseTensor(o)) => {
                self.tensors(r, o)
            }
            (Type::Sequence(r), Type::Sequence(o)) | (Type::Optional(r), Type::Optional(o)) => {
                self.types(r, o)
            }
            (Type::Map(rk, r), Type::Map(ok, o)) => {
                self.known(*rk != UNDEFINED, *ok != UNDEFINED);
                self.types(r, o);
            }
            _ => {}
        }
    }

    fn known(&mut self, reference: bool, ours: bool) {
        self.less |= reference && !ours;
        self.more |= ours && !reference;
    }

    fn tensors(&mut self, reference: &TensorType, ours: &TensorType) {
        self.known(
            reference.elem_type != UNDEFINED,
            ours.elem_type != UNDEFINED,
        );
        match (&reference.shape, &ours.shape) {
            (Some(r), Some(o)) => {
                for (r, o) in r.iter().zip(o) {
                    match (r, o) {
                        (Dim::Param(a), Dim::Param(b)) if a != b => {
                            self.differ = Some(format!("dimension named {a} against {b}"));
                        }
                        (Dim::Param(_), Dim::Value(_)) => self.more = true,
                        (Dim::Value(_), Dim::Param(_)) => self.less = true,
                        _ => self.known(r.is_known(), o.is_known()),
                    }
                }
            }
            (r, o) => self.known(r.is_some(), o.is_some()),
        }
    }
}
