//! Everything the headless commands print goes through here.
//!
//! - Text is made safe for a terminal: a name, an annotation or an owner
//!   reference read from a file or from a cluster can carry ESC sequences
//!   (retitle or clear the terminal, write the clipboard with OSC 52) or
//!   bidirectional overrides that reorder what is shown. Every such character
//!   is printed as a visible escape (`\u{1b}`); JSON output escapes them
//!   itself.
//! - Output is buffered (one write per line is slow on 100k-line outputs).
//! - A closed pipe (`ownerscope simulate demo | head -1`) ends the command
//!   quietly with success, as Unix tools do, instead of a panic.

use std::borrow::Cow;
use std::io::{self, BufWriter, Write};

use super::CmdError;

/// A character a terminal would act on rather than show.
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        // Bidirectional embeddings, overrides and isolates (Trojan Source).
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// Every byte of `s` printable ASCII, a line break or a tab: no character
/// a terminal acts on, without decoding one. Each block is checked whole,
/// not stopping at the first byte that fails, which the compiler turns
/// into vector instructions: one character at a time, the 15 MB text of
/// a 300k-object forest took 12 ms.
fn plain_ascii(s: &str) -> bool {
    s.as_bytes().chunks(64).all(|block| {
        block.iter().fold(true, |plain, &b| {
            plain & matches!(b, b' '..=b'~' | b'\n' | b'\t')
        })
    })
}

/// `s` with every character a terminal would act on written as a visible
/// escape; line breaks and tabs are kept.
#[must_use]
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if plain_ascii(s) || !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` on one line: also escapes line breaks, for a value printed inside a
/// line (an error message naming a field, an object's name).
#[must_use]
pub fn one_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c == '\n' || is_unsafe(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c == '\n' || is_unsafe(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Buffered, sanitised standard output.
pub struct Out {
    w: BufWriter<io::StdoutLock<'static>>,
}

impl Default for Out {
    fn default() -> Self {
        Self::new()
    }
}

impl Out {
    #[must_use]
    pub fn new() -> Self {
        Out {
            w: BufWriter::with_capacity(64 * 1024, io::stdout().lock()),
        }
    }

    /// Prints text (which may span lines) followed by a line break.
    ///
    /// # Errors
    /// Standard output cannot be written (a closed pipe exits instead).
    pub fn line(&mut self, s: &str) -> Result<(), CmdError> {
        self.text(s)?;
        self.text("\n")
    }

    /// Prints text as it is, sanitised.
    ///
    /// # Errors
    /// Standard output cannot be written (a closed pipe exits instead).
    pub fn text(&mut self, s: &str) -> Result<(), CmdError> {
        let r = self.w.write_all(sanitize(s).as_bytes());
        check(r)
    }

    /// Prints a JSON value on one line (JSON escapes control characters).
    ///
    /// # Errors
    /// Standard output cannot be written (a closed pipe exits instead).
    pub fn json(&mut self, v: &impl serde::Serialize) -> Result<(), CmdError> {
        let r = serde_json::to_writer(&mut self.w, v).map_err(io::Error::from);
        check(r)?;
        self.text("\n")
    }

    /// Prints JSON that `write` writes itself, piece by piece, then a
    /// line break (for an answer too large to build whole first).
    ///
    /// # Errors
    /// Standard output cannot be written (a closed pipe exits instead).
    pub fn json_with(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> serde_json::Result<()>,
    ) -> Result<(), CmdError> {
        let r = write(&mut self.w).map_err(io::Error::from);
        check(r)?;
        self.text("\n")
    }

    /// Writes out what is buffered.
    ///
    /// # Errors
    /// Standard output cannot be written (a closed pipe exits instead).
    pub fn flush(&mut self) -> Result<(), CmdError> {
        let r = self.w.flush();
        check(r)
    }
}

impl Drop for Out {
    fn drop(&mut self) {
        // Errors were reported by `flush` where the command cared.
        let _ = self.w.flush();
    }
}

fn check(r: io::Result<()>) -> Result<(), CmdError> {
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => quiet_exit(),
        Err(e) => Err(CmdError(format!("writing to standard output: {e}"))),
    }
}

/// The reader went away: nothing more can be said to anyone.
fn quiet_exit() -> ! {
    std::process::exit(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_visible_text() {
        let title = "web\u{1b}]0;pwned\u{7}\u{1b}[2J";
        assert_eq!(sanitize(title), "web\\u{1b}]0;pwned\\u{7}\\u{1b}[2J");
        assert_eq!(sanitize("a\u{9b}31m"), "a\\u{9b}31m");
        assert_eq!(sanitize("x\u{202e}gnp.exe"), "x\\u{202e}gnp.exe");
        assert_eq!(sanitize("line\r"), "line\\u{d}");
    }

    #[test]
    fn an_unsafe_character_is_found_past_the_first_block() {
        for c in (0..=0x7f_u8).map(char::from).chain(['\u{9b}', '\u{2066}']) {
            let s = format!("{}{c}{}", "a".repeat(100), "b".repeat(30));
            let expected = if is_unsafe(c) {
                format!(
                    "{}{}{}",
                    "a".repeat(100),
                    c.escape_unicode(),
                    "b".repeat(30)
                )
            } else {
                s.clone()
            };
            assert_eq!(sanitize(&s), expected, "{c:?}");
        }
    }

    #[test]
    fn ordinary_text_is_untouched() {
        let s = "Deployment/web\n  ReplicaSet/web-6d4\tΩ ✓";
        assert!(matches!(sanitize(s), Cow::Borrowed(_)));
        assert_eq!(one_line("a\nb"), "a\\u{a}b");
    }
}
