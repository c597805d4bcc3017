//! The operator families, one file each. A family's file lists its rules
//! in a `RULES` constant (see the rule table in `infer/mod.rs`); naming the
//! file in `families!` below is all it takes to put them in the table.

mod common;

/// Declares each family's module and gathers their `RULES`.
macro_rules! families {
    ($($family:ident),* $(,)?) => {
        $(mod $family;)*
        /// Every family's rules.
        pub(super) const FAMILIES: &[&[super::rules::Rule]] = &[$($family::RULES),*];
    };
}

families! {
    attention,
    control,
    conv,
    elementwise,
    generator,
    image,
    linalg,
    misc,
    ml,
    norm,
    quant,
    reduce,
    rnn,
    select,
    sequence,
    shape,
    signal,
    text,
    training,
}
