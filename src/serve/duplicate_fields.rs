//! The keys a JSON body repeats within one object, found in a pass over
//! its bytes: a body read as a JSON tree keeps a repeated key's last value
//! and no trace of the others, where kube-apiserver's strict decoding
//! (sigs.k8s.io/json's `UnmarshalStrict`, Go's `encoding/json` with
//! `DisallowDuplicateFields`) names each repeat, `duplicate field
//! "spec.template.spec.containers[0].name"`. Its path: keys joined by `.`,
//! an array's item as `[i]`, a map's entry as `.key` as any field
//! (`metadata.labels.app`), as the decoder's field stack writes it
//! (`newFieldError`).
//!
//! Keys are compared unescaped (`"a"` and `"\u0061"` are one key, as Go
//! reads them). The pass allocates nothing for a body without a repeat but
//! a list of the keys of each open object; a repeat found costs its path.

use std::borrow::Cow;
use std::collections::HashSet;

/// A step of a path: an object's key or an array's index.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// A key repeated in an object of the body: its path (the key last) and
/// the offset of the repeat in the body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repeat {
    pub path: Vec<Step>,
    pub offset: usize,
}

/// Every repeat of a key in an object of `body`, in the body's order (a
/// key given three times is repeated twice). A body that is not JSON is
/// read as far as it goes.
#[must_use]
pub fn repeats(body: &[u8]) -> Vec<Repeat> {
    let mut out = Vec::new();
    Scan::new(body).run(&mut |path, offset, repeated| {
        if repeated {
            out.push(Repeat {
                path: steps(path),
                offset,
            });
        }
    });
    out
}

/// The offset in `body` of the first occurrence of each of `paths` (a
/// key's path, as [`Repeat::path`]), `None` for one not found.
#[must_use]
pub fn first_offsets(body: &[u8], paths: &[Vec<Step>]) -> Vec<Option<usize>> {
    let mut out = vec![None; paths.len()];
    let last_keys: HashSet<&[u8]> = paths
        .iter()
        .filter_map(|p| match p.last() {
            Some(Step::Key(k)) => Some(k.as_bytes()),
            _ => None,
        })
        .collect();
    Scan::new(body).run(&mut |path, offset, _| {
        // Only a key that ends one of the paths is worth its path.
        let Some(Raw::Key(k)) = path.last() else {
            return;
        };
        if !last_keys.contains(k.as_ref()) {
            return;
        }
        let here = steps(path);
        for (i, p) in paths.iter().enumerate() {
            if out[i].is_none() && *p == here {
                out[i] = Some(offset);
            }
        }
    });
    out
}

/// `path` as Go's strict decoding names it: `spec.containers[0].name`,
/// `[1].path` (a JSON patch's second operation).
#[must_use]
pub fn go_path(path: &[Step]) -> String {
    let mut s = String::new();
    for step in path {
        match step {
            Step::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Step::Index(i) => {
                s.push('[');
                s.push_str(&i.to_string());
                s.push(']');
            }
        }
    }
    s
}

/// Each key repeated in a mapping of a YAML (or JSON) `text`, as
/// yaml.v2's strict decoding words it (sigs.k8s.io/yaml's
/// `YAMLToJSONStrict`): `line 10: key "paused" already set in map`, the
/// line of the repeat, the key as Go's `%#v` prints it (`"a"`, `1`,
/// `true`); a key `1` and a key `"1"` are two keys. Read as far as `text`
/// parses.
#[must_use]
pub fn yaml_repeats(text: &str) -> Vec<String> {
    use saphyr_parser::{Event, Parser, ScalarStyle};
    /// An open mapping: the keys it has, and whether its next node is a
    /// key. A sequence holds no keys.
    struct Mapping {
        keys: HashSet<String>,
        key_next: bool,
    }
    let mut open: Vec<Option<Mapping>> = Vec::new();
    let mut out = Vec::new();
    let mut parser = Parser::new_from_str(text);
    // A node of the innermost collection is done: a mapping's next node
    // is a value after a key, a key after a value.
    let done = |open: &mut Vec<Option<Mapping>>| {
        if let Some(Some(m)) = open.last_mut() {
            m.key_next = !m.key_next;
        }
    };
    while let Some(Ok((event, span))) = parser.next_event() {
        match event {
            Event::Scalar(s, style, _, tag) => {
                if let Some(Some(m)) = open.last_mut()
                    && m.key_next
                {
                    let forced_str = tag.as_ref().is_some_and(|t| t.suffix == "str");
                    let key = if style == ScalarStyle::Plain && !forced_str {
                        crate::sim::yaml::resolve_plain(&s)
                    } else {
                        serde_json::Value::String(s.to_string())
                    };
                    if !m.keys.insert(key.to_string()) {
                        let shown = match &key {
                            serde_json::Value::String(k) => super::escalation::go_quote(k),
                            serde_json::Value::Null => "<nil>".to_string(),
                            other => other.to_string(),
                        };
                        out.push(format!(
                            "line {}: key {shown} already set in map",
                            span.start.line()
                        ));
                    }
                }
                done(&mut open);
            }
            Event::Alias(_) => done(&mut open),
            Event::MappingStart(..) => open.push(Some(Mapping {
                keys: HashSet::new(),
                key_next: true,
            })),
            Event::SequenceStart(..) => open.push(None),
            Event::MappingEnd | Event::SequenceEnd => {
                open.pop();
                done(&mut open);
            }
            _ => {}
        }
    }
    out
}

/// A step as the pass holds it: a key unescaped only when it had escapes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Raw<'a> {
    Key(Cow<'a, [u8]>),
    Index(usize),
}

fn steps(path: &[Raw<'_>]) -> Vec<Step> {
    path.iter()
        .map(|r| match r {
            Raw::Key(k) => Step::Key(String::from_utf8_lossy(k).into_owned()),
            Raw::Index(i) => Step::Index(*i),
        })
        .collect()
}

/// Deeper than this, the pass stops (serde_json refuses such a body
/// before, at 128).
const MAX_DEPTH: usize = 512;

/// An object's keys seen so far: a list while short, then a set.
const LINEAR: usize = 16;

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
    path: Vec<Raw<'a>>,
    depth: usize,
}

impl<'a> Scan<'a> {
    fn new(b: &'a [u8]) -> Self {
        Scan {
            b,
            i: 0,
            path: Vec::new(),
            depth: 0,
        }
    }

    /// Reads the body, telling `visit` of every key: its path (the key
    /// last), its offset and whether its object had it already.
    fn run(mut self, visit: &mut dyn FnMut(&[Raw<'a>], usize, bool)) {
        let _ = self.value(visit);
    }

    fn ws(&mut self) {
        while self
            .b
            .get(self.i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    fn value(&mut self, visit: &mut dyn FnMut(&[Raw<'a>], usize, bool)) -> Option<()> {
        self.ws();
        match *self.b.get(self.i)? {
            b'{' => self.object(visit),
            b'[' => self.array(visit),
            b'"' => self.string().map(|_| ()),
            _ => {
                let start = self.i;
                while self.b.get(self.i).is_some_and(|c| {
                    !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    self.i += 1;
                }
                // Not a value (`[}`): the pass stops.
                (self.i > start).then_some(())
            }
        }
    }

    /// The string at the cursor (past its closing quote): its text between
    /// the quotes, unescaped when it has escapes.
    fn string(&mut self) -> Option<Cow<'a, [u8]>> {
        let start = self.i;
        self.i += 1;
        let mut escaped = false;
        loop {
            match *self.b.get(self.i)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.i += 2;
                }
                _ => self.i += 1,
            }
        }
        self.i += 1;
        let b: &'a [u8] = self.b;
        if escaped {
            let s: String = serde_json::from_slice(&b[start..self.i]).ok()?;
            Some(Cow::Owned(s.into_bytes()))
        } else {
            Some(Cow::Borrowed(&b[start + 1..self.i - 1]))
        }
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// Past the separators before an open collection's next item:
    /// `Some(true)` at its end (`close`, read past), `Some(false)` at an
    /// item.
    fn next_item(&mut self, close: u8) -> Option<bool> {
        loop {
            self.ws();
            let c = *self.b.get(self.i)?;
            if c == close {
                self.i += 1;
                self.depth -= 1;
                return Some(true);
            }
            if c != b',' {
                return Some(false);
            }
            self.i += 1;
        }
    }

    fn object(&mut self, visit: &mut dyn FnMut(&[Raw<'a>], usize, bool)) -> Option<()> {
        self.enter()?;
        self.i += 1;
        let mut few: Vec<Cow<'a, [u8]>> = Vec::new();
        let mut many: Option<HashSet<Cow<'a, [u8]>>> = None;
        loop {
            if self.next_item(b'}')? {
                return Some(());
            }
            if self.b.get(self.i) != Some(&b'"') {
                return None;
            }
            let offset = self.i;
            let key = self.string()?;
            let repeated = match &mut many {
                Some(set) => !set.insert(key.clone()),
                None if few.contains(&key) => true,
                None => {
                    few.push(key.clone());
                    if few.len() > LINEAR {
                        many = Some(few.drain(..).collect());
                    }
                    false
                }
            };
            self.ws();
            if self.b.get(self.i) != Some(&b':') {
                return None;
            }
            self.i += 1;
            self.path.push(Raw::Key(key));
            visit(&self.path, offset, repeated);
            self.value(visit)?;
            self.path.pop();
        }
    }

    fn array(&mut self, visit: &mut dyn FnMut(&[Raw<'a>], usize, bool)) -> Option<()> {
        self.enter()?;
        self.i += 1;
        let mut n = 0;
        loop {
            if self.next_item(b']')? {
                return Some(());
            }
            self.path.push(Raw::Index(n));
            self.value(visit)?;
            self.path.pop();
            n += 1;
        }
    }
}

#[cfg(test)]
#[path = "duplicate_fields_tests.rs"]
mod tests;
