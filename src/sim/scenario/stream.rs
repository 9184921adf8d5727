//! A JSON List or snapshot read in pieces: the file is read a piece at a
//! time (8 MiB, or 1 MiB once the objects are found to start a line each)
//! into a window on its text, and each run of whole objects of `items` (or
//! `objects`) goes to a parsing thread, as a copy or as the window's own
//! text; the texts come back to be read into again. The file's text is
//! never held whole: at 100k objects that was 99 MB, at a million about a
//! gigabyte, every page of it fresh (the kernel zeroes each one) and read
//! once. What lies around the objects (`apiVersion`, `kind`, `metadata`;
//! a snapshot's `kinds` and `settings`) is copied as it is into a small
//! document of its own, with an empty list where the objects were, and read
//! as [`parse_json_fast`] reads the whole text; the objects read are then
//! put in the empty list's place.
//!
//! Anything this does not read (a top-level field a List or a snapshot does
//! not have, a scenario with steps, an object that is not a JSON object,
//! any syntax or check error) gives `None`: the caller reads the whole file
//! again, as before, and whatever is wrong is said with its line and field.

use std::io::Read;
use std::path::Path;

use super::*;

/// How much of the file is read at a time.
const CHUNK: usize = 8 << 20;

/// An object read by [`crate::model::object::Shared`], as a
/// `Deserialize` for [`serde_json::StreamDeserializer`].
struct One(Arc<Object>);

impl<'de> Deserialize<'de> for One {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::DeserializeSeed::deserialize(crate::model::object::Shared, d).map(One)
    }
}

/// A run of a list's objects for a parsing thread: a text, and where in
/// it the run starts.
type Run = (String, usize);

/// Which top-level list the objects were read from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    Items,
    Objects,
}

/// The file being read: a window on its text, from `pos` to the end of
/// what has been read.
struct Window {
    file: std::fs::File,
    /// The text read, checked as UTF-8 as it comes in (once, as the whole
    /// text was: `serde_json` reads a `&str` without checking each string
    /// again, as it does a `&[u8]`).
    buf: String,
    /// What was read and is not in `buf` yet: where a piece ended inside
    /// a character.
    raw: Vec<u8>,
    pos: usize,
    eof: bool,
    /// The file could not be read, or is not UTF-8: the end that
    /// [`Window::peek`] saw is not the file's.
    failed: bool,
    /// How much is read at a time: a little until the text is known to
    /// start with `{` (a YAML file is read whole instead), then [`CHUNK`].
    chunk: usize,
}

impl Window {
    /// Reads at least `at_least` more bytes (or to the end of the file),
    /// dropping what is behind `pos` first. `Ok(false)` at the end; an
    /// error for text that is not UTF-8.
    fn more(&mut self, at_least: usize) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        // `pos` is at the end, or at the `{` of an object cut short.
        if !self.buf.is_char_boundary(self.pos) {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
        self.buf.drain(..self.pos);
        self.pos = 0;
        let want = at_least.max(self.chunk);
        // Read into the text's own bytes, after what is left of it and of
        // a character cut short: not read into a buffer of its own and
        // copied (at 300k objects, a copy of the whole file on the reading
        // thread, which the parsing threads share the cores with).
        let mut bytes = std::mem::take(&mut self.buf).into_bytes();
        bytes.extend_from_slice(&self.raw);
        self.raw.clear();
        bytes.reserve(want);
        let read = (&mut self.file).take(want as u64).read_to_end(&mut bytes);
        let not_utf8 = || std::io::Error::from(std::io::ErrorKind::InvalidData);
        let n = match read {
            Ok(n) => n,
            Err(e) => {
                self.buf = String::from_utf8(bytes).unwrap_or_default();
                return Err(e);
            }
        };
        crate::sim::progress::read(n as u64);
        self.buf = match String::from_utf8(bytes) {
            Ok(text) => text,
            // A character cut at the end of the piece: the rest comes with
            // the next one (what is before it checked a second time).
            Err(e) if e.utf8_error().error_len().is_none() && n > 0 => {
                let valid = e.utf8_error().valid_up_to();
                let mut bytes = e.into_bytes();
                self.raw.extend_from_slice(&bytes[valid..]);
                bytes.truncate(valid);
                String::from_utf8(bytes).map_err(|_| not_utf8())?
            }
            Err(_) => return Err(not_utf8()),
        };
        if n == 0 {
            self.eof = true;
        }
        Ok(n > 0)
    }

    /// The byte at `pos`, reading more when needed; `None` at the end.
    fn peek(&mut self) -> Option<u8> {
        while self.pos >= self.buf.len() {
            match self.more(0) {
                Ok(true) => {}
                Ok(false) => return None,
                Err(_) => {
                    self.failed = true;
                    return None;
                }
            }
        }
        Some(self.buf.as_bytes()[self.pos])
    }

    /// Skips JSON whitespace; the next byte, if any.
    fn skip_ws(&mut self) -> Option<u8> {
        loop {
            let b = self.peek()?;
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.pos += 1;
        }
    }

    /// The elements of a list of objects, from just after its `[` to just
    /// after its `]`. This thread reads the file and finds where each
    /// object ends (its braces, outside strings); each run of whole objects
    /// read is parsed by one of [`parsers`] threads meanwhile, in turn, and
    /// the objects are put back in their order.
    fn objects(&mut self) -> Option<Vec<Arc<Object>>> {
        let n = parsers();
        let progress = crate::sim::progress::Progress::current();
        std::thread::scope(|s| {
            let mut senders = Vec::with_capacity(n);
            let mut workers = Vec::with_capacity(n);
            // Each run's text, once parsed, comes back to be filled with
            // another: a new one for each run was the whole file copied
            // into fresh pages, which the kernel zeroed (at 300k objects,
            // 297 MB; in a profile, 246 samples of zeroing against 5 of
            // copying).
            let (spent, spare) = std::sync::mpsc::channel::<String>();
            for worker in 0..n {
                let (tx, rx) = std::sync::mpsc::sync_channel::<Run>(1);
                senders.push(tx);
                let progress = progress.clone();
                let spent = spent.clone();
                workers.push(s.spawn(move || {
                    let _counted = progress.map(crate::sim::progress::Progress::observe);
                    let mut runs: Vec<Option<Vec<Arc<Object>>>> = Vec::new();
                    for (text, from) in rx {
                        // The list's first run is the first worker's first.
                        let first = worker == 0 && runs.is_empty();
                        runs.push(text.get(from..).and_then(|run| parse_run(run, first)));
                        // Refused only once the reader is done with them.
                        let _ = spent.send(text);
                    }
                    runs
                }));
            }
            drop(spent);
            let found = self.runs(&senders, &spare);
            drop(senders);
            let mut parsed: Vec<std::vec::IntoIter<Option<Vec<Arc<Object>>>>> = workers
                .into_iter()
                .map(|w| crate::threads::joined(w).into_iter())
                .collect();
            let runs = found?;
            let mut out = Vec::new();
            for i in 0..runs {
                out.extend(parsed[i % n].next()??);
            }
            Some(out)
        })
    }

    /// The spaces a list's objects are written after, when each starts a
    /// line: those between the first object's comma and the second (read
    /// byte by byte to there, nothing taken). `None` for a list of fewer
    /// than two objects, or whose second does not start a line.
    fn item_indent(&mut self) -> Option<String> {
        // Offsets from `pos`, which `more` keeps.
        let mut i = 0;
        let byte = |w: &mut Window, i: usize| -> Option<u8> {
            while w.pos + i >= w.buf.len() {
                if !w.more(0).ok()? {
                    return None;
                }
            }
            Some(w.buf.as_bytes()[w.pos + i])
        };
        let ws = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        while ws(byte(self, i)?) {
            i += 1;
        }
        if byte(self, i)? != b'{' {
            return None;
        }
        let mut braces = Braces::default();
        loop {
            let b = byte(self, i)?;
            i += 1;
            if braces.closes(b) {
                break;
            }
        }
        while ws(byte(self, i)?) {
            i += 1;
        }
        if byte(self, i)? != b',' {
            return None;
        }
        let from = i + 1;
        i = from;
        while ws(byte(self, i)?) {
            i += 1;
        }
        if byte(self, i)? != b'{' {
            return None;
        }
        let between = &self.buf[self.pos + from..self.pos + i];
        let line = between.rfind('\n')?;
        Some(between[line + 1..].to_string())
    }

    /// Hands each run of whole objects of the list to `parsers`, in
    /// turn, up to the list's `]`: how many runs, `None` for anything but
    /// a list of objects. A run is cut after an object's `}`: the first
    /// starts with its object, each other with the comma before its
    /// first ([`parse_run`] holds every run to that, so a cut that was not
    /// between two objects fails to parse, and the whole text is read).
    /// A run cut at a line is the window's own text, handed over whole
    /// with where the run starts in it; the window goes on in a text from
    /// `spare` (when one came back) with what was after the cut. A run
    /// found a byte at a time is copied into such a text.
    fn runs(
        &mut self,
        parsers: &[std::sync::mpsc::SyncSender<Run>],
        spare: &std::sync::mpsc::Receiver<String>,
    ) -> Option<usize> {
        let mut runs = 0;
        let mut send = |run: Run| {
            let sent = parsers[runs % parsers.len()].send(run).is_ok();
            runs += 1;
            sent
        };
        let spare_text = || {
            let mut text = spare.try_recv().unwrap_or_default();
            text.clear();
            text
        };
        let copied = |text: &str| {
            let mut run = spare_text();
            run.push_str(text);
            (run, 0)
        };
        // A list written an object a line, or indented (as kubectl, jq and
        // the APIs' clients write it): cut where a line starts an object,
        // all but the end of the file, without looking at every byte.
        let mut after_object = false;
        if let Some(indent) = self.item_indent() {
            // Read in smaller pieces: each is about a run, and the runs
            // are what the parsing threads share. A run is half a piece at
            // least: a few objects are read a byte at a time, below.
            let run = (self.chunk / 8).max(1);
            self.chunk = run;
            loop {
                let cut = last_item_cut(&self.buf, self.pos, &indent)
                    .filter(|cut| cut - self.pos >= run / 2);
                if let Some(cut) = cut {
                    let mut rest = spare_text();
                    rest.push_str(&self.buf[cut..]);
                    let mut run = std::mem::replace(&mut self.buf, rest);
                    run.truncate(cut);
                    if !send((run, std::mem::take(&mut self.pos))) {
                        return None;
                    }
                    after_object = true;
                }
                if !self.more(0).ok()? {
                    break;
                }
            }
        }
        // The rest, or a list written otherwise: every byte looked at.
        // Between objects, or inside one.
        let mut braces = Braces::default();
        // Between objects: whether the last thing was an object (a comma
        // or the end may come), or a comma (an object must).
        let mut after_comma = false;
        // Where the run being found starts, and where its last whole
        // object ends.
        let mut start = self.pos;
        let mut end = self.pos;
        let mut at = self.pos;
        loop {
            let bytes = self.buf.as_bytes();
            while at < bytes.len() {
                let b = bytes[at];
                at += 1;
                if braces.inside() {
                    if braces.closes(b) {
                        end = at;
                        after_object = true;
                    }
                    continue;
                }
                // Between objects: objects, one comma between two, spaces.
                match b {
                    b'{' if !after_object => {
                        braces.closes(b);
                        after_comma = false;
                    }
                    b',' if after_object => {
                        after_object = false;
                        after_comma = true;
                    }
                    b']' if !after_comma => {
                        if end > start && !send(copied(&self.buf[start..end])) {
                            return None;
                        }
                        self.pos = at;
                        return Some(runs);
                    }
                    b' ' | b'\n' | b'\t' | b'\r' => {}
                    _ => return None,
                }
            }
            // The end of what was read: the whole objects go, the one cut
            // short stays for the next piece.
            if end > start {
                if !send(copied(&self.buf[start..end])) {
                    return None;
                }
                start = end;
            }
            let kept = at - start;
            self.pos = start;
            if !self.more(0).ok()? {
                return None;
            }
            // `more` dropped what was before `pos`.
            start = 0;
            end = 0;
            at = kept;
        }
    }
}

/// Where the last run from `start` may end in `text`: just after the `}`
/// of the object before the last line that starts an object at `indent`
/// (a line break, `indent`, `{`), the object followed by a comma. `None`
/// when the text read has no such line after `start` yet. A line break is
/// never inside a JSON string, so no string is taken for a line; a list
/// indented otherwise than its first object may be cut wrong, which its
/// parse finds.
fn last_item_cut(text: &str, start: usize, indent: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut to = bytes.len();
    loop {
        let line = bytes.get(start..to)?.iter().rposition(|b| *b == b'\n')? + start;
        to = line;
        let rest = &bytes[line + 1..];
        if !(rest.starts_with(indent.as_bytes()) && rest.get(indent.len()) == Some(&b'{')) {
            continue;
        }
        let before = bytes[..line].trim_ascii_end();
        let Some(before) = before.strip_suffix(b",") else {
            continue;
        };
        let before = before.trim_ascii_end();
        if before.ends_with(b"}") && before.len() > start {
            return Some(before.len());
        }
    }
}

/// Where the text of an object is, read a byte at a time from its `{`:
/// how many braces deep, and whether inside a string.
#[derive(Default)]
struct Braces {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl Braces {
    /// Takes the object's next byte: whether it is the `}` that closes it.
    fn closes(&mut self, b: u8) -> bool {
        if self.in_string {
            self.in_string = !ends_string(b, &mut self.escaped);
            return false;
        }
        match b {
            b'"' => self.in_string = true,
            b'{' => self.depth += 1,
            b'}' => {
                self.depth = self.depth.saturating_sub(1);
                return self.depth == 0;
            }
            _ => {}
        }
        false
    }

    /// Inside an object (after its `{`, up to its `}`).
    fn inside(&self) -> bool {
        self.depth > 0
    }
}

/// Whether a byte inside a JSON string ends it (`escaped`: the byte
/// before was a backslash that escapes this one).
fn ends_string(b: u8, escaped: &mut bool) -> bool {
    if std::mem::take(escaped) {
        return false;
    }
    *escaped = b == b'\\';
    b == b'"'
}

/// How many threads parse a list's objects: the cores this process may
/// use, at most four.
fn parsers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// The objects of a run of a list (`{...}, {...}`, as the list has them
/// between its brackets), read and checked; `None` for anything else. A
/// run after the list's first starts with a comma ([`Window::runs`]), and
/// its objects have one comma between each two: so a run that parses
/// ends where an object of the list ends, and the runs together are the
/// list as written.
fn parse_run(text: &str, first: bool) -> Option<Vec<Arc<Object>>> {
    let ws: &[char] = &[' ', '\n', '\t', '\r'];
    let mut out = Vec::new();
    let mut rest = text.trim_start_matches(ws);
    if !first {
        rest = rest.strip_prefix(',')?.trim_start_matches(ws);
    }
    loop {
        if !rest.starts_with('{') {
            return None;
        }
        let mut it = serde_json::Deserializer::from_str(rest).into_iter::<One>();
        let One(o) = it.next()?.ok()?;
        checked::<serde_json::Error>(&o).ok()?;
        out.push(o);
        rest = rest[it.byte_offset()..].trim_start_matches(ws);
        if rest.is_empty() {
            return Some(out);
        }
        rest = rest.strip_prefix(',')?.trim_start_matches(ws);
    }
}

/// Reads `path` (a file of `size` bytes whose text starts with `{`) as a
/// List or a snapshot; `None` for anything [`parse`] should read from the
/// whole text.
pub(super) fn parse_json_streamed(file: &str, path: &Path, size: u64) -> Option<Scenario> {
    streamed(file, path, size, CHUNK)
}

/// As [`parse_json_streamed`], reading `chunk` bytes at a time.
fn streamed(file: &str, path: &Path, size: u64, chunk: usize) -> Option<Scenario> {
    crate::sim::progress::file_size(size);
    let mut w = Window {
        file: std::fs::File::open(path).ok()?,
        buf: String::new(),
        raw: Vec::new(),
        pos: 0,
        eof: false,
        failed: false,
        chunk: 4 << 10,
    };
    if w.skip_ws()? != b'{' {
        return None;
    }
    w.chunk = chunk;
    // Everything but the objects, with `[]` where they were.
    let mut skeleton: Vec<u8> = Vec::new();
    let mut read: Option<(List, Vec<Arc<Object>>)> = None;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    // At depth 1: whether the next string is a key, the key being read
    // (from where in `skeleton`), and the last key read.
    let mut expect_key = false;
    let mut key_from: Option<usize> = None;
    let mut key: Option<List> = None;
    while let Some(b) = w.peek() {
        w.pos += 1;
        skeleton.push(b);
        if in_string {
            if ends_string(b, &mut escaped) {
                in_string = false;
                if let Some(from) = key_from.take() {
                    let name = &skeleton[from..skeleton.len() - 1];
                    if !Shape::FIELDS.iter().any(|f| f.as_bytes() == name) {
                        // A scenario with steps or controllers, or not a
                        // scenario: the whole text is read.
                        return None;
                    }
                    key = match name {
                        b"items" => Some(List::Items),
                        b"objects" => Some(List::Objects),
                        _ => None,
                    };
                }
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                if depth == 1 && expect_key {
                    expect_key = false;
                    key_from = Some(skeleton.len());
                }
            }
            // The value of `items` or `objects` (a `[` at depth 1 can
            // only be a value, and `key` is the key of the value being
            // read until the next comma).
            b'[' if depth == 1 && key.is_some() => {
                let which = key.take()?;
                if read.is_some() {
                    // Two lists: the whole text is read (and refused).
                    return None;
                }
                read = Some((which, w.objects()?));
                skeleton.push(b']');
            }
            b'{' | b'[' => {
                depth += 1;
                if depth == 1 {
                    expect_key = true;
                }
            }
            b'}' | b']' => depth = depth.checked_sub(1)?,
            b',' if depth == 1 => {
                expect_key = true;
                key = None;
            }
            _ => {}
        }
    }
    if w.failed {
        return None;
    }
    let mut shape: Shape = serde_json::from_slice(&skeleton).ok()?;
    match read {
        Some((List::Items, objects)) => shape.items = Some(objects),
        Some((List::Objects, objects)) => shape.objects = Some(objects),
        None => {}
    }
    of_shape(file, shape)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The file's scenario read in pieces of `chunk` bytes, and as
    /// [`parse_json_fast`] reads the whole text.
    fn both(name: &str, text: &str, chunk: usize) -> (Option<Scenario>, Option<Scenario>) {
        let dir = std::env::temp_dir().join(format!("ownerscope-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        let file = path.to_string_lossy().to_string();
        let streamed = streamed(&file, &path, text.len() as u64, chunk);
        let whole = parse_json_fast(&file, text);
        std::fs::remove_file(&path).ok();
        (streamed, whole)
    }

    const LIST: &str = r#"{"apiVersion":"v1","items":[
  {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","uid":"d1","annotations":{"a]":"{\"items\":[","b":"\\"},"managedFields":[{"manager":"kubectl"}]},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}}}},
  {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-1","namespace":"shop","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","controller":true}]}} ,
  {"apiVersion":"v1","kind":"Event","metadata":{"name":"e","namespace":"shop"},"involvedObject":{"kind":"Deployment","name":"web","namespace":"shop","uid":"d1"},"reason":"Scaled","message":"]}"}
] ,"kind":"List","metadata":{"resourceVersion":"","items":[1]}}
"#;

    const SNAPSHOT: &str = r#" {"name":"snap","description":"a cluster","kinds":[{"apiVersion":"example.com/v1","kind":"Database","namespaced":true}],
"takenAt":"2026-11-26T06:00:00Z","settings":{"terminatedPodGcThreshold":2},
"objects":[{"apiVersion":"example.com/v1","kind":"Database","metadata":{"name":"orders","namespace":"shop","uid":"db1","finalizers":["example.com/x"]}}]}"#;

    #[test]
    fn read_in_pieces_as_the_whole_text_is_read() {
        for (name, text) in [
            ("list.json", LIST.to_string()),
            ("snap.json", SNAPSHOT.to_string()),
            (
                "empty.json",
                r#"{"kind":"List","apiVersion":"v1","items":[ ]}"#.to_string(),
            ),
            // A List with a snapshot's `objects` as well: refused by both.
            (
                "mixed.json",
                LIST.replace(r#""kind":"List","#, r#""kind":"List","objects":[],"#),
            ),
        ] {
            for chunk in [1, 7, 64, CHUNK] {
                let (streamed, whole) = both(name, &text, chunk);
                assert_eq!(whole.is_some(), name != "mixed.json", "{name}");
                assert_eq!(streamed, whole, "{name} in pieces of {chunk}");
            }
        }
        let (streamed, _) = both("list.json", LIST, 5);
        let s = streamed.expect("a List");
        assert_eq!(s.objects.len(), 3);
        assert_eq!(
            s.objects[0]
                .metadata
                .annotations
                .get("a]")
                .map(String::as_str),
            Some(r#"{"items":["#)
        );
        // Characters of two to four bytes, cut by every piece size.
        let wide = LIST.replace(r#""b":"\\""#, r#""b":"é€𝄞""#);
        for chunk in 1..12 {
            let (streamed, whole) = both("wide.json", &wide, chunk);
            assert!(whole.is_some());
            assert_eq!(streamed, whole, "in pieces of {chunk}");
        }
        let (streamed, _) = both("snap.json", SNAPSHOT, 3);
        assert_eq!(streamed.expect("a snapshot").objects.len(), 1);
    }

    /// Many objects, read in many runs by the parsing threads: in the
    /// list's order, as the whole text reads them.
    #[test]
    fn objects_parsed_apart_come_back_in_their_order() {
        let items: Vec<String> = (0..300)
            .map(|i| {
                format!(
                    r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c-{i}","namespace":"n","uid":"u-{i}","annotations":{{"x":"}}{{\"]"}}}}}}"#
                )
            })
            .collect();
        let text = format!(
            r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
            items.join(",\n ")
        );
        for chunk in [1, 97, 1024, CHUNK] {
            let (streamed, whole) = both("many.json", &text, chunk);
            let streamed = streamed.expect("a List");
            assert_eq!(Some(&streamed), whole.as_ref(), "in pieces of {chunk}");
            let names: Vec<&str> = streamed.objects.iter().map(|o| o.name()).collect();
            let expected: Vec<String> = (0..300).map(|i| format!("c-{i}")).collect();
            assert_eq!(names, expected, "in pieces of {chunk}");
        }
    }

    /// A List as kubectl writes it (indented, each object's nested lists
    /// of objects indented deeper) and one written an object a line: cut
    /// at the lines that start an object, for any piece size, into the
    /// objects the whole text has.
    #[test]
    fn a_list_written_a_line_an_object_or_indented_is_cut_at_its_objects() {
        let items: Vec<Value> = (0..200)
            .map(|i| {
                json!({"apiVersion": "v1", "kind": "Pod", "metadata": {
                    "name": format!("p-{i}"), "namespace": "n", "uid": format!("u-{i}"),
                    "annotations": {"note": "},\n{\"x\":["},
                    "ownerReferences": [
                        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "r", "uid": "r1"},
                        {"apiVersion": "v1", "kind": "Node", "name": "node", "uid": "n1"}
                    ]},
                    "spec": {"containers": [{"name": "a"}, {"name": "b"}]}})
            })
            .collect();
        let list = json!({"apiVersion": "v1", "items": items, "kind": "List",
            "metadata": {"resourceVersion": ""}});
        let pretty = serde_json::to_string_pretty(&list).expect("json");
        let lines: Vec<String> = items.iter().map(Value::to_string).collect();
        let per_line = format!(
            "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{}\n]}}\n",
            lines.join(",\n")
        );
        let crlf = per_line.replace('\n', "\r\n");
        // The first object on the list's line, as `ownerscope bench` writes it.
        let tight = per_line.replacen("[\n", "[", 1);
        for (name, text) in [
            ("pretty.json", &pretty),
            ("lines.json", &per_line),
            ("crlf.json", &crlf),
            ("tight.json", &tight),
        ] {
            for chunk in [1, 7, 97, 1024, 4096, CHUNK] {
                let (streamed, whole) = both(name, text, chunk);
                let streamed = streamed.expect("a List");
                assert_eq!(streamed.objects.len(), 200, "{name} in pieces of {chunk}");
                assert_eq!(Some(streamed), whole, "{name} in pieces of {chunk}");
            }
        }
        // A comma missing or doubled between two objects inside a run:
        // not JSON, refused as the whole text refuses it.
        let at = per_line.match_indices("},\n{").nth(100).expect("objects").0;
        for (name, sep) in [("missing.json", "}\n{"), ("doubled.json", "},,\n{")] {
            let text = format!("{}{sep}{}", &per_line[..at], &per_line[at + 4..]);
            assert!(parse_json_fast(name, &text).is_none());
            for chunk in [97, 4096] {
                assert!(
                    both(name, &text, chunk).0.is_none(),
                    "{name} in pieces of {chunk}"
                );
            }
        }
        // A list whose objects hold lists of objects written at the
        // objects' own indent: a cut inside an object fails its parse, and
        // the whole text is read, as it reads everything else.
        let odd = per_line.replace(
            r#"{"apiVersion":"v1","kind":"Node","#,
            "\n{\"apiVersion\":\"v1\",\"kind\":\"Node\",",
        );
        assert!(both("odd.json", &odd, 64).0.is_none());
        let (streamed, whole) = both("odd.json", &odd, CHUNK);
        assert_eq!(streamed.map(|s| s.objects.len()), Some(200));
        let dir = std::env::temp_dir().join(format!("ownerscope-stream-o-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("odd.json");
        std::fs::write(&path, &odd).expect("write");
        let loaded = load(&path.to_string_lossy()).expect("loads");
        std::fs::remove_file(&path).ok();
        assert_eq!(Some(loaded.objects), whole.map(|w| w.objects));
    }

    /// A character of two to four bytes that a piece's end cuts is read
    /// whole with the next piece, wherever the cut falls. The text is
    /// longer than the first piece (4 KiB, read before the pieces get
    /// their size), so that the cuts fall inside the objects.
    #[test]
    fn characters_cut_by_a_piece_are_read_whole() {
        let items: Vec<String> = (0..60)
            .map(|i| {
                format!(
                    r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c-{i}","namespace":"n","uid":"u-{i}","annotations":{{"note":"é€𝄞 {i} 𝄞€é"}}}}}}"#
                )
            })
            .collect();
        let text = format!(
            "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{}\n]}}\n",
            items.join(",\n")
        );
        assert!(text.len() > 4 << 10);
        for chunk in [1, 7, 16, 24, 40, 97, 200, 1024] {
            let (streamed, whole) = both("wide-many.json", &text, chunk);
            let streamed = streamed.expect("a List");
            let note = streamed.objects[59].metadata.annotations.get("note");
            assert_eq!(note.map(String::as_str), Some("é€𝄞 59 𝄞€é"));
            assert_eq!(Some(streamed), whole, "in pieces of {chunk}");
        }
    }

    /// Where the cut at lines is taken (and the byte-by-byte look spared):
    /// the indent of a list's second object, for each way of writing it.
    #[test]
    fn the_indent_of_a_lists_objects_is_read_from_its_second() {
        let dir = std::env::temp_dir().join(format!("ownerscope-stream-i-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("list.json");
        let o = r#"{"a":{"b":"},\n{"},"c":[{},{}]}"#;
        for (after_bracket, expected) in [
            (format!("[\n    {o},\n    {o}]"), Some("    ")),
            (format!("[{o},\n{o},\n{o}]"), Some("")),
            (format!("[{o},\r\n\t{o}]"), Some("\t")),
            (format!("[{o}, {o}]"), None),
            (format!("[\n{o}\n]"), None),
            ("[\n]".to_string(), None),
        ] {
            std::fs::write(&path, &after_bracket).expect("write");
            let mut w = Window {
                file: std::fs::File::open(&path).expect("open"),
                buf: String::new(),
                raw: Vec::new(),
                pos: 0,
                eof: false,
                failed: false,
                chunk: 3,
            };
            assert_eq!(w.peek(), Some(b'['));
            w.pos += 1;
            let at = w.pos;
            assert_eq!(w.item_indent().as_deref(), expected, "{after_bracket:?}");
            // Nothing was taken: the objects are read from the start.
            assert_eq!(
                w.peek(),
                Some(if after_bracket.starts_with("[{") {
                    b'{'
                } else {
                    b'\n'
                })
            );
            assert!(w.pos <= at);
        }
        std::fs::remove_file(&path).ok();
    }

    #[test]
    fn what_is_not_a_list_or_a_snapshot_is_left_to_the_whole_text() {
        let steps = r#"{"name":"t","objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"x"}}],"steps":[{"at":"1s","delete":"configmap/c"}]}"#;
        let unknown = SNAPSHOT.replace(r#""description""#, r#""descripton""#);
        let no_name = LIST.replace(r#""name":"web-1","#, "");
        let not_an_object = LIST.replace(
            r#" ,
  {"apiVersion":"v1","kind":"Event""#,
            r#",3,{"apiVersion":"v1","kind":"Event""#,
        );
        let cut = &LIST[..LIST.len() / 2];
        let trailing = format!("{LIST} x");
        // Commas as JSON does not have them between the objects.
        let two_commas = LIST.replace("} ,\n", "},,\n");
        let leading = LIST.replace("\"items\":[\n", "\"items\":[,\n");
        let last = LIST.replace("\"]}\"}\n]", "\"]}\"},\n]");
        let none = LIST.replace("} ,\n", "} \n");
        for (name, text) in [
            ("steps.json", steps),
            ("unknown.json", unknown.as_str()),
            ("no-name.json", no_name.as_str()),
            ("not-an-object.json", not_an_object.as_str()),
            ("cut.json", cut),
            ("trailing.json", trailing.as_str()),
            ("two-commas.json", two_commas.as_str()),
            ("leading-comma.json", leading.as_str()),
            ("last-comma.json", last.as_str()),
            ("no-comma.json", none.as_str()),
            ("yaml.yaml", "name: t\nobjects: []\n"),
            ("blank.json", "  \n"),
            ("nothing.json", ""),
        ] {
            for chunk in [1, 7, CHUNK] {
                assert!(
                    both(name, text, chunk).0.is_none(),
                    "{name} in pieces of {chunk}"
                );
            }
        }
        // Text that is not UTF-8: a byte that starts no character inside
        // an object, and a character cut by the end of the file.
        let inside = LIST.replace("Scaled", "Sc\u{1}led").into_bytes();
        let inside: Vec<u8> = inside
            .into_iter()
            .map(|b| if b == 1 { 0xff } else { b })
            .collect();
        let mut cut_char = LIST.as_bytes().to_vec();
        cut_char.push(0xc3);
        let dir = std::env::temp_dir().join(format!("ownerscope-stream-u-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        for bytes in [inside, cut_char] {
            let path = dir.join("bad.json");
            std::fs::write(&path, &bytes).expect("write");
            for chunk in [1, 7, CHUNK] {
                assert!(streamed("bad.json", &path, bytes.len() as u64, chunk).is_none());
            }
            std::fs::remove_file(&path).ok();
        }
        // And the whole text read again says where the problem is.
        let dir = std::env::temp_dir().join(format!("ownerscope-stream-l-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("no-name.json");
        std::fs::write(&path, &no_name).expect("write");
        let e = load(&path.to_string_lossy()).expect_err("no name");
        std::fs::remove_file(&path).ok();
        assert_eq!((e.line, e.field.as_str()), (3, "items[1].metadata.name"));
    }

    #[test]
    fn every_field_a_snapshot_has_is_read_in_pieces() {
        for f in Shape::FIELDS {
            let text = format!("{{\"{f}\": null}}");
            assert!(
                serde_json::from_str::<Shape>(&text).is_ok(),
                "{f} is a field of the top level"
            );
        }
    }
}
