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
    }
}
