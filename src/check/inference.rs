//! The type and shape pass: what [`crate::infer`] finds wrong, inferred as
//! `onnx.checker` infers (type constraints checked, no data propagation),
//! so that an error here is one the checker gives too.

use super::findings::Findings;
use super::model::Model;

pub(super) fn check(model: &Model<'_>, findings: &mut Findings) {
    findings.extend(crate::infer::check(model.proto));
}
