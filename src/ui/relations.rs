//! The details' labels, annotations and selector relations: which pods the
//! selected object selects, or what selects the selected pod, adoption and
//! what brings a pod back. Drawn with `≈` and their own colour, never with
//! the `→` of an owner reference: selecting is not owning.

use ratatui::text::{Line, Span};

use super::theme;
use crate::app::App;
use crate::model::kept::DROPPED_ANNOTATIONS;
use crate::model::relations::{self, PodSelector};
use crate::model::wording::count;
use crate::model::{ObjRef, Object};

/// The mark of a selector relation.
pub const SELECTS: &str = "≈ ";
/// Selected pods listed by name; the rest are counted.
const LIST_UP_TO: usize = 8;
/// An annotation value longer than this is cut here (`y` shows it whole).
const VALUE_UP_TO: usize = 300;

fn heading(text: String) -> Line<'static> {
    Line::from(Span::styled(text, theme::HEADING))
}

fn note(text: String) -> Line<'static> {
    Line::from(Span::styled(format!("  {text}"), theme::DIM))
}

fn name(r: &ObjRef) -> String {
    format!("{}/{}", r.kind, r.name)
}

/// `Labels (2)` and `key=value` lines.
#[must_use]
pub fn label_lines(obj: &Object) -> Vec<Line<'static>> {
    let labels = &obj.metadata.labels;
    if labels.is_empty() {
        return vec![heading("Labels: none".into())];
    }
    let mut out = vec![heading(format!("Labels ({})", labels.len()))];
    for (k, v) in labels {
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(k.clone(), theme::KEY),
            Span::raw(format!("={v}")),
        ]));
    }
    out
}

/// `Annotations (1)` and `key: value` lines; long values cut, the value
/// of `kubectl.kubernetes.io/last-applied-configuration` never shown (a
/// whole manifest, a Secret's data included; it is not even kept).
#[must_use]
pub fn annotation_lines(obj: &Object) -> Vec<Line<'static>> {
    let notes = &obj.metadata.annotations;
    if notes.is_empty() {
        return vec![heading("Annotations: none".into())];
    }
    let mut out = vec![heading(format!("Annotations ({})", notes.len()))];
    for (k, v) in notes {
        let value = if DROPPED_ANNOTATIONS.contains(&k.as_str()) {
            Span::styled("(value not shown)", theme::DIM)
        } else if v.chars().count() > VALUE_UP_TO {
            let head: String = v.chars().take(VALUE_UP_TO).collect();
            Span::raw(format!(
                "{head}… ({} more characters; y shows it whole)",
                v.chars().count() - VALUE_UP_TO
            ))
        } else {
            Span::raw(v.clone())
        };
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(k.clone(), theme::KEY),
            Span::raw(": "),
            value,
        ]));
    }
    out
}

/// What the object selects by labels, or what selects it.
#[must_use]
pub fn selector_lines(app: &App, obj: &Object) -> Vec<Line<'static>> {
    let Some(r) = app.relations() else {
        // A pod, or what may select pods: its relations are coming.
        return if app.relations_pending() && relations::takes_part(obj) {
            vec![note(
                "selector relations: the objects' labels are still being indexed".into(),
            )]
        } else {
            Vec::new()
        };
    };
    let mut out = Vec::new();
    if r.selector_unknown {
        out.push(heading("Selects pods: not known here".into()));
        // A live cluster is watched for metadata only; a scenario or a
        // file may simply not give the spec.
        let why = if app.is_simulator() {
            "its selector would be in its spec, which the scenario or file does not give"
        } else {
            "its selector is in its spec, which this view does not keep (a live cluster is watched for metadata only)"
        };
        out.push(note(why.into()));
    }
    if let Some(pods) = &r.selects {
        let sel = match relations::pod_selector(obj) {
            PodSelector::Known(s) => s.to_string(),
            _ => String::new(),
        };
        out.push(heading(format!(
            "Selects {} by labels ({sel}); not ownership",
            count(pods.len(), "pod")
        )));
        for p in pods.iter().take(LIST_UP_TO) {
            out.push(Line::from(vec![
                Span::styled(format!("{SELECTS}{}", p.kind), theme::SELECTOR),
                Span::styled(format!("/{}", p.name), theme::SELECTOR),
            ]));
        }
        if pods.len() > LIST_UP_TO {
            out.push(note(format!("… and {} more", pods.len() - LIST_UP_TO)));
        }
        if obj.kind == "Service" {
            out.push(note(
                "a Service owns none of the pods it selects: deleting it deletes no pod".into(),
            ));
        }
        for p in &r.adopts {
            out.push(Line::from(Span::styled(
                format!(
                    "{SELECTS}{} has no controller: this {} adopts it (a {} adopts a pod it selects that has no controller, and becomes its controller owner)",
                    name(p),
                    obj.kind,
                    obj.kind
                ),
                theme::WARN,
            )));
        }
        for p in &r.releases {
            out.push(Line::from(Span::styled(
                format!(
                    "{SELECTS}{} is controlled by it but no longer selected: its controller releases it (removes its owner reference)",
                    name(p)
                ),
                theme::WARN,
            )));
        }
    }
    if obj.is_pod() {
        if r.selected_by.is_empty() {
            out.push(heading(
                "Selected by: nothing (no Service or workload here selects its labels)".into(),
            ));
        } else {
            let by: Vec<String> = r.selected_by.iter().map(name).collect();
            out.push(heading(format!(
                "Selected by (labels, not ownership): {}",
                by.join(", ")
            )));
        }
        if r.unknown_selectors > 0 {
            let verb = if r.unknown_selectors == 1 {
                "selects"
            } else {
                "select"
            };
            out.push(note(format!(
                "{} here {verb} pods by a selector this view does not know",
                count(r.unknown_selectors, "other object")
            )));
        }
        if let Some(a) = &r.adopted_by {
            out.push(Line::from(Span::styled(
                format!(
                    "{SELECTS}no controller: {} selects it and adopts it (a {} adopts a pod it selects that has no controller)",
                    name(a),
                    a.kind
                ),
                theme::WARN,
            )));
        }
        if let Some(back) = &r.comes_back {
            out.push(note(format!("deleted alone, it comes back: {back}")));
        }
    }
    out
}
