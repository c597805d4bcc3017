//! How long `onnxtxt lsp` takes to answer on a 5,000-node document
//! (`cargo bench --bench lsp_latency`): diagnostics after a change (the
//! change applied, the text analysed, the diagnostics converted), on text
//! that parses and on text with a syntax error, and hover, definition and
//! completion on a document already analysed. The targets (issue 27):
//! diagnostics within 50 ms of the last change, the requests within 10 ms.
//!
//! The server is driven in-process through `onnxtxt::lsp::Server`, as its
//! main loop drives it, so the times leave out only the pipe. Each number
//! is the median (and the slowest) of `RUNS` runs; the CPU is printed
//! with them. bench/README.md has the last results.

use std::time::{Duration, Instant};

use lsp_server::{Message, Notification, Request, RequestId};
use onnxtxt::lsp::Server;
use serde_json::{json, Value};

/// The mimalloc allocator, as the `onnxtxt` command uses.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Nodes in the document: the size.
const NODES: usize = 5_000;

/// Runs of each measurement.
const RUNS: usize = 30;

const URI: &str = "file:///bench/model.onnxtxt";

/// A node-heavy model: Conv, Relu and LeakyRelu nodes with attributes,
/// labels and PyTorch-style quoted names, each reading the one before.
fn document() -> String {
    let mut text = String::from(
        "<ir_version: 10, opset_import: [\"\": 21]>\n\
         main (float[1,64,32,32] input) => (float[1,64,32,32] output) <float[64,64,3,3] w = {1}> {\n",
    );
    let mut previous = "input".to_owned();
    for i in 0..NODES {
        let output = format!("\"/blocks.{}/act_{i}\"", i / 10);
        let node = match i % 3 {
            0 => format!(
                "  [\"/blocks.{i}/conv\"] {output} = Conv <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> ({previous}, w)\n"
            ),
            1 => format!("  {output} = Relu ({previous})\n"),
            _ => format!("  {output} = LeakyRelu <alpha = 0.1> ({previous})\n"),
        };
        text.push_str(&node);
        previous = output;
    }
    text.push_str(&format!("  output = Identity ({previous})\n}}\n"));
    text
}

fn notification(method: &str, params: Value) -> Message {
    Message::Notification(Notification::new(method.to_owned(), params))
}

fn request(method: &str, params: Value) -> Message {
    Message::Request(Request::new(RequestId::from(1), method.to_owned(), params))
}

/// The line and column (UTF-16, all ASCII here) of the first `needle`
/// after line `from`.
fn find(text: &str, from: usize, needle: &str) -> (usize, usize) {
    for (line, content) in text.lines().enumerate().skip(from) {
        if let Some(column) = content.find(needle) {
            return (line, column);
        }
    }
    panic!("no {needle}");
}

fn position(line: usize, character: usize) -> Value {
    json!({"line": line, "character": character})
}

/// The median and the slowest of `RUNS` runs of `run`.
fn measure(mut run: impl FnMut(usize)) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|i| {
            let start = Instant::now();
            run(i);
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[RUNS / 2], times[RUNS - 1])
}

fn cpu() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|m| m.trim_start_matches([' ', '\t', ':']))
        })
        .unwrap_or("unknown");
    format!(
        "{model}, {} threads",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    )
}

/// Replaces line `line`'s `from..to` columns with `text`, as version
/// `version`, and publishes.
fn change(
    server: &mut Server,
    version: usize,
    line: usize,
    (from, to): (usize, usize),
    text: &str,
) {
    let range = json!({"start": position(line, from), "end": position(line, to)});
    server.handle(notification(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": URI, "version": version},
            "contentChanges": [{"range": range, "text": text}]
        }),
    ));
    let published = server.publish();
    assert_eq!(published.len(), 1);
}

fn main() {
    let text = document();
    let mut server = Server::new(&lsp_types::ClientCapabilities::default());
    server.handle(notification(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "onnxtxt", "version": 0, "text": text}}),
    ));
    server.publish();
    let middle = NODES / 2;
    let (relu_line, relu_column) = find(&text, middle, "= Relu (");
    let op = (relu_column + 2, relu_column + 6);
    let mut version = 0;

    // Relu <-> Neg in the middle of the document: the text still parses.
    let (diagnostics, diagnostics_max) = measure(|i| {
        version += 1;
        change(
            &mut server,
            version,
            relu_line,
            op,
            if i % 2 == 0 { "Neg " } else { "Relu" },
        );
    });
    // `Relu (` <-> `Relu x(`: a syntax error, then fixed again.
    let paren = relu_column + 7;
    let (broken, broken_max) = measure(|i| {
        version += 1;
        let (range, text) = if i % 2 == 0 {
            ((paren, paren), "x")
        } else {
            ((paren, paren + 1), "")
        };
        change(&mut server, version, relu_line, range, text);
    });
    // Back to the text that parses, analysed once before the requests.
    if server.document(&URI.parse().unwrap()).unwrap().text() != text {
        version += 1;
        change(&mut server, version, relu_line, (paren, paren + 1), "");
    }
    assert_eq!(server.document(&URI.parse().unwrap()).unwrap().text(), text);
    let at = |line: usize, column: usize| json!({"textDocument": {"uri": URI}, "position": position(line, column)});
    let (input_line, input_column) = find(&text, middle, "= LeakyRelu <alpha = 0.1> (");
    let input = input_column + "= LeakyRelu <alpha = 0.1> (".len() + 2;
    let requests = [
        (
            "hover (operator)",
            request("textDocument/hover", at(relu_line, relu_column + 3)),
        ),
        (
            "definition (value)",
            request("textDocument/definition", at(input_line, input)),
        ),
        (
            "completion (input list)",
            request("textDocument/completion", at(input_line, input)),
        ),
        (
            "completion (attributes)",
            request("textDocument/completion", at(input_line, input_column + 13)),
        ),
    ];
    println!(
        "onnxtxt lsp latency, {NODES}-node document ({} bytes), median (slowest) of {RUNS} runs",
        text.len()
    );
    println!("CPU: {}", cpu());
    println!();
    println!("| what | median | slowest | target |");
    println!("|---|---:|---:|---:|");
    let row = |what: &str, (median, slowest): (Duration, Duration), target: &str| {
        println!(
            "| {what} | {:.1} ms | {:.1} ms | {target} |",
            median.as_secs_f64() * 1e3,
            slowest.as_secs_f64() * 1e3
        );
    };
    row(
        "diagnostics after a change (text parses)",
        (diagnostics, diagnostics_max),
        "50 ms",
    );
    row(
        "diagnostics after a change (syntax error)",
        (broken, broken_max),
        "50 ms",
    );
    for (what, message) in requests {
        let times = measure(|_| {
            let replies = server.handle(message.clone());
            assert!(matches!(&replies[..], [Message::Response(r)] if r.response_result.is_ok()));
        });
        row(what, times, "10 ms");
    }
}
