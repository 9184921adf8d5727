//! `Status` objects: how the API server answers an error (and a delete that
//! removed the object), with the reason each code has upstream
//! (apimachinery `pkg/api/errors`).

use serde_json::{Value, json};

use super::Response;

/// The `reason` apimachinery gives a code.
#[must_use]
pub fn reason(code: u16) -> &'static str {
    match code {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        406 => "NotAcceptable",
        409 => "Conflict",
        410 => "Expired",
        413 => "RequestEntityTooLarge",
        415 => "UnsupportedMediaType",
        422 => "Invalid",
        429 => "TooManyRequests",
        500 => "InternalError",
        503 => "ServiceUnavailable",
        _ => "Unknown",
    }
}

/// A `Status` value for an error.
#[must_use]
pub fn status_value(code: u16, message: &str, details: Option<Value>) -> Value {
    // A 409 for an existing object is `AlreadyExists` upstream.
    let reason = if code == 409 && message.ends_with("already exists") {
        "AlreadyExists"
    } else {
        reason(code)
    };
    let mut v = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    });
    if let Some(d) = details {
        v["details"] = d;
    }
    v
}

/// An error answer.
#[must_use]
pub fn error(code: u16, message: &str) -> Response {
    Response::json(code, &status_value(code, message, None))
}

/// An error about one object: `details` name it, as upstream does.
#[must_use]
pub fn object_error(code: u16, message: &str, name: &str, group: &str, plural: &str) -> Response {
    let details = json!({"name": name, "group": group, "kind": plural});
    Response::json(code, &status_value(code, message, Some(details)))
}

/// A 422 from the simulator (`ConfigMap "x" is invalid: field: message`,
/// several as `[a, b]`) with the `details.causes` a real server gives, which
/// kubectl prints (`The ConfigMap "x" is invalid: metadata.finalizers:
/// Forbidden: ...`).
#[must_use]
pub fn invalid(message: &str, name: &str, group: &str) -> Response {
    let mut details = json!({"name": name, "group": group});
    if let Some((subject, rest)) = message.split_once(" is invalid: ") {
        let kind = subject.split_once(" \"").map_or(subject, |(k, _)| k);
        details["kind"] = json!(kind.split('.').next().unwrap_or(kind));
        let list = rest
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .map_or_else(|| vec![rest], |inner| inner.split(", ").collect());
        let causes: Vec<Value> = list
            .iter()
            .map(|c| {
                let (field, msg) = c.split_once(": ").unwrap_or(("", c));
                let reason = match msg.split(':').next().unwrap_or_default() {
                    "Forbidden" => "FieldValueForbidden",
                    "Required value" => "FieldValueRequired",
                    "Duplicate value" => "FieldValueDuplicate",
                    "Unsupported value" => "FieldValueNotSupported",
                    _ => "FieldValueInvalid",
                };
                json!({"reason": reason, "message": msg, "field": field})
            })
            .collect();
        details["causes"] = json!(causes);
    }
    Response::json(422, &status_value(422, message, Some(details)))
}

/// A JSON patch whose operation failed (a `test` that does not hold), as
/// the API server answers it (`NewGenericServerResponse` with 422).
#[must_use]
pub fn rejected(cause: &str) -> Response {
    let details = json!({"causes": [{"reason": "UnexpectedServerResponse", "message": cause}]});
    Response::json(
        422,
        &status_value(
            422,
            "the server rejected our request due to an error in our request",
            Some(details),
        ),
    )
}

/// The `Status` a DELETE answers when the object is gone.
#[must_use]
pub fn deleted(name: &str, group: &str, plural: &str, uid: &str) -> Value {
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {"name": name, "group": group, "kind": plural, "uid": uid},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_the_reason_of_their_code() {
        let r = error(404, "pods \"x\" not found");
        assert_eq!(r.code, 404);
        let v = r.value();
        assert_eq!(v["reason"], "NotFound");
        assert_eq!(v["status"], "Failure");
        assert_eq!(
            status_value(409, "configmaps \"a\" already exists", None)["reason"],
            "AlreadyExists"
        );
        assert_eq!(status_value(410, "too old", None)["reason"], "Expired");
        let v = invalid(
            "ConfigMap \"x\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted",
            "x",
            "",
        )
        .value();
        assert_eq!(v["details"]["kind"], "ConfigMap");
        assert_eq!(v["details"]["causes"][0]["field"], "metadata.finalizers");
        assert_eq!(v["details"]["causes"][0]["reason"], "FieldValueForbidden");
    }
}
