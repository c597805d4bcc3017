//! `onnxtxt lsp` driven over standard input and output by a JSON-RPC
//! client, as an editor drives it: initialize, open a document, edit it,
//! ask what an editor asks, shut down.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

/// How long any answer may take before the test fails (instead of hanging).
const PATIENCE: Duration = Duration::from_secs(60);

/// A client talking to a running `onnxtxt lsp`.
struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for something else.
    notifications: Vec<Value>,
}

impl Client {
    fn start() -> Client {
        let mut command = Command::new(env!("CARGO_BIN_EXE_onnxtxt"));
        command.arg("lsp");
        Client::start_as(command)
    }

    /// A server limited to `bytes` of address space (`ulimit -v`).
    fn start_limited(bytes: u64) -> Client {
        let mut command = Command::new("sh");
        let limit = (bytes / 1024).to_string();
        command.args(["-c", "ulimit -v \"$1\" && exec \"$0\" lsp"]);
        command.args([env!("CARGO_BIN_EXE_onnxtxt"), &limit]);
        Client::start_as(command)
    }

    fn start_as(mut command: Command) -> Client {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("onnxtxt lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            stdin,
            messages,
            next_id: 1,
            notifications: Vec::new(),
        }
    }

    fn send(&mut self, message: Value) {
        self.send_body(message.to_string().as_bytes());
    }

    /// Sends `body` framed by its length, whatever it holds.
    fn send_body(&mut self, body: &[u8]) {
        self.send_raw(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        self.send_raw(body);
    }

    /// Sends `bytes` as they are.
    fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.receive();
            if message["id"] == json!(id) {
                return message;
            }
            self.notifications.push(message);
        }
    }

    /// The result of a request that must succeed.
    fn ask(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    fn receive(&mut self) -> Value {
        self.messages
            .recv_timeout(PATIENCE)
            .expect("the server answers in time")
    }

    /// Waits for the diagnostics of `uri` at `version`; returns them and
    /// every set published for `uri` on the way.
    fn diagnostics(&mut self, uri: &str, version: i64) -> (Vec<Value>, Vec<Value>) {
        let mut seen = Vec::new();
        let mut pending = std::mem::take(&mut self.notifications).into_iter();
        loop {
            let message = pending.next().unwrap_or_else(|| self.receive());
            if message["method"] != "textDocument/publishDiagnostics"
                || message["params"]["uri"] != uri
            {
                continue;
            }
            seen.push(message["params"].clone());
            if message["params"]["version"] == json!(version) {
                self.notifications.extend(pending);
                let diagnostics = message["params"]["diagnostics"].as_array().unwrap().clone();
                return (diagnostics, seen);
            }
        }
    }
}

/// Reads one framed message; `None` at the end of the stream.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

const URI: &str = "file:///work/model.onnxtxt";

/// A model with non-ASCII quoted names (`"é"` is one UTF-16 unit and two
/// bytes, `"𝔵"` two units and four bytes) and a mistake: `t` is assigned
/// twice.
const TEXT: &str = "<ir_version: 10, opset_import: [\"\": 21]>
main (float[N] \"𝔵\") => (float[N] y) {
  \"é\" = Relu (\"𝔵\")
  t = LeakyRelu <alpha = 0.2> (\"é\")
  t = Neg (\"é\")
  y = Add (t, \"é\")
}
";

/// The labels of completion items.
fn labels(items: &Value) -> Vec<&str> {
    let items = items.as_array().unwrap().iter();
    items.map(|i| i["label"].as_str().unwrap()).collect()
}

fn position(line: u32, character: u32) -> Value {
    json!({"line": line, "character": character})
}

fn at(line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": URI}, "position": position(line, character)})
}

fn range(start: (u32, u32), end: (u32, u32)) -> Value {
    json!({"start": position(start.0, start.1), "end": position(end.0, end.1)})
}

/// A started server with `TEXT` open, and its first diagnostics.
fn opened() -> (Client, Vec<Value>) {
    open(Client::start())
}

/// `client` initialized, with `TEXT` open, and its first diagnostics.
fn open(mut client: Client) -> (Client, Vec<Value>) {
    let capabilities = json!({
        "textDocument": {"completion": {"completionItem": {"snippetSupport": true}}}
    });
    let init = client.ask(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": capabilities}),
    );
    let offered = &init["capabilities"];
    for capability in [
        "hoverProvider",
        "definitionProvider",
        "referencesProvider",
        "documentHighlightProvider",
        "documentFormattingProvider",
        "documentSymbolProvider",
        "foldingRangeProvider",
    ] {
        assert_eq!(offered[capability], json!(true), "{capability}");
    }
    assert_eq!(offered["renameProvider"]["prepareProvider"], json!(true));
    assert_eq!(offered["positionEncoding"], json!("utf-16"));
    assert_eq!(offered["textDocumentSync"]["change"], json!(2));
    client.notify("initialized", json!({}));
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "onnxtxt", "version": 1, "text": TEXT}}),
    );
    let (diagnostics, _) = client.diagnostics(URI, 1);
    (client, diagnostics)
}

fn shut_down(mut client: Client) {
    assert_eq!(client.ask("shutdown", Value::Null), Value::Null);
    client.notify("exit", Value::Null);
    let status = client.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

#[test]
fn diagnostics_as_the_text_is_edited() {
    let (mut client, diagnostics) = opened();
    // The second `t` is reported, pointing back at the first.
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let d = &diagnostics[0];
    assert_eq!(d["code"], "onnxtxt::check::reassigned");
    assert_eq!(d["severity"], 1);
    assert_eq!(d["range"], range((4, 2), (4, 3)));
    let related = &d["relatedInformation"][0];
    assert_eq!(related["location"]["range"], range((3, 2), (3, 3)));
    assert_eq!(related["location"]["uri"], URI);

    // Rename the second `t` to `u` and use it, one keystroke at a time
    // (`Add (, "é")`, then a stray `)` on the way): half-typed versions get
    // diagnostics too, one set per version at most.
    let edits = [
        (range((4, 2), (4, 3)), ""),
        (range((4, 2), (4, 2)), "u"),
        (range((5, 11), (5, 12)), ""),
        (range((5, 11), (5, 11)), "u"),
        (range((5, 10), (5, 11)), ""),
        (range((5, 10), (5, 10)), "("),
    ];
    for (version, (range, text)) in (2..).zip(edits) {
        client.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": URI, "version": version},
                "contentChanges": [{"range": range, "text": text}]
            }),
        );
    }
    let (diagnostics, seen) = client.diagnostics(URI, 7);
    let mut versions: Vec<i64> = seen
        .iter()
        .map(|p| p["version"].as_i64().unwrap())
        .collect();
    let published = versions.len();
    versions.dedup();
    assert_eq!(
        versions.len(),
        published,
        "one set per version: {versions:?}"
    );
    // `u = Neg ("é")` and `y = Add (u, "é")`: nothing assigned twice, but
    // the first `t` is now never used.
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "onnxtxt::check::unused_value");
    assert_eq!(diagnostics[0]["severity"], 2);
    assert_eq!(diagnostics[0]["range"], range((3, 2), (3, 3)));

    // Half-typed: an unclosed `(` at the end, reported where it opens and
    // where the text ends.
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": URI, "version": 8},
            "contentChanges": [{"text": "g (float x) => (float y) {\n  y = Relu (x"}]
        }),
    );
    let (diagnostics, _) = client.diagnostics(URI, 8);
    let ranges: Vec<&Value> = diagnostics.iter().map(|d| &d["range"]).collect();
    assert!(
        ranges.contains(&&range((1, 11), (1, 12))),
        "{diagnostics:?}"
    );
    assert!(
        ranges.contains(&&range((1, 13), (1, 13))),
        "{diagnostics:?}"
    );
    assert!(diagnostics
        .iter()
        .any(|d| d["message"].as_str().unwrap().contains("help: add `)`")));

    // Closing the document clears its diagnostics.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    loop {
        let message = client.receive();
        if message["method"] == "textDocument/publishDiagnostics"
            && message["params"]["version"].is_null()
        {
            assert_eq!(message["params"]["diagnostics"], json!([]));
            break;
        }
    }
    shut_down(client);
}

#[test]
fn hover_definition_references_in_utf16() {
    let (mut client, _) = opened();
    // On `Relu`, after `"é" = ` (the `é` one unit wide): its signature.
    let hover = client.ask("textDocument/hover", at(2, 9));
    let markdown = hover["contents"]["value"].as_str().unwrap();
    assert!(markdown.contains("Relu (ai.onnx) version 14"), "{markdown}");
    assert!(markdown.contains("onnx__Relu.html"), "{markdown}");
    assert_eq!(hover["range"], range((2, 8), (2, 12)));
    // On `"𝔵"` used by Relu: a graph input, declared float[N].
    let hover = client.ask("textDocument/hover", at(2, 15));
    let markdown = hover["contents"]["value"].as_str().unwrap();
    assert!(markdown.contains("float[N] 𝔵"), "{markdown}");
    assert!(markdown.contains("input of graph `main`"), "{markdown}");
    assert_eq!(hover["range"], range((2, 14), (2, 18)));
    // On `"é"`, which declares no type: the type inference gives it.
    let hover = client.ask("textDocument/hover", at(2, 3));
    let markdown = hover["contents"]["value"].as_str().unwrap();
    assert!(markdown.contains("float[N] é"), "{markdown}");
    assert!(
        markdown.contains("type inferred, none declared"),
        "{markdown}"
    );
    // On the attribute `alpha`: its schema type and default.
    let hover = client.ask("textDocument/hover", at(3, 19));
    assert!(hover["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("alpha: float = 0.01"));

    // From `"é"` in `Add (t, "é")` to its definition, then every use.
    let definition = client.ask("textDocument/definition", at(5, 14));
    assert_eq!(definition["uri"], URI);
    assert_eq!(definition["range"], range((2, 2), (2, 5)));
    let references = client.ask(
        "textDocument/references",
        json!({"textDocument": {"uri": URI}, "position": position(5, 14), "context": {"includeDeclaration": false}}),
    );
    let lines: Vec<i64> = references
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["range"]["start"]["line"].as_i64().unwrap())
        .collect();
    assert_eq!(lines, [3, 4, 5]);
    let highlights = client.ask("textDocument/documentHighlight", at(2, 3));
    let kinds: Vec<i64> = highlights
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["kind"].as_i64().unwrap())
        .collect();
    assert_eq!(kinds, [3, 2, 2, 2]);
    // Nothing to find on `=`.
    assert_eq!(client.ask("textDocument/definition", at(2, 6)), Value::Null);
    shut_down(client);
}

#[test]
fn rename_completion_and_formatting() {
    let (mut client, _) = opened();
    let prepared = client.ask("textDocument/prepareRename", at(2, 3));
    assert_eq!(prepared, range((2, 2), (2, 5)));
    let edit = client.ask(
        "textDocument/rename",
        json!({"textDocument": {"uri": URI}, "position": position(2, 3), "newName": "\"ë\""}),
    );
    let edits = edit["changes"][URI].as_array().unwrap();
    assert_eq!(edits.len(), 4);
    assert!(edits.iter().all(|e| e["newText"] == "\"ë\""));
    assert_eq!(edits[3]["range"], range((5, 14), (5, 17)));
    // A name taken, one that needs quotes, an operator: refused.
    for (line, column, name) in [(2, 3, "y"), (2, 3, "a b"), (2, 9, "Abs")] {
        let response = client.request("textDocument/rename", json!({"textDocument": {"uri": URI}, "position": position(line, column), "newName": name}));
        assert!(
            response["error"]["message"].is_string(),
            "{name}: {response}"
        );
    }

    // Attributes of LeakyRelu inside its `<...>`: `alpha` is written.
    let items = client.ask("textDocument/completion", at(3, 17));
    assert_eq!(items, json!([]), "no other attribute than alpha");
    // Values in scope in Add's inputs: the input and the values before it.
    let items = client.ask("textDocument/completion", at(5, 11));
    assert_eq!(labels(&items), ["𝔵", "é", "t"]);
    let quoted = &items[1]["textEdit"];
    assert_eq!(quoted["newText"], "\"é\"");
    assert_eq!(quoted["range"], range((5, 11), (5, 12)));
    // Operators after `=`.
    let items = client.ask("textDocument/completion", at(5, 6));
    let names = labels(&items);
    assert!(
        names.contains(&"Gelu") && names.contains(&"Add"),
        "{names:?}"
    );

    // Formatting: edits that give onnxtxt's canonical text.
    let messy = "g (float x)=>(float y){\n  y=Relu(x)   # keep\n}\n";
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": messy}]}),
    );
    let edits = client.ask(
        "textDocument/formatting",
        json!({"textDocument": {"uri": URI}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    let edits = edits.as_array().unwrap();
    assert_eq!(edits.len(), 1);
    // The last line, `}`, stays.
    assert_eq!(edits[0]["range"], range((0, 0), (2, 0)));
    assert_eq!(
        edits[0]["newText"],
        "g (float x) => (float y) {\n  y = Relu (x) # keep\n"
    );
    shut_down(client);
}

#[test]
fn outline_folding_and_semantic_tokens() {
    let (mut client, _) = opened();
    let symbols = client.ask(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_eq!(symbols[0]["name"], "main");
    let nodes: Vec<&str> = symbols[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(nodes, ["é", "t", "t", "y"]);
    let folds = client.ask(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_eq!(folds[0]["startLine"], 1);
    assert_eq!(folds[0]["endLine"], 5);
    let tokens = client.ask(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": URI}}),
    );
    let data = tokens["data"].as_array().unwrap();
    assert_eq!(data.len() % 5, 0);
    // The first token is `ir_version`, a keyword (index 7), 10 units long.
    assert_eq!(
        &data[..5],
        &[json!(0), json!(1), json!(10), json!(7), json!(0)]
    );
    // Unknown methods are errors, not crashes.
    let response = client.request("textDocument/unknownThing", json!({}));
    assert_eq!(response["error"]["code"], -32601);
    // A request about a document that is not open fails cleanly.
    let response = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///none"}, "position": position(0, 0)}),
    );
    assert!(response["error"].is_object(), "{response}");
    shut_down(client);
}

#[test]
fn model_views_of_the_vscode_extension_are_documents_too() {
    // The VS Code extension shows a binary model as text under its own
    // scheme, with the model's URI in the query.
    let mut client = Client::start();
    client.ask(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    client.notify("initialized", json!({}));
    let uri = "onnxtxt-model:/models/m.onnx.onnxtxt?file%3A%2F%2F%2Fmodels%2Fm.onnx";
    let text = "<ir_version: 10, opset_import: [\"\": 21]>\ng (float x) => (float y) {\n  y = Relu (z)\n}\n";
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "onnxtxt", "version": 1, "text": text}}),
    );
    let (diagnostics, _) = client.diagnostics(uri, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["range"], range((2, 12), (2, 13)));
    let hover = client.ask(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position(2, 7)}),
    );
    assert!(hover["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("Relu (ai.onnx)"));
    shut_down(client);
}

// Hostile input (issue 43): whatever the client sends, the server answers
// or skips it and goes on serving, in bounded memory.

/// The address space the server gets in these tests.
const ADDRESS_SPACE: u64 = 1 << 30;

/// Waits for the error response with `id` and returns its code.
fn refused(client: &mut Client, id: &Value) -> i64 {
    loop {
        let message = client.receive();
        if message.get("error").is_some() && &message["id"] == id {
            return message["error"]["code"].as_i64().unwrap();
        }
        client.notifications.push(message);
    }
}

/// A request still answered after whatever came before.
fn still_serving(client: &mut Client) {
    let symbols = client.ask(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_eq!(symbols[0]["name"], "main");
}

#[test]
fn hostile_headers_are_parse_errors_and_the_server_goes_on() {
    let (mut client, _) = open(Client::start_limited(ADDRESS_SPACE));
    let long_line = format!("X-Padding: {}\r\n\r\n", "x".repeat(4096));
    let headers: [&[u8]; 8] = [
        b"Content-Length: 18446744073709551615\r\n\r\n",
        b"Content-Length: 9223372036854775807\r\n\r\n",
        b"Content-Length: 1000000000000\r\n\r\n",
        b"Content-Length: 99999999999999999999999999\r\n\r\n",
        b"Content-Length: -1\r\n\r\n",
        b"Content-Type: application/json\r\n\r\n{}",
        b"not a header\r\n\r\n",
        long_line.as_bytes(),
    ];
    for header in headers {
        client.send_raw(header);
        let code = refused(&mut client, &Value::Null);
        assert_eq!(code, -32700, "{}", String::from_utf8_lossy(header));
        still_serving(&mut client);
    }
    shut_down(client);
}

#[test]
fn malformed_messages_are_answered_and_the_server_goes_on() {
    let (mut client, _) = open(Client::start_limited(ADDRESS_SPACE));
    // Two million numbers: 4 MB of JSON that would take hundreds of MB read.
    let many_values = format!(
        "{{\"jsonrpc\": \"2.0\", \"method\": \"m\", \"params\": [{}0]}}",
        "0,".repeat(2_000_000)
    );
    let messages: [(&[u8], i64, Value); 7] = [
        (many_values.as_bytes(), -32600, Value::Null),
        (b"{\"jsonrpc\": \"2.0\", \"id\": 1,", -32700, Value::Null),
        (
            b"[{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"shutdown\"}]",
            -32600,
            Value::Null,
        ),
        (
            b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"a\xff\"}",
            -32700,
            Value::Null,
        ),
        (
            b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"\\ud800\"}",
            -32700,
            Value::Null,
        ),
        (
            b"{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": 4}",
            -32600,
            json!(9),
        ),
        (b"\"just a string\"", -32600, Value::Null),
    ];
    for (body, code, id) in messages {
        client.send_body(body);
        let refusal = refused(&mut client, &id);
        assert_eq!(refusal, code, "{}", String::from_utf8_lossy(body));
        still_serving(&mut client);
    }
    shut_down(client);
}

/// A model whose graph has `unused` nodes whose outputs are never used
/// (one warning each), `padding` bytes of comment, and an error.
fn many_problems(unused: usize, padding: usize) -> String {
    let mut text = String::from("<ir_version: 10, opset_import: [\"\": 21]>\n");
    text.push_str("main (float[N] x) => (float[N] y) {\n");
    for i in 0..unused {
        text.push_str(&format!("  u{i} = Relu (x)\n"));
    }
    text.push_str(&format!(
        "  # {}\n  y = Relu (x)\n}}\n",
        "p".repeat(padding)
    ));
    text
}

#[test]
fn diagnostics_are_capped_per_document() {
    use onnxtxt::lsp::MAX_DIAGNOSTICS_PER_DOCUMENT as CAP;
    let (mut client, _) = open(Client::start_limited(ADDRESS_SPACE));
    let text = many_problems(3 * CAP, 0);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "file:///many.onnxtxt", "languageId": "onnxtxt", "version": 1, "text": text}}),
    );
    let (diagnostics, _) = client.diagnostics("file:///many.onnxtxt", 1);
    assert_eq!(diagnostics.len(), CAP + 1);
    assert!(diagnostics[..CAP]
        .iter()
        .all(|d| d["code"] == "onnxtxt::check::unused_value"));
    let counted = &diagnostics[CAP];
    assert_eq!(counted["code"], "onnxtxt::lsp::too_many_problems");
    let shown = format!("{} more problems", 2 * CAP);
    assert!(
        counted["message"].as_str().unwrap().starts_with(&shown),
        "{counted}"
    );
    // It is where the first problem left out is: the node after the last shown.
    assert_eq!(counted["range"]["start"]["line"], json!(2 + CAP));
    shut_down(client);
}

#[test]
fn a_document_too_large_to_analyse_gets_one_diagnostic() {
    use onnxtxt::lsp::MAX_ANALYSED_BYTES;
    let (mut client, _) = open(Client::start_limited(ADDRESS_SPACE));
    let large = "file:///large.onnxtxt";
    let text = many_problems(10, MAX_ANALYSED_BYTES);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": large, "languageId": "onnxtxt", "version": 1, "text": text}}),
    );
    let (diagnostics, _) = client.diagnostics(large, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "onnxtxt::lsp::too_large");
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": large}, "position": position(2, 3)}),
    );
    assert_eq!(hover["error"]["code"], json!(-32803), "{hover}");
    // Cut back under the limit, it is analysed again.
    let padding = range((12, 0), (13, 0));
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": large, "version": 2},
               "contentChanges": [{"range": padding, "text": ""}]}),
    );
    let (diagnostics, _) = client.diagnostics(large, 2);
    assert_eq!(diagnostics.len(), 10, "{diagnostics:?}");
    still_serving(&mut client);
    shut_down(client);
}
