//! A long node list read on two threads. A node-heavy text is cut where a
//! node starts, near the middle. A second thread lexes from the cut, finds
//! the end of the node list there, and reads the nodes up to it, while
//! this thread lexes up to the cut and parses the text with one
//! [`Token::Spliced`] standing for the second thread's nodes: the plain
//! node list reader takes them there, and nothing else accepts the token.
//!
//! The output is used only when this thread's lexing reaches the cut
//! exactly at a token, both parts are well formed, the parse succeeds and
//! takes the nodes; the result is then the one-thread parse's. Otherwise
//! (a text not cut at a node, a mistake anywhere) the caller parses on one
//! thread, which also explains any mistake.

use std::sync::mpsc;

use chumsky::span::SimpleSpan;

use super::{run, Brackets, State, FAST_GRAMMAR, MAX_NESTING};
use crate::lexer::{scan_part, SpannedTokens, Token};
use crate::proto::NodeProto;

/// Texts shorter than this, in bytes, are parsed on one thread. The tests
/// and fuzz targets take the two-thread path with any text they can.
const MIN_TEXT: usize = if cfg!(any(test, fuzzing)) { 1 } else { 1 << 18 };

/// How far past the middle of the text, in bytes, a node start is looked
/// for.
const PROBE: usize = 1 << 12;

/// The nodes of the second thread, in the parser state of the first.
#[derive(Debug, Default)]
pub(crate) struct Splice {
    nodes: Option<mpsc::Receiver<Option<Vec<NodeProto>>>>,
    taken: bool,
}

impl Splice {
    /// The second thread's nodes, once (waiting for them); `None` if it
    /// could not read them, or they were taken before.
    pub(crate) fn take(&mut self) -> Option<Vec<NodeProto>> {
        let nodes = self.nodes.take()?.recv().ok()??;
        self.taken = true;
        Some(nodes)
    }
}

/// The end of the node list the second thread reads.
struct ListEnd<'s> {
    /// The tokens from the `}` that closes the list on.
    tokens: SpannedTokens<'s>,
    /// The deepest nesting of brackets in the list after the cut.
    deepest: usize,
}

/// What `read` (an entry point of the fast grammar) parses from the tokens
/// of `text`, read on two threads as the module docs say; `None` when the
/// text is not read so, and must be parsed on one thread.
pub(super) fn parse<O>(
    text: &str,
    read: impl for<'t> FnOnce(&'t [(Token<'t>, SimpleSpan)], State) -> Option<(O, State)>,
) -> Option<O> {
    if text.len() < MIN_TEXT || !crate::parallel::available() {
        return None;
    }
    let cut = cut(text)?;
    std::thread::scope(|scope| {
        let (send_rest, rest) = mpsc::channel();
        let (send_nodes, nodes) = mpsc::channel();
        std::thread::Builder::new()
            .name("onnxtxt-nodes".to_owned())
            .spawn_scoped(scope, move || {
                second_half(text, cut, send_rest, send_nodes);
            })
            .ok()?;
        let first = scan_part(text, 0, cut);
        let mut brackets = Brackets::default();
        if first.next != cut || brackets.walk(&first.tokens)? != first.tokens.len() {
            return None;
        }
        let mut tokens = first.tokens;
        let ListEnd {
            tokens: rest,
            deepest,
        } = rest.recv().ok()??;
        if brackets.open() + deepest > MAX_NESTING
            || brackets.walk(&rest)? != rest.len()
            || brackets.open() != 0
        {
            return None;
        }
        let list_end = rest.first().map_or(text.len(), |(_, span)| span.start);
        tokens.push((Token::Spliced, SimpleSpan::from(cut..list_end)));
        tokens.extend_from_slice(&rest);
        let state = State {
            splice: Splice {
                nodes: Some(nodes),
                taken: false,
            },
            ..State::default()
        };
        let (output, state) = read(&tokens, state)?;
        state.splice.taken.then_some(output)
    })
}

/// Where a node starts soon after the middle of `text`: the first token
/// there, after the start of a line, that looks like a node start and
/// follows the end of a node.
fn cut(text: &str) -> Option<usize> {
    let middle = text.len() / 2;
    let line = middle + memchr::memchr(b'\n', &text.as_bytes()[middle..])? + 1;
    let probe = scan_part(text, line, (line + PROBE).min(text.len())).tokens;
    let tokens: Vec<Token<'_>> = probe.iter().map(|(token, _)| *token).collect();
    (1..tokens.len())
        .find(|&i| ends_node(&tokens[..i]) && starts_node(&tokens[i..]))
        .map(|i| probe[i].1.start)
}

/// Whether `tokens` end like a node: with the `)` of its inputs, or the
/// `>` of attributes after them. (A `>` that closes an annotation `@<...>`
/// comes before a node.)
fn ends_node(tokens: &[Token<'_>]) -> bool {
    match tokens.last() {
        Some(Token::RParen) => true,
        Some(Token::RAngle) => {
            let mut depth = 0usize;
            for token in tokens.iter().rev() {
                match token {
                    Token::RAngle => depth += 1,
                    Token::LAngle | Token::AnnotationOpen => {
                        depth -= 1;
                        if depth == 0 {
                            return *token == Token::LAngle;
                        }
                    }
                    _ => {}
                }
            }
            false
        }
        _ => false,
    }
}

/// Whether `tokens` start like a node: `[label]`, or a name followed by
/// `,` or `=`.
fn starts_node(tokens: &[Token<'_>]) -> bool {
    let name = |token: &Token<'_>| matches!(token, Token::Ident(_) | Token::Str(_));
    match tokens {
        [Token::LBracket, Token::RBracket, ..] => true,
        [Token::LBracket, label, Token::RBracket, ..] => name(label),
        [first, Token::Comma | Token::Eq, ..] => name(first),
        _ => false,
    }
}

/// The second thread: lexes `text` from `cut`, sends the tokens from the
/// `}` that ends the node list there on (with the deepest nesting before
/// it), then reads the nodes up to it and sends them. Sends `None` instead
/// when the tokens up to the `}` are not well formed or there is no `}`.
fn second_half<'s>(
    text: &'s str,
    cut: usize,
    send_rest: mpsc::Sender<Option<ListEnd<'s>>>,
    send_nodes: mpsc::Sender<Option<Vec<NodeProto>>>,
) {
    let tokens = scan_part(text, cut, text.len()).tokens;
    let mut brackets = Brackets::default();
    let list = brackets.walk(&tokens).filter(|&end| {
        tokens
            .get(end)
            .is_some_and(|(token, _)| *token == Token::RBrace)
    });
    let Some(end) = list else {
        let _ = send_rest.send(None);
        return;
    };
    if send_rest
        .send(Some(ListEnd {
            tokens: tokens[end..].to_vec(),
            deepest: brackets.deepest,
        }))
        .is_err()
    {
        return;
    }
    let nodes = FAST_GRAMMAR.with(|cache| {
        run(
            cache.get().node_run.clone(),
            &tokens[..end],
            text,
            State::default(),
        )
        .ok()
    });
    let _ = send_nodes.send(nodes.map(|(nodes, _)| nodes));
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;
    use crate::{parse_model, parse_model_with_source_map};

    /// The encoding of the model `text` read on two threads, if it is.
    fn on_two_threads(text: &str) -> Option<Vec<u8>> {
        let model = parse(text, |tokens, state| {
            FAST_GRAMMAR.with(|cache| run(cache.get().model.clone(), tokens, text, state).ok())
        });
        model.map(|model| model.encode_to_vec())
    }

    /// A model whose graph has `count` nodes of the `forms` in turn, with
    /// `%` in a form replaced by the node's number.
    fn model(forms: &[&str], count: usize) -> String {
        let nodes: Vec<String> = (0..count)
            .map(|i| {
                format!(
                    "  {}\n",
                    forms[i % forms.len()].replace('%', &i.to_string())
                )
            })
            .collect();
        format!(
            "<ir_version: 8, opset_import: [\"\": 18]>\ng (float[N] x) => (float[N] y) {{\n{}}}\n",
            nodes.concat()
        )
    }

    /// Node forms: plain ones, and ones the plain reader hands to the
    /// grammar (an annotation, an overload, a subgraph).
    const FORMS: &[&str] = &[
        r#"["/n%/Relu"] "/n%/out" = Relu ("x")"#,
        "a%, b% = Split <axis: int = 0> (x)",
        "c% = Constant <value: tensor = int64[2] {1, 2}> ()",
        r#"d% = com.example.Custom (x) <alpha = 1.5, names = ["p", "q"]>"#,
        "e% = If (c) <then_branch: graph = t () => (float y) { y = Relu(x) }>",
        r#"@<doc_string: "d"> [f%] f% = Op:v1 (x)"#,
        "g% = Loop <body: graph = b () => () {\n    z = Relu(x)\n    w = Neg(z)\n  }> (x)",
        r#"h% = "".Op ("", x) # a comment"#,
        "i% = Identity (x) <values = [1.5, -2, inf]>",
    ];

    #[test]
    fn long_node_lists_read_on_two_threads_as_on_one() {
        let mut texts = Vec::new();
        for count in [1, 2, 5, 40, 301] {
            for first in 0..FORMS.len() {
                let forms = [&FORMS[first..], &FORMS[..first]].concat();
                texts.push((count >= 40, model(&forms, count)));
            }
        }
        // Nodes that all end with attributes, as onnxtxt prints them.
        let after = [
            "a% = Op (x) <k = 1>",
            "b% = Op (x) <\n    k = [1, 2],\n    s = \"t\"\n  >",
        ];
        texts.push((true, model(&after, 100)));
        let function = "<domain: \"d\", opset_import: [\"\": 18]>\nf (x) => (y) { y = Relu(x) }\n";
        texts.push((true, model(FORMS, 100) + function));
        for (long, text) in &texts {
            let one = parse_model_with_source_map(text).unwrap().0.encode_to_vec();
            let two = on_two_threads(text);
            assert!(two.is_some() || !long, "not read on two threads:\n{text}");
            if let Some(two) = two {
                assert!(two == one, "different on two threads:\n{text}");
            }
            assert!(parse_model(text).unwrap().encode_to_vec() == one);
        }
    }

    #[test]
    fn text_not_read_on_two_threads_is_read_on_one() {
        let long = model(FORMS, 100);
        let middle = long.len() / 2;
        let mistake = |node: &str, mistake: &str| {
            assert!(long.contains(node));
            long.replacen(node, mistake, 1)
        };
        let cases = [
            // Mistakes before and after the cut.
            mistake("a1, b1 =", "a1, b1 = ="),
            mistake("a91, b91 =", "a91, b91 = ="),
            mistake("c20 = Constant", "c20 = Constant (x) (y)"),
            // A string, a list of numbers and a bad character across the cut.
            format!("{}\"{}", &long[..middle], &long[middle..]),
            format!("{}{{1, 2,\n\n3}}{}", &long[..middle], &long[middle..]),
            format!("{}$\n{}", &long[..middle], &long[middle..]),
        ];
        for text in &cases {
            assert_eq!(on_two_threads(text), None, "{text}");
            match (parse_model(text), parse_model_with_source_map(text)) {
                (Ok(a), Ok((b, _))) => assert!(a.encode_to_vec() == b.encode_to_vec()),
                (Err(a), Err(b)) => assert_eq!(a.diagnostics(), b.diagnostics()),
                (a, b) => panic!(
                    "{text}: {:?} on one thread, {:?} with a source map",
                    a.is_ok(),
                    b.is_ok()
                ),
            }
        }
    }
}
