//! Short line diffs, for reporting.

use std::fmt::Write as _;

use prost::Message as _;
use prost_reflect::text_format::FormatOptions;
use prost_reflect::DynamicMessage;

/// Lines shown in a diff, and lines of context around it.
const DIFF_LINES: usize = 16;
const DIFF_CONTEXT: usize = 2;
/// Lines after the first difference that the diff looks at.
const DIFF_WINDOW: usize = 400;
/// Characters of a line shown in a diff.
const DIFF_WIDTH: usize = 160;

/// The first hunk of a line diff of the pretty text-format dumps of two
/// messages; `labels` name the `-` and the `+` side.
pub fn ir_diff(minus: &DynamicMessage, plus: &DynamicMessage, labels: (&str, &str)) -> String {
    let options = FormatOptions::new().pretty(true);
    let dump = |m: &DynamicMessage| m.to_text_format_with_options(&options);
    let (a, b) = (dump(minus), dump(plus));
    if a == b {
        // Same text format, different encodings: float bits that print
        // alike (NaN payloads), or field order.
        let (a, b) = (minus.encode_to_vec(), plus.encode_to_vec());
        let at = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        return format!(
            "  the text-format dumps agree, the encodings differ from byte {at} \
             ({} {} bytes, {} {} bytes)\n",
            labels.0,
            a.len(),
            labels.1,
            b.len()
        );
    }
    text_diff(&a, &b, "text-format line", labels)
}

/// The first hunk of a line diff of two texts, found by LCS over a window
/// after the common prefix; `what` names the line numbers, `labels` the `-`
/// and the `+` side.
pub fn text_diff(minus: &str, plus: &str, what: &str, labels: (&str, &str)) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (minus.lines().collect(), plus.lines().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if prefix == a.len() && prefix == b.len() {
        return format!(
            "  the lines agree; the texts differ in line endings or a final newline \
             ({} {} bytes, {} {} bytes)\n",
            labels.0,
            minus.len(),
            labels.1,
            plus.len()
        );
    }
    let a_rest = &a[prefix..a.len().min(prefix + DIFF_WINDOW)];
    let b_rest = &b[prefix..b.len().min(prefix + DIFF_WINDOW)];

    // lcs[i][j]: length of the longest common subsequence of a_rest[i..], b_rest[j..].
    let (n, m) = (a_rest.len(), b_rest.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a_rest[i] == b_rest[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }

    let mut out = format!(
        "  @@ {what} {} (- {}, + {}) @@\n",
        prefix + 1,
        labels.0,
        labels.1
    );
    for line in &a[prefix.saturating_sub(DIFF_CONTEXT)..prefix] {
        let _ = writeln!(out, "    {}", clip(line));
    }
    // Walk the first hunk: until DIFF_CONTEXT lines in a row agree again.
    let (mut i, mut j, mut shown, mut agreeing) = (0, 0, 0, 0);
    while (i < n || j < m) && agreeing < DIFF_CONTEXT {
        if shown == DIFF_LINES {
            let _ = writeln!(out, "    ...");
            break;
        }
        let (sign, line) = if i < n && j < m && a_rest[i] == b_rest[j] {
            agreeing += 1;
            i += 1;
            j += 1;
            (' ', a_rest[i - 1])
        } else if j == m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            agreeing = 0;
            i += 1;
            ('-', a_rest[i - 1])
        } else {
            agreeing = 0;
            j += 1;
            ('+', b_rest[j - 1])
        };
        let _ = writeln!(out, "  {sign} {}", clip(line));
        shown += 1;
    }
    out
}

pub fn clip(line: &str) -> String {
    match line.char_indices().nth(DIFF_WIDTH) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_owned(),
    }
}
