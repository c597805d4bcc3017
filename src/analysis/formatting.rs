//! Formatting as edits: [`crate::format()`]'s text, given as the one run
//! of lines that changed, so an editor keeps its place in the lines
//! around it.

use crate::error::Span;

/// The edit that formats `text` (none when it is formatted already), or
/// `None` when it does not parse.
///
/// Only whole lines are replaced: the lines the two texts share at their
/// start and at their end are left alone.
pub(super) fn format_edits(text: &str) -> Option<Vec<(Span, String)>> {
    let formatted = crate::format(text).ok()?;
    if formatted == text {
        return Some(Vec::new());
    }
    let start = common_prefix_lines(text, &formatted);
    let (old, new) = (&text[start..], &formatted[start..]);
    let end = common_suffix_lines(old, new);
    let span = start..text.len() - end;
    Some(vec![(span, new[..new.len() - end].to_owned())])
}

/// The length of the whole lines (each with its `\n`) that `a` and `b`
/// start with.
fn common_prefix_lines(a: &str, b: &str) -> usize {
    let mut length = 0;
    for (x, y) in a.split_inclusive('\n').zip(b.split_inclusive('\n')) {
        if x != y || !x.ends_with('\n') {
            break;
        }
        length += x.len();
    }
    length
}

/// The length of the whole lines that `a` and `b` end with: a common
/// ending that starts a line in both.
fn common_suffix_lines(a: &str, b: &str) -> usize {
    let common = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let starts_line = |s: &str| s.len() == common || s.as_bytes()[s.len() - common - 1] == b'\n';
    if starts_line(a) && starts_line(b) {
        return common;
    }
    a.as_bytes()[a.len() - common..]
        .iter()
        .position(|&byte| byte == b'\n')
        .map_or(0, |newline| common - newline - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, edits: &[(Span, String)]) -> String {
        let mut out = text.to_owned();
        for (span, new) in edits.iter().rev() {
            out.replace_range(span.clone(), new);
        }
        out
    }

    #[test]
    fn only_the_lines_that_change_are_replaced() {
        let text = "g (float x) => (float y) {\n  # keep\n  t = Relu (  x )\n  y = Neg (t)\n}\n";
        let edits = format_edits(text).unwrap();
        assert_eq!(edits.len(), 1);
        assert_eq!(&text[edits[0].0.clone()], "  t = Relu (  x )\n");
        assert_eq!(apply(text, &edits), crate::format(text).unwrap());
        assert_eq!(format_edits(&apply(text, &edits)).unwrap(), []);
        assert_eq!(format_edits("g ( => {"), None);
    }

    #[test]
    fn edits_at_either_end() {
        for text in [
            "g (float x) => (float y) {\n  y = Neg (x)\n}",
            "  g (float x) => (float y) {\n  y = Neg (x)\n}\n",
            "g(float x)=>(float y){y=Neg(x)}\n",
        ] {
            let edits = format_edits(text).unwrap();
            assert_eq!(
                apply(text, &edits),
                crate::format(text).unwrap(),
                "{text:?}"
            );
        }
    }
}
