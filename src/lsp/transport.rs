//! The connection to the client over standard input and output, read with
//! bounds of our own: whatever the client sends, the server answers or
//! skips it and goes on, in bounded memory.
//!
//! A message is a header (`Name: value` lines, then an empty line) whose
//! `Content-Length` says how many bytes of JSON follow.
//!
//! - A header line longer than [`MAX_HEADER_LINE_BYTES`], a line that is
//!   not `Name: value`, a header without a `Content-Length`, a length that
//!   is not a number, or one past [`MAX_MESSAGE_BYTES`] is a framing error:
//!   the server answers with a JSON-RPC parse error (code -32700, `id`
//!   null) and skips to the next `Content-Length` header (the body of the
//!   bad message is never held).
//! - A body that is not JSON (or not UTF-8, or with a lone surrogate such
//!   as `"\ud800"` in a string) is answered with a parse error (-32700); a
//!   batch (an array: the Language Server Protocol has none), JSON that is
//!   not a request, a response or a notification, or a body of more than
//!   [`MAX_JSON_VALUES`] values, with an invalid request error (-32600),
//!   its `id` when it has one, else null.
//!
//! [`stdio`] makes the [`Connection`] the main loop uses, with a reader and
//! a writer thread; [`MessageReader`] is the reader alone, which the
//! `lsp_framing` fuzz target drives.

use std::io::{self, BufRead, Read, Write};
use std::thread::{self, JoinHandle};

use crossbeam_channel::{bounded, never, select, Receiver, Sender};
use lsp_server::{Connection, ErrorCode, Message};
use lsp_types::notification::{Exit, Notification as _};
use serde_json::{json, Value};

/// The largest message body read, in bytes (64 MiB): a document of tens of
/// megabytes fits; a larger `Content-Length` is refused before anything is
/// allocated for it.
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// The most JSON values (objects, arrays, strings, numbers...) a message
/// may hold: each takes tens of bytes once read, so 64 MiB of `[0,0,...`
/// would take gigabytes, while a whole document is one string.
pub const MAX_JSON_VALUES: usize = 1 << 20;

/// The longest header line read, in bytes: headers are a length and a
/// content type.
pub const MAX_HEADER_LINE_BYTES: usize = 1024;

/// The header that gives a message's length (its name is matched without
/// regard to case).
const CONTENT_LENGTH: &str = "Content-Length";

/// What one message of the client is.
#[derive(Debug)]
pub enum Incoming {
    /// A message for the server.
    Message(Message),
    /// A message that cannot be handled: the error response that answers
    /// it (a JSON-RPC response object, its `id` possibly null, which an
    /// [`lsp_server::Response`] cannot hold).
    Refused(Value),
}

/// Reads the client's messages from `input`, each framing error answered
/// once and skipped (see the module documentation).
#[derive(Debug)]
pub struct MessageReader<R> {
    input: R,
    /// Whether a framing error left the input inside a message, so the
    /// next read first skips to a `Content-Length` header.
    lost: bool,
}

/// A message's bytes, or why its header could not be read.
enum Frame {
    Body(Vec<u8>),
    Bad(String),
}

/// How reading a header line ended.
enum Line {
    Complete,
    TooLong,
    End,
}

impl<R: BufRead> MessageReader<R> {
    /// A reader of the messages in `input`.
    pub fn new(input: R) -> Self {
        MessageReader { input, lost: false }
    }

    /// The next message, `None` once the input ends (also in the middle of
    /// a message); an error only when reading fails.
    ///
    /// ```
    /// use onnxtxt::lsp::transport::{Incoming, MessageReader};
    ///
    /// let input = "Content-Length: 99999999999\r\n\r\n\
    ///              Content-Length: 2\r\n\r\n[]\
    ///              Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}";
    /// let mut reader = MessageReader::new(input.as_bytes());
    /// let codes: Vec<_> = std::iter::from_fn(|| reader.read().unwrap())
    ///     .map(|incoming| match incoming {
    ///         Incoming::Refused(error) => error["error"]["code"].as_i64(),
    ///         Incoming::Message(_) => None,
    ///     })
    ///     .collect();
    /// assert_eq!(codes, [Some(-32700), Some(-32600), None]);
    /// ```
    pub fn read(&mut self) -> io::Result<Option<Incoming>> {
        Ok(self.frame()?.map(|frame| match frame {
            Frame::Body(body) => decode(&body),
            Frame::Bad(why) => refusal(Value::Null, ErrorCode::ParseError, why),
        }))
    }

    fn frame(&mut self) -> io::Result<Option<Frame>> {
        let mut line = Vec::new();
        if self.lost {
            if !skip_to_content_length(&mut self.input)? {
                return Ok(None);
            }
            line.extend_from_slice(CONTENT_LENGTH.as_bytes());
            self.lost = false;
        }
        let mut length = None;
        loop {
            match read_line(&mut self.input, &mut line)? {
                Line::End => return Ok(None),
                Line::TooLong => {
                    return Ok(Some(self.lose(format!(
                        "a header line is longer than {MAX_HEADER_LINE_BYTES} bytes"
                    ))))
                }
                Line::Complete => {}
            }
            let header = line.strip_suffix(b"\n").unwrap_or(&line);
            let header = header.strip_suffix(b"\r").unwrap_or(header);
            if header.is_empty() {
                break;
            }
            let header = String::from_utf8_lossy(header);
            let Some((name, value)) = header.split_once(':') else {
                return Ok(Some(
                    self.lose(format!("the header line {header:?} is not `Name: value`")),
                ));
            };
            if name.trim().eq_ignore_ascii_case(CONTENT_LENGTH) {
                match parse_length(value.trim()) {
                    Ok(bytes) => length = Some(bytes),
                    Err(why) => return Ok(Some(self.lose(why))),
                }
            }
            line.clear();
        }
        let Some(length) = length else {
            return Ok(Some(
                self.lose(format!("a header without {CONTENT_LENGTH}")),
            ));
        };
        let mut body = Vec::new();
        (&mut self.input)
            .take(length as u64)
            .read_to_end(&mut body)?;
        if body.len() < length {
            return Ok(None);
        }
        Ok(Some(Frame::Body(body)))
    }

    /// A framing error: the input is inside a message whose end is unknown.
    fn lose(&mut self, why: String) -> Frame {
        self.lost = true;
        Frame::Bad(why)
    }
}

/// The length a `Content-Length` value gives, if it is one within
/// [`MAX_MESSAGE_BYTES`].
fn parse_length(value: &str) -> Result<usize, String> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{CONTENT_LENGTH} {value:?} is not a number of bytes"
        ));
    }
    match value.parse::<usize>() {
        Ok(length) if length <= MAX_MESSAGE_BYTES => Ok(length),
        _ => Err(format!(
            "a message longer than the limit of {MAX_MESSAGE_BYTES} bytes"
        )),
    }
}

/// Appends one line of `input` (through its `\n`) to `line`, reading at
/// most [`MAX_HEADER_LINE_BYTES`].
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<Line> {
    let limit = MAX_HEADER_LINE_BYTES as u64;
    let read = input.take(limit).read_until(b'\n', line)?;
    Ok(if line.ends_with(b"\n") {
        Line::Complete
    } else if read as u64 == limit {
        Line::TooLong
    } else {
        Line::End
    })
}

/// Reads `input` up to and through the next `Content-Length` (in any
/// case); `false` if it ends first.
fn skip_to_content_length(input: &mut impl BufRead) -> io::Result<bool> {
    let wanted = CONTENT_LENGTH.as_bytes();
    let mut matched = 0;
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(false);
        }
        let mut used = buffer.len();
        for (at, byte) in buffer.iter().enumerate() {
            if byte.eq_ignore_ascii_case(&wanted[matched]) {
                matched += 1;
            } else {
                // The name's first letter occurs nowhere else in it.
                matched = usize::from(byte.eq_ignore_ascii_case(&wanted[0]));
            }
            if matched == wanted.len() {
                used = at + 1;
                break;
            }
        }
        input.consume(used);
        if matched == wanted.len() {
            return Ok(true);
        }
    }
}

/// A message body as a message for the server, or the error that answers
/// it.
fn decode(body: &[u8]) -> Incoming {
    if json_values_at_most(body) > MAX_JSON_VALUES {
        return refusal(
            Value::Null,
            ErrorCode::InvalidRequest,
            format!("the message holds more than {MAX_JSON_VALUES} JSON values"),
        );
    }
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(error) => {
            return refusal(
                Value::Null,
                ErrorCode::ParseError,
                format!("the message is not JSON: {error}"),
            )
        }
    };
    if value.is_array() {
        return refusal(
            Value::Null,
            ErrorCode::InvalidRequest,
            "a batch: the Language Server Protocol sends one message at a time".to_owned(),
        );
    }
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    match serde_json::from_value(value) {
        Ok(message) => Incoming::Message(message),
        Err(error) => refusal(
            id,
            ErrorCode::InvalidRequest,
            format!("not a request, a response or a notification: {error}"),
        ),
    }
}

/// At least as many as the JSON values in `body` (when it is JSON): one,
/// and one more a bracket, brace, comma or colon outside strings.
fn json_values_at_most(body: &[u8]) -> usize {
    let (mut values, mut in_string, mut escaped) = (1, false, false);
    for &byte in body {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match byte {
                b'"' => in_string = true,
                b'[' | b'{' | b',' | b':' => values += 1,
                _ => {}
            }
        }
    }
    values
}

fn refusal(id: Value, code: ErrorCode, message: String) -> Incoming {
    Incoming::Refused(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code as i32, "message": message},
    }))
}

/// The threads that move messages between the client and the
/// [`Connection`].
pub struct IoThreads {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<io::Result<()>>,
}

impl IoThreads {
    /// Waits for both threads to end: the writer once the connection is
    /// dropped and what it was sent is written, the reader at the end of
    /// the input or after an `exit` notification.
    pub fn join(self) -> io::Result<()> {
        let written = ended(self.writer);
        ended(self.reader).and(written)
    }

    /// Waits for the writer alone (see [`IoThreads::join`]).
    pub fn join_writer(self) -> io::Result<()> {
        ended(self.writer)
    }
}

/// Waits for `thread` to end; its result, or an error if it panicked.
fn ended(thread: JoinHandle<io::Result<()>>) -> io::Result<()> {
    thread
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("a connection thread panicked")))
}

/// A connection over standard input and output, read by a
/// [`MessageReader`]; the refusals it makes are written between the
/// server's messages.
pub fn stdio() -> (Connection, IoThreads) {
    let (to_server, from_client) = bounded(0);
    let (to_client, from_server) = bounded(0);
    let (refuse, refusals) = bounded(0);
    let reader = thread::spawn(move || read_stdin(&to_server, &refuse));
    let writer = thread::spawn(move || write_stdout(&from_server, refusals));
    let connection = Connection {
        sender: to_client,
        receiver: from_client,
    };
    (connection, IoThreads { reader, writer })
}

fn read_stdin(to_server: &Sender<Message>, refuse: &Sender<Value>) -> io::Result<()> {
    let mut reader = MessageReader::new(io::stdin().lock());
    while let Some(incoming) = reader.read()? {
        match incoming {
            Incoming::Message(message) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == Exit::METHOD);
                to_server.send(message).map_err(gone)?;
                if exit {
                    break;
                }
            }
            Incoming::Refused(error) => refuse.send(error).map_err(gone)?,
        }
    }
    Ok(())
}

/// The server side of the connection is gone.
fn gone<T>(_: crossbeam_channel::SendError<T>) -> io::Error {
    io::Error::other("the connection was dropped")
}

fn write_stdout(from_server: &Receiver<Message>, mut refusals: Receiver<Value>) -> io::Result<()> {
    let mut out = io::stdout().lock();
    loop {
        select! {
            recv(from_server) -> message => match message {
                Ok(message) => message.write(&mut out)?,
                Err(_) => return Ok(()),
            },
            recv(refusals) -> refusal => match refusal {
                Ok(refusal) => {
                    let body = refusal.to_string();
                    write!(out, "{CONTENT_LENGTH}: {}\r\n\r\n{body}", body.len())?;
                    out.flush()?;
                }
                // The reader has ended: only the server's messages are left.
                Err(_) => refusals = never(),
            },
        }
    }
}
