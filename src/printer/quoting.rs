//! Quoting and escapes: when a name is written bare and when quoted,
//! string literals (with the `b"..."` byte-string extension), and the
//! identifiers compat mode makes of names it cannot quote.

use super::sink::Sink;
use crate::vocabulary;

/// Whether a name must be quoted where a value name is expected: anything
/// that is not an identifier, and the type keywords (which would be read
/// as the start of a type in an optionally typed list).
pub(crate) fn name_needs_quotes(name: &str) -> bool {
    !vocabulary::is_identifier(name) || vocabulary::starts_type(name)
}

/// Whether the reference parser would read `name`, at the start of an
/// attribute value, as `inf`, `infinity` or `nan`: it looks at up to nine
/// leading letters (and gives up if a digit follows them).
pub(crate) fn reads_as_float_keyword(name: &str) -> bool {
    let bytes = name.as_bytes();
    let run = bytes
        .iter()
        .take(9)
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    if bytes.get(run).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    let word = &name[..run];
    ["inf", "infinity", "nan"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
}

/// Whether a graph name can be written bare as an attribute value.
pub(crate) fn graph_name_is_bare(name: &str) -> bool {
    vocabulary::is_identifier(name)
        && !vocabulary::starts_type(name)
        && !reads_as_float_keyword(name)
}

/// Whether `text` is a dotted name whose parts are identifiers (`ai.onnx.ml`).
pub(crate) fn is_qualified(text: &str) -> bool {
    text.split('.').all(vocabulary::is_identifier)
}

/// An identifier made from `text` for compat mode, where quoting is not
/// available: every other character becomes `_`.
pub(crate) fn sanitize(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

impl Sink<'_> {
    /// A value name (graph input, node output, ...): bare when it is an
    /// identifier that cannot be read as a type, quoted otherwise.
    pub(crate) fn name(&mut self, name: &str) {
        if name_needs_quotes(name) {
            self.quoted(name);
        } else {
            self.text(name);
        }
    }

    /// A name that the reference grammar only allows bare (attribute names,
    /// op types, ...): bare when `bare` accepts it, else quoted (an
    /// extension) or, in compat mode, replaced by an identifier and reported.
    pub(crate) fn ext_name(&mut self, name: &str, bare: fn(&str) -> bool, what: &str) {
        if bare(name) {
            self.text(name);
        } else if self.compat() {
            let mut fixed = sanitize(name);
            if !bare(&fixed) {
                fixed.insert(0, '_');
            }
            self.report(format!("{what} {name:?} written as `{fixed}`"));
            self.text(&fixed);
        } else {
            self.quoted(name);
        }
    }

    /// A string literal. UTF-8 text without NUL is written `"..."` with only
    /// `"` and `\` escaped; anything else uses the byte-string extension
    /// `b"..."` with `\xHH` for the bytes that are not UTF-8 and for NUL. In
    /// compat mode such bytes are replaced and reported instead.
    pub(crate) fn string(&mut self, bytes: &[u8]) {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.quoted(text),
            Err(_) => self.byte_string(bytes),
        }
    }

    /// [`Sink::string`] of text known to be UTF-8 (a name), which is not
    /// checked again.
    pub(crate) fn quoted(&mut self, text: &str) {
        if memchr::memchr(0, text.as_bytes()).is_some() {
            self.byte_string(text.as_bytes());
        } else {
            self.put(b"\"");
            self.escaped(text);
            self.put(b"\"");
        }
    }

    /// A string literal of bytes that are not UTF-8 or hold a NUL.
    fn byte_string(&mut self, bytes: &[u8]) {
        if self.compat() {
            // The reference reads strings as C strings: NUL ends them.
            self.report("string bytes that are not UTF-8 replaced by U+FFFD, NUL bytes removed");
            let text = String::from_utf8_lossy(bytes).replace('\0', "");
            self.put(b"\"");
            self.escaped(&text);
            self.put(b"\"");
            return;
        }
        self.put(b"b\"");
        for chunk in bytes.utf8_chunks() {
            let mut rest = chunk.valid();
            while let Some(nul) = rest.find('\0') {
                self.escaped(&rest[..nul]);
                self.put(b"\\x00");
                rest = &rest[nul + 1..];
            }
            self.escaped(rest);
            for byte in chunk.invalid() {
                let hex = format!("\\x{byte:02x}");
                self.put(hex.as_bytes());
            }
        }
        self.put(b"\"");
    }

    fn escaped(&mut self, text: &str) {
        // `"` and `\` are ASCII: they are never part of a longer character.
        let bytes = text.as_bytes();
        let mut start = 0;
        for i in memchr::memchr2_iter(b'"', b'\\', bytes) {
            self.put_lines(&bytes[start..i]);
            self.put(b"\\");
            start = i;
        }
        self.put_lines(&bytes[start..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::printer::sink::testing::{render, render_with};
    use crate::Printer;

    #[test]
    fn strings_escape_only_quotes_and_backslashes() {
        assert_eq!(render(|s| s.string(b"a\"b\\c\nd")), "\"a\\\"b\\\\c\nd\"");
        assert_eq!(render(|s| s.string(b"x\xffy\0")), "b\"x\\xffy\\x00\"");
        assert_eq!(render(|s| s.string("é\"".as_bytes())), "\"é\\\"\"");
        let (text, dropped) = render_with(Printer::new().compat(true), |s| s.string(b"a\xff"));
        assert_eq!(text, "\"a\u{fffd}\"");
        assert_eq!(dropped.len(), 1);
    }

    /// A string literal as the printer wrote names before `Sink::quoted`
    /// skipped their UTF-8 check: character by character.
    fn quoted_char_by_char(text: &str) -> String {
        let (open, nul) = match text.contains('\0') {
            true => ("b\"", "\\x00"),
            false => ("\"", ""),
        };
        let mut out = String::from(open);
        for c in text.chars() {
            match c {
                '"' | '\\' => out.extend(['\\', c]),
                '\0' => out.push_str(nul),
                c => out.push(c),
            }
        }
        out + "\""
    }

    #[test]
    fn names_are_quoted_as_strings_are() {
        let pieces = [
            "",
            "a",
            "\"",
            "\\",
            "\0",
            "é",
            "\n",
            "/blocks.7/conv",
            "\u{1F600}",
        ];
        let mut texts: Vec<String> = pieces.iter().map(|p| p.to_string()).collect();
        // Every pair, and each piece at both ends of a text longer than a
        // vector of bytes (where `memchr` leaves its scalar loop).
        for a in pieces {
            for b in pieces {
                texts.push(format!("{a}{b}"));
                texts.push(format!("{a}{}{b}", "x".repeat(70)));
            }
        }
        for text in &texts {
            assert_eq!(
                render(|s| s.quoted(text)),
                quoted_char_by_char(text),
                "{text:?}"
            );
            assert_eq!(
                render(|s| s.string(text.as_bytes())),
                quoted_char_by_char(text)
            );
            let compat = |f: &dyn Fn(&mut Sink<'_>)| render_with(Printer::new().compat(true), f);
            let (by_name, dropped) = compat(&|s| s.quoted(text));
            assert_eq!(by_name, quoted_char_by_char(&text.replace('\0', "")));
            assert_eq!(dropped.len(), usize::from(text.contains('\0')));
            assert_eq!((by_name, dropped), compat(&|s| s.string(text.as_bytes())));
        }
    }

    #[test]
    fn names_are_quoted_when_needed() {
        assert_eq!(render(|s| s.name("x_1")), "x_1");
        assert_eq!(render(|s| s.name("a/b")), "\"a/b\"");
        assert_eq!(render(|s| s.name("float")), "\"float\"");
        assert_eq!(render(|s| s.name("")), "\"\"");
        assert!(reads_as_float_keyword("nan_graph"));
        assert!(reads_as_float_keyword("Infinity"));
        assert!(!reads_as_float_keyword("inference"));
        assert!(!reads_as_float_keyword("inf1"));
        assert!(!graph_name_is_bare("seq"));
        assert_eq!(sanitize("my-op.x"), "my_op_x");
        assert_eq!(sanitize("1a"), "_1a");
    }
}
