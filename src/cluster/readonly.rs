//! `--read-only` at the request level: a tower layer under kube's client
//! that refuses every request that is not a GET (or HEAD/OPTIONS) before it
//! reaches the network. Watches are GETs; deletes, patches, creates
//! (including access reviews) never leave the process.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use http::{Method, Request};
use tower::{BoxError, Layer, Service};

/// Whether a request with this method is let through in read-only mode.
#[must_use]
pub fn is_read(method: &Method) -> bool {
    method == Method::GET || method == Method::HEAD || method == Method::OPTIONS
}

/// The layer; clones share the refusal counter.
#[derive(Clone, Debug, Default)]
pub struct ReadOnlyLayer {
    refused: Arc<AtomicUsize>,
}

impl ReadOnlyLayer {
    /// How many requests were refused so far.
    #[must_use]
    pub fn refused(&self) -> usize {
        self.refused.load(Ordering::Relaxed)
    }
}

impl<S> Layer<S> for ReadOnlyLayer {
    type Service = ReadOnly<S>;

    fn layer(&self, inner: S) -> ReadOnly<S> {
        ReadOnly {
            inner,
            refused: Arc::clone(&self.refused),
        }
    }
}

/// The service the layer wraps around kube's HTTP stack.
#[derive(Clone, Debug)]
pub struct ReadOnly<S> {
    inner: S,
    refused: Arc<AtomicUsize>,
}

type Boxed<R> = Pin<Box<dyn Future<Output = Result<R, BoxError>> + Send>>;

impl<S, B, R> Service<Request<B>> for ReadOnly<S>
where
    S: Service<Request<B>, Response = R>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
    R: Send + 'static,
{
    type Response = R;
    type Error = BoxError;
    type Future = Boxed<R>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        if is_read(req.method()) {
            let fut = self.inner.call(req);
            Box::pin(async move { fut.await.map_err(Into::into) })
        } else {
            self.refused.fetch_add(1, Ordering::Relaxed);
            let msg = format!(
                "read-only mode: {} {} refused, nothing was sent",
                req.method(),
                req.uri().path()
            );
            Box::pin(async move { Err(msg.into()) })
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Records what reaches the network side.
    #[derive(Clone, Default)]
    struct Recorder(Arc<Mutex<Vec<String>>>);

    impl Service<Request<()>> for Recorder {
        type Response = u16;
        type Error = BoxError;
        type Future = Boxed<u16>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, req: Request<()>) -> Self::Future {
            self.0
                .lock()
                .expect("test")
                .push(format!("{} {}", req.method(), req.uri()));
            Box::pin(async { Ok(200) })
        }
    }

    fn run<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("test")
            .block_on(f)
    }

    #[test]
    fn only_reads_reach_the_network() {
        let rec = Recorder::default();
        let layer = ReadOnlyLayer::default();
        let mut svc = layer.layer(rec.clone());
        let mut answers = Vec::new();
        for m in [
            Method::GET,
            Method::DELETE,
            Method::PATCH,
            Method::POST,
            Method::PUT,
            Method::HEAD,
        ] {
            let req = Request::builder()
                .method(m)
                .uri("/api/v1/namespaces/default/configmaps/x")
                .body(())
                .expect("test");
            answers.push(run(svc.call(req)).map_err(|e| e.to_string()));
        }
        assert_eq!(
            *rec.0.lock().expect("test"),
            vec![
                "GET /api/v1/namespaces/default/configmaps/x".to_string(),
                "HEAD /api/v1/namespaces/default/configmaps/x".to_string()
            ]
        );
        assert_eq!(layer.refused(), 4);
        assert_eq!(answers[0], Ok(200));
        assert_eq!(
            answers[1],
            Err(
                "read-only mode: DELETE /api/v1/namespaces/default/configmaps/x refused, nothing was sent"
                    .to_string()
            )
        );
    }
}
