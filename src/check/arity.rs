//! Inputs and outputs of a node against what it calls.
