use super::*;

fn found(body: &str) -> Vec<(String, usize)> {
    repeats(body.as_bytes())
        .into_iter()
        .map(|r| (go_path(&r.path), r.offset))
        .collect()
}

#[test]
fn a_body_without_a_repeat_has_none() {
    let body = r#"{"a": {"b": [1, {"c": "x"}, {"c": "y"}]}, "d": {"c": 1}, "c": [{}]}"#;
    assert!(found(body).is_empty());
}

#[test]
fn each_repeat_is_named_by_its_path_in_the_body_s_order() {
    let body = r#"{"metadata": {"name": "a", "labels": {"app": "x", "app": "y"}, "name": "b"},
        "spec": {"template": {"spec": {"containers": [{"name": "c"}, {"name": "c", "image": "i", "name": "d"}]}}},
        "kind": "A", "kind": "A", "kind": "A"}"#;
    let paths: Vec<String> = found(body).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        paths,
        [
            "metadata.labels.app",
            "metadata.name",
            "spec.template.spec.containers[1].name",
            "kind",
            "kind",
        ]
    );
}

#[test]
fn the_offset_is_the_repeat_s() {
    let body = r#"{"a": 1, "a": 2}"#;
    assert_eq!(found(body), [("a".to_string(), 9)]);
}

#[test]
fn keys_are_compared_unescaped_and_strings_skipped_whole() {
    let body = r#"{"a": "}\"{,", "\u0061": 2, "q\"k": 1, "q\"k": 2}"#;
    let paths: Vec<String> = found(body).into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["a", "q\"k"]);
}

#[test]
fn a_json_patch_operation_is_named_from_its_index() {
    let body = r#"[{"op": "add", "path": "/a", "path": "/b", "value": {"x": 1, "x": 2}}]"#;
    let paths: Vec<String> = found(body).into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["[0].path", "[0].value.x"]);
}

#[test]
fn an_object_with_many_keys_is_checked_as_one_with_few() {
    let mut body = String::from("{");
    for i in 0..40 {
        body.push_str(&format!("\"k{i}\": {i},"));
    }
    body.push_str("\"k3\": 0, \"k39\": 1}");
    let paths: Vec<String> = found(&body).into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["k3", "k39"]);
}

#[test]
fn first_offsets_finds_each_path_s_first_key() {
    let body = r#"{"spec": {"x": 1, "list": [{"y": 2}, {"y": 3}]}, "spec": {"x": 4}}"#;
    let paths = vec![
        vec![Step::Key("spec".into()), Step::Key("x".into())],
        vec![
            Step::Key("spec".into()),
            Step::Key("list".into()),
            Step::Index(1),
            Step::Key("y".into()),
        ],
        vec![Step::Key("nope".into())],
    ];
    assert_eq!(
        first_offsets(body.as_bytes(), &paths),
        [Some(10), Some(38), None]
    );
}

#[test]
fn what_is_not_json_ends_the_pass_without_a_panic() {
    for body in [
        "",
        "{",
        "{\"a\"",
        "{\"a\":",
        "[}",
        "{\"a\": 1 \"a\": 2}",
        "\"",
        "{\"a\\",
        "[[[[",
        "}",
    ] {
        let _ = repeats(body.as_bytes());
    }
    let deep = "[".repeat(100_000);
    assert!(repeats(deep.as_bytes()).is_empty());
}

#[test]
fn a_yaml_text_s_repeats_are_worded_as_yaml_v2_words_them() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\ndata:\n  x: \"1\"\n  \"x\": \"2\"\nlist:\n- {k: 1, k: 2}\n- k: 3\n1: a\n\"1\": b\n1: c\n";
    assert_eq!(
        yaml_repeats(text),
        [
            "line 5: key \"name\" already set in map",
            "line 8: key \"x\" already set in map",
            "line 10: key \"k\" already set in map",
            "line 14: key 1 already set in map",
        ]
    );
    // JSON is YAML: upstream's apply of a JSON body names its lines so.
    let json = "{\n  \"spec\": {\n    \"paused\": false,\n    \"paused\": true\n  }\n}";
    assert_eq!(
        yaml_repeats(json),
        ["line 4: key \"paused\" already set in map"]
    );
    assert!(yaml_repeats("a: [b, {c: d}]\ne: {c: d}\n").is_empty());
    // What does not parse ends the reading, without a panic.
    assert!(yaml_repeats("a: 1\n b: [\n").is_empty());
}
