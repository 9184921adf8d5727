//! Reading a scenario: a file or a bundled name, YAML or JSON, a scenario
//! document, a plain manifest or a `kubectl get -o json` List; each error
//! located at its file, line and field.

use super::*;

/// The largest file read (4 GiB).
pub(super) const MAX_FILE_BYTES: u64 = 4 << 30;

/// Loads a bundled scenario by name, or else a file by path.
///
/// # Errors
/// Unknown name and no such file, unreadable file, or a load error.
pub fn load(name_or_path: &str) -> Result<Scenario, LoadError> {
    if BUNDLED.iter().any(|(n, _)| *n == name_or_path) {
        return bundled(name_or_path);
    }
    let path = Path::new(name_or_path);
    if !path.exists() {
        let names: Vec<&str> = BUNDLED.iter().map(|(n, _)| *n).collect();
        return Err(LoadError {
            file: name_or_path.to_string(),
            line: 0,
            field: String::new(),
            message: format!(
                "no such file, and no bundled scenario of that name (bundled: {})",
                names.join(", ")
            ),
        });
    }
    let refuse = |message: String| LoadError {
        file: name_or_path.to_string(),
        line: 0,
        field: String::new(),
        message,
    };
    // A device (/dev/zero), a FIFO or a directory would be read forever or
    // not at all: only regular files, of a size that fits in memory.
    let meta = std::fs::metadata(path).map_err(|e| refuse(e.to_string()))?;
    if !meta.is_file() {
        return Err(refuse(
            "not a regular file (a directory, a device or a pipe): give a scenario file, a manifest or a snapshot".into(),
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(refuse(format!(
            "{} bytes: larger than the {} bytes ownerscope reads",
            meta.len(),
            MAX_FILE_BYTES
        )));
    }
    if let Some(s) = super::stream::parse_json_streamed(name_or_path, path, meta.len()) {
        return Ok(s);
    }
    // Read again whole, for YAML and for every error.
    crate::sim::progress::again();
    let bytes = read_counted(path, meta.len()).map_err(|e| refuse(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..valid]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        LoadError {
            file: name_or_path.to_string(),
            line,
            field: String::new(),
            message: format!("invalid UTF-8 at byte {valid}"),
        }
    })?;
    if text.trim().is_empty() {
        return Err(refuse("the file is empty".into()));
    }
    parse(name_or_path, &text)
}

/// Reads a file in chunks, counting them for a loading screen.
pub(super) fn read_counted(path: &Path, size: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    crate::sim::progress::file_size(size);
    let mut file = std::fs::File::open(path)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    loop {
        let n = (&mut file).take(8 << 20).read_to_end(&mut bytes)?;
        if n == 0 {
            return Ok(bytes);
        }
        crate::sim::progress::read(n as u64);
    }
}

/// `deserialize_with` for a list of objects, counting each as it is read.
pub(super) fn counted<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<Arc<Object>>>, D::Error> {
    struct Counted;
    impl<'de> serde::de::Visitor<'de> for Counted {
        type Value = Option<Vec<Arc<Object>>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of objects")
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(o) = seq.next_element_seed(crate::model::object::Shared)? {
                checked(&o)?;
                // Read into the allocation the store keeps (a list of
                // objects held by value was copied as it grew, then each
                // object again into the store).
                out.push(o);
            }
            Ok(Some(out))
        }
    }
    d.deserialize_any(Counted)
}

pub(super) fn is_list(v: &Value) -> bool {
    v.get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k.ends_with("List"))
        && v.get("items").is_some_and(Value::is_array)
}

/// Parses scenario text; `file` names it in errors.
///
/// # Errors
/// YAML syntax, unknown or mistyped fields, owner references that cannot be
/// resolved, steps with no or several actions.
pub fn parse(file: &str, text: &str) -> Result<Scenario, LoadError> {
    if let Some(s) = parse_json_fast(file, text) {
        return Ok(s);
    }
    if let Some(s) = parse_yaml_fast(file, text) {
        return Ok(s);
    }
    parse_located(file, text)
}

/// YAML read without the line table: a path string and a table entry for
/// every node cost more than the parse itself. `None` for a scenario with
/// steps (a step keeps its line, and there are few of them) and for
/// anything wrong, which [`parse_located`] then reads again to name the
/// line and field.
pub(super) fn parse_yaml_fast(file: &str, text: &str) -> Option<Scenario> {
    let docs = yaml::parse_fast(text).ok()?;
    let has_steps = docs
        .iter()
        .any(|d| d.value.get("steps").is_some_and(|s| !s.is_null()));
    if has_steps {
        return None;
    }
    let mut s = parse_docs(file, &docs).ok()?;
    // Found again, only when an error needs one (Scenario::object_line).
    s.object_lines = Vec::new();
    Some(s)
}

/// A `kubectl get -o json` List or a snapshot (a scenario in JSON with no
/// steps), read straight into objects with serde_json: no YAML events, no
/// line table, no intermediate values. `None` for anything else and for
/// anything wrong, so that [`parse_located`] reads it again and names the
/// line and field of the problem. Lines are only looked for on an error.
pub(super) fn parse_json_fast(file: &str, text: &str) -> Option<Scenario> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let shape: Shape = serde_json::from_str(text).ok()?;
    of_shape(file, shape)
}

/// The top level of a JSON List or snapshot, as [`parse_json_fast`] and
/// [`super::stream`] read it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct Shape {
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    metadata: Option<serde::de::IgnoredAny>,
    #[serde(default, deserialize_with = "counted")]
    pub(super) items: Option<Vec<Arc<Object>>>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default, deserialize_with = "counted")]
    pub(super) objects: Option<Vec<Arc<Object>>>,
    #[serde(default)]
    kinds: Option<Vec<KindDecl>>,
    #[serde(default)]
    partial: Option<Partial>,
    #[serde(default)]
    taken_at: Option<jiff::Timestamp>,
    #[serde(default)]
    settings: Option<Settings>,
}

impl Shape {
    /// The top-level fields of a [`Shape`], as written in the file.
    pub(super) const FIELDS: [&'static str; 11] = [
        "apiVersion",
        "kind",
        "metadata",
        "items",
        "name",
        "description",
        "objects",
        "kinds",
        "partial",
        "takenAt",
        "settings",
    ];
}

/// One object of a List's `items` or a snapshot's `objects`, checked as
/// it is read: the first problem ends the fast read, and the located one
/// finds its line and field.
pub(super) fn checked<E: serde::de::Error>(o: &Object) -> Result<(), E> {
    let required_missing =
        o.kind.is_empty() || o.api_version.is_empty() || o.metadata.name.is_empty();
    if required_missing || check_object(o).is_some() {
        return Err(E::custom("an object to locate"));
    }
    crate::sim::progress::parsed_one();
    Ok(())
}

/// The scenario a [`Shape`] read describes; `None` for anything
/// [`parse_located`] should read again.
pub(super) fn of_shape(file: &str, shape: Shape) -> Option<Scenario> {
    let stem = Path::new(file.trim_start_matches("bundled:"))
        .file_stem()
        .map_or_else(|| file.to_string(), |s| s.to_string_lossy().to_string());
    let (name, description, kinds, objects, partial, taken_at, settings) = match shape {
        Shape {
            kind: Some(k),
            items: Some(items),
            objects: None,
            kinds: None,
            name: None,
            partial: None,
            taken_at: None,
            settings: None,
            ..
        } if k.ends_with("List") => (
            stem,
            format!("objects from {file}"),
            Vec::new(),
            items,
            Partial::default(),
            None,
            Settings::default(),
        ),
        Shape {
            api_version: None,
            kind: None,
            metadata: None,
            items: None,
            name: Some(name),
            description,
            objects,
            kinds,
            partial,
            taken_at,
            settings,
        } => (
            name,
            description.unwrap_or_default(),
            kinds.unwrap_or_default(),
            objects.unwrap_or_default(),
            partial.unwrap_or_default(),
            Some(taken_at),
            settings.unwrap_or_default(),
        ),
        _ => return None,
    };
    // Checked where the located path names the field.
    if !settings
        .unavailable_apis
        .iter()
        .all(|gv| is_aggregated_group_version(gv))
    {
        return None;
    }
    let mut s = Scenario {
        name,
        description,
        source: file.to_string(),
        kinds: kinds.iter().map(kind_info).collect(),
        partial,
        object_lines: Vec::new(),
        objects,
        controllers: Vec::new(),
        steps: Vec::new(),
        settings,
    };
    finish_objects(&mut s, &|_, field| (0, field.to_string()), Checked::Yes).ok()?;
    match taken_at {
        // A List: its objects' own times.
        None => s.clock_of_recorded(),
        // A scenario document: a snapshot's time, or the usual start.
        Some(t) => s.settings.epoch = t,
    }
    Some(s)
}

/// Parses with a line table, for YAML and for every error.
pub(super) fn parse_located(file: &str, text: &str) -> Result<Scenario, LoadError> {
    let docs = yaml::parse(text).map_err(|l| LoadError::at(file, l))?;
    parse_docs(file, &docs)
}

pub(super) fn parse_docs(file: &str, docs: &[Document]) -> Result<Scenario, LoadError> {
    let stem = Path::new(file.trim_start_matches("bundled:"))
        .file_stem()
        .map_or_else(|| file.to_string(), |s| s.to_string_lossy().to_string());
    let is_scenario =
        docs.len() == 1 && docs[0].value.get("kind").is_none() && docs[0].value.is_object();
    if is_scenario {
        return parse_scenario(file, &docs[0]);
    }
    // Plain manifests, or Lists.
    let mut raw: Vec<(&Document, String, &Value)> = Vec::new();
    for d in docs {
        if is_list(&d.value) {
            if let Some(items) = d.value.get("items").and_then(Value::as_array) {
                for (i, item) in items.iter().enumerate() {
                    raw.push((d, format!("items[{i}]"), item));
                }
            }
        } else {
            raw.push((d, String::new(), &d.value));
        }
    }
    let mut objects = Vec::new();
    let mut lines = Vec::new();
    for (doc, path, v) in &raw {
        let obj = decode_object(file, doc, path, v)?;
        lines.push(doc.line_of(path));
        objects.push(Arc::new(obj));
    }
    let mut s = Scenario {
        name: stem,
        description: format!("objects from {file}"),
        source: file.to_string(),
        kinds: Vec::new(),
        partial: Partial::default(),
        objects,
        object_lines: lines,
        controllers: Vec::new(),
        steps: Vec::new(),
        settings: Settings::default(),
    };
    let paths: Vec<(&Document, String)> = raw.iter().map(|(d, p, _)| (*d, p.clone())).collect();
    finish_objects(&mut s, &located(&paths), Checked::No)?;
    s.clock_of_recorded();
    Ok(s)
}

pub(super) fn decode_object(
    file: &str,
    doc: &Document,
    path: &str,
    v: &Value,
) -> Result<Object, LoadError> {
    let obj: Object = doc.decode(path, v).map_err(|l| LoadError::at(file, l))?;
    crate::sim::progress::parsed_one();
    for (field, empty) in [
        ("kind", obj.kind.is_empty()),
        ("apiVersion", obj.api_version.is_empty()),
        ("metadata.name", obj.metadata.name.is_empty()),
    ] {
        if empty {
            let f = yaml::join_path(path, field);
            return Err(LoadError {
                file: file.to_string(),
                line: doc.line_of(&f),
                field: f,
                message: "is required".into(),
            });
        }
    }
    Ok(obj)
}

pub(super) fn parse_scenario(file: &str, doc: &Document) -> Result<Scenario, LoadError> {
    let header: ScenarioHeader = doc
        .decode("", &doc.value)
        .map_err(|l| LoadError::at(file, l))?;
    let mut objects = Vec::new();
    let mut lines = Vec::new();
    let mut paths = Vec::new();
    let listed = doc.value.get("objects").and_then(Value::as_array);
    if header.objects.is_some() && listed.is_none() && !doc.value["objects"].is_null() {
        return Err(LoadError {
            file: file.to_string(),
            line: doc.line_of("objects"),
            field: "objects".into(),
            message: "expected a list of objects".into(),
        });
    }
    for (i, v) in listed.into_iter().flatten().enumerate() {
        let path = format!("objects[{i}]");
        objects.push(Arc::new(decode_object(file, doc, &path, v)?));
        lines.push(doc.line_of(&path));
        paths.push((doc, path));
    }
    let kinds = header.kinds.iter().map(kind_info).collect();
    let mut steps = Vec::new();
    for (i, v) in header.steps.iter().enumerate() {
        let path = format!("steps[{i}]");
        let decl: StepDecl = doc.decode(&path, v).map_err(|l| LoadError::at(file, l))?;
        let line = doc.line_of(&path);
        steps.push(step_from(file, doc, &path, line, decl)?);
    }
    steps.sort_by_key(|s| s.at);
    let apis = header
        .settings
        .unavailable_apis
        .iter()
        .enumerate()
        .map(|(i, gv)| (format!("settings.unavailableApis[{i}]"), gv.as_str()));
    for (field, gv) in apis {
        check_group_version(file, doc, field, gv)?;
    }
    let mut s = Scenario {
        name: header.name,
        description: header.description,
        source: file.to_string(),
        kinds,
        partial: header.partial,
        objects,
        object_lines: lines,
        controllers: header.controllers,
        steps,
        settings: Settings {
            epoch: header.taken_at,
            ..header.settings
        },
    };
    finish_objects(&mut s, &located(&paths), Checked::No)?;
    Ok(s)
}

/// `metrics.k8s.io/v1beta1`: a named group and a version (the core group
/// is never an aggregated API).
pub(super) fn is_aggregated_group_version(gv: &str) -> bool {
    gv.split_once('/').is_some_and(|(g, v)| {
        !g.is_empty()
            && g.contains('.')
            && !v.is_empty()
            && g.chars()
                .chain(v.chars())
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
    })
}

/// An error naming the field unless `gv` is a group version an
/// aggregated API could have.
pub(super) fn check_group_version(
    file: &str,
    doc: &Document,
    field: String,
    gv: &str,
) -> Result<(), LoadError> {
    if is_aggregated_group_version(gv) {
        return Ok(());
    }
    Err(LoadError {
        file: file.to_string(),
        line: doc.line_of(&field),
        field,
        // Debug-quoted: escapes in a hostile file stay visible.
        message: format!(
            "{gv:?} is not a group/version of an API group (such as metrics.k8s.io/v1beta1)"
        ),
    })
}

pub(super) fn kind_info(k: &KindDecl) -> KindInfo {
    KindInfo {
        group: group_of(&k.api_version).to_string(),
        kind: k.kind.clone(),
        version: crate::model::version_of(&k.api_version).to_string(),
        plural: k
            .plural
            .clone()
            .unwrap_or_else(|| format!("{}s", k.kind.to_ascii_lowercase())),
        namespaced: k.namespaced,
        short_names: Vec::new(),
        categories: Vec::new(),
        default_policy: crate::model::DefaultPolicy::Policy(crate::model::Policy::Background),
        served_versions: k.served_versions.clone(),
    }
}

/// Where a field of object `i` is: (line, full field path).
pub(super) type Locate<'a> = dyn Fn(usize, &str) -> (usize, String) + 'a;

/// Locates fields through the documents' line tables.
pub(super) fn located<'a>(
    paths: &'a [(&'a Document, String)],
) -> impl Fn(usize, &str) -> (usize, String) + 'a {
    move |i, suffix| {
        let (doc, base) = &paths[i];
        let field = yaml::join_path(base, suffix);
        (doc.line_of(&field), field)
    }
}
