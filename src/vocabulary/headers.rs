//! The keys of the reference's model and function headers, in the order
//! the printer writes them. Any other key in those headers is an
//! annotation key of the model or function (an extension, see
//! `annotation_keys.rs`), which `--compat` leaves out.

/// The keys of a model header `<...>` that the reference syntax has.
pub(crate) const MODEL_HEADER_KEYS: [&str; 8] = [
    "ir_version",
    "opset_import",
    "producer_name",
    "producer_version",
    "domain",
    "model_version",
    "doc_string",
    "metadata_props",
];

/// The keys of a function header `<...>` that the reference syntax has.
pub(crate) const FUNCTION_HEADER_KEYS: [&str; 4] =
    ["domain", "overload", "opset_import", "doc_string"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Printer;

    /// Each key, in order, as compat mode writes it: none dropped, and the
    /// text parses back to the same IR.
    fn assert_written_in_order<T: crate::Print + crate::Parse + PartialEq + std::fmt::Debug>(
        item: &T,
        keys: &[&str],
    ) {
        let printed = Printer::new().compat(true).print(item);
        assert!(printed.dropped.is_empty(), "{:?}", printed.dropped);
        let written: Vec<&str> = printed
            .text
            .lines()
            .filter_map(|line| line.trim().split_once(": ").map(|(key, _)| key))
            .filter(|key| keys.contains(key))
            .collect();
        assert_eq!(written, keys, "{}", printed.text);
        assert_eq!(
            &crate::Parser::new().parse::<T>(&printed.text).unwrap(),
            item
        );
    }

    #[test]
    fn the_printer_writes_every_reference_key_in_compat_mode() {
        let model = crate::parse_model(
            r#"<ir_version: 10, opset_import: ["": 21], producer_name: "p", producer_version: "1",
                domain: "d", model_version: 2, doc_string: "s", metadata_props: ["k": "v"]>
               g () => () {}"#,
        )
        .unwrap();
        assert_written_in_order(&model, &MODEL_HEADER_KEYS);
        let function = crate::parse_function(
            r#"<doc_string: "s", opset_import: ["": 21], overload: "o", domain: "d"> f () => () {}"#,
        )
        .unwrap();
        assert_written_in_order(&function, &FUNCTION_HEADER_KEYS);
    }
}
