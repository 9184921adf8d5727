//! Which failed requests are sent again: client-go's rule, not kube's.
//!
//! kube 5's client retries every 429, 503 and 504 up to 15 times with a
//! backoff that grows to minutes. An aggregated API whose Service has no
//! endpoints (metrics-server down: STUCK-CAUSES C4, GC-SEMANTICS R80)
//! answers its discovery with 503 at once, and that retrying made every
//! live command wait for `--request-timeout` and fail on exactly the
//! clusters where namespaces get stuck. kubectl (client-go's `checkWait`
//! in `rest/request.go`) retries a 429 or a 5xx only when the server asks
//! for it with `Retry-After` (API Priority and Fairness does, an aggregated
//! API's 503 does not), waiting what it says, at most 10 times: this layer
//! does the same.

use std::time::Duration;

use http::{Request, Response};
use kube::client::Body;
use tower::BoxError;
use tower::retry::Policy;

/// client-go's `maxRetries` for a request the server asked to retry.
const MAX_RETRIES: u32 = 10;
/// The longest wait a `Retry-After` gets (a larger one is clamped).
const MAX_WAIT: Duration = Duration::from_secs(10);

/// The policy: one per request (tower clones it).
#[derive(Clone, Debug, Default)]
pub struct RetryAfter {
    attempts: u32,
}

/// The wait a response asks for: a 429 or a 5xx with `Retry-After:
/// <seconds>`; `None` for everything else.
#[must_use]
pub fn asked_wait<B>(response: &Response<B>) -> Option<Duration> {
    let status = response.status();
    if status.as_u16() != 429 && !status.is_server_error() {
        return None;
    }
    let secs: u64 = response
        .headers()
        .get(http::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(secs).min(MAX_WAIT))
}

impl<Res> Policy<Request<Body>, Response<Res>, BoxError> for RetryAfter {
    type Future = tokio::time::Sleep;

    fn retry(
        &mut self,
        _req: &mut Request<Body>,
        result: &mut Result<Response<Res>, BoxError>,
    ) -> Option<Self::Future> {
        let wait = asked_wait(result.as_ref().ok()?)?;
        if self.attempts >= MAX_RETRIES {
            return None;
        }
        self.attempts += 1;
        Some(tokio::time::sleep(wait))
    }

    fn clone_request(&mut self, req: &Request<Body>) -> Option<Request<Body>> {
        copy_request(req)
    }
}

/// A request sent again: only a body kube holds whole can be.
fn copy_request(req: &Request<Body>) -> Option<Request<Body>> {
    let body = req.body().try_clone()?;
    let mut copy = Request::builder()
        .method(req.method().clone())
        .uri(req.uri().clone())
        .version(req.version())
        .body(body)
        .ok()?;
    *copy.headers_mut() = req.headers().clone();
    *copy.extensions_mut() = req.extensions().clone();
    Some(copy)
}

/// The layer over kube's client stack. tower's `Retry` needs a service it
/// can clone, which kube's boxed stack is not; a `Buffer` would make it
/// one, but ties the client to the runtime it was built on (a client used
/// from another runtime then fails with "buffer's worker closed"). The
/// stack is shared behind a lock held only to hand a request over.
#[derive(Clone, Copy, Debug, Default)]
pub struct RetryAfterLayer;

impl<S> tower::Layer<S> for RetryAfterLayer {
    type Service = RetryAfterService<S>;

    fn layer(&self, inner: S) -> RetryAfterService<S> {
        RetryAfterService {
            inner: std::sync::Arc::new(tokio::sync::Mutex::new(inner)),
        }
    }
}

/// See [`RetryAfterLayer`].
#[derive(Debug)]
pub struct RetryAfterService<S> {
    inner: std::sync::Arc<tokio::sync::Mutex<S>>,
}

impl<S> Clone for RetryAfterService<S> {
    fn clone(&self) -> Self {
        RetryAfterService {
            inner: std::sync::Arc::clone(&self.inner),
        }
    }
}

type Boxed<R> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<R, BoxError>> + Send>>;

impl<S, Res> tower::Service<Request<Body>> for RetryAfterService<S>
where
    S: tower::Service<Request<Body>, Response = Response<Res>> + Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
    Res: Send + 'static,
{
    type Response = Response<Res>;
    type Error = BoxError;
    type Future = Boxed<Response<Res>>;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), BoxError>> {
        // Readiness is asked of the stack as each request is handed over.
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<Body>) -> Self::Future {
        let inner = std::sync::Arc::clone(&self.inner);
        Box::pin(async move {
            let mut policy = RetryAfter::default();
            let mut req = req;
            loop {
                let again = copy_request(&req);
                let sent = {
                    let mut stack = inner.lock().await;
                    std::future::poll_fn(|cx| stack.poll_ready(cx))
                        .await
                        .map_err(Into::into)?;
                    stack.call(req)
                };
                let mut result = sent.await.map_err(Into::into);
                let (Some(next), Some(wait)) = (
                    again,
                    policy.retry(&mut Request::new(Body::empty()), &mut result),
                ) else {
                    return result;
                };
                wait.await;
                req = next;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, retry_after: Option<&str>) -> Response<()> {
        let mut b = Response::builder().status(status);
        if let Some(r) = retry_after {
            b = b.header("Retry-After", r);
        }
        b.body(()).expect("response")
    }

    /// The aggregator's 503 for an APIService with no endpoints carries no
    /// Retry-After: it is an answer, not a request to wait.
    #[test]
    fn only_a_server_that_asks_is_asked_again() {
        assert_eq!(asked_wait(&answer(503, None)), None);
        assert_eq!(asked_wait(&answer(504, None)), None);
        assert_eq!(asked_wait(&answer(429, None)), None);
        assert_eq!(
            asked_wait(&answer(429, Some("1"))),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            asked_wait(&answer(503, Some("3600"))),
            Some(MAX_WAIT),
            "clamped"
        );
        assert_eq!(asked_wait(&answer(404, Some("1"))), None);
        assert_eq!(asked_wait(&answer(500, Some("soon"))), None);
    }

    #[tokio::test]
    async fn at_most_ten_times() {
        let mut p = RetryAfter::default();
        let mut req = Request::new(Body::empty());
        let mut n = 0;
        loop {
            let mut res: Result<Response<()>, BoxError> = Ok(answer(429, Some("0")));
            match p.retry(&mut req, &mut res) {
                Some(_) => n += 1,
                None => break,
            }
        }
        assert_eq!(n, MAX_RETRIES);
    }
}
