//! The browser client: the static files of `web/` served at `/` as the router's fallback, so every
//! API route keeps its own answers. No build step on the client side: the files go out as they are.
//!
//! Where `web/` is: `./web` when the server runs from the repository or an image that copies it
//! beside the binary, else the repository's `web/` found from this crate at compile time.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use protocol::ErrorCode;

use crate::error::ApiError;

/// What the page may load: its own scripts and styles only (inline style attributes, which the
/// client's templates use for seat colours, are allowed; inline scripts are not), WebSockets and
/// REST calls to any node (cluster mode redirects to another host), and no framing by other sites.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
img-src 'self' data: blob:; media-src 'self' data: blob:; font-src 'self'; \
connect-src 'self' ws: wss: http: https:; object-src 'none'; base-uri 'none'; form-action 'self'; \
frame-ancestors 'none'";

/// Middleware: the security headers on every answer (the API's JSON too: it is never a page to
/// frame or to sniff as HTML).
pub async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ] {
        headers
            .entry(name)
            .or_insert(HeaderValue::from_static(value));
    }
    response
}

fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let here = PathBuf::from("web");
        if here.join("index.html").is_file() {
            here
        } else {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web")
        }
    })
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("txt") => "text/plain; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        Some("ico") => "image/x-icon",
        _ => "application/octet-stream",
    }
}

/// `GET /<path>` (and `HEAD`): the file under `web/`, `index.html` for `/`; 404 otherwise. Only plain
/// path segments are accepted, so no request can leave the directory. Other methods: 405.
pub async fn serve(method: Method, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        let mut response = ApiError::new(
            ErrorCode::MethodNotAllowed,
            "static files answer GET and HEAD only",
        )
        .into_response();
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let rel = match uri.path().trim_start_matches('/') {
        "" => "index.html",
        rel => rel,
    };
    let rel = Path::new(rel);
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return StatusCode::NOT_FOUND.into_response();
    }
    let file = root().join(rel);
    let read = {
        let file = file.clone();
        tokio::task::spawn_blocking(move || std::fs::read(file)).await
    };
    match read {
        Ok(Ok(bytes)) => (
            [
                (header::CONTENT_TYPE, content_type(&file)),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            bytes,
        )
            .into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn serves_the_client_and_refuses_to_leave_the_directory() {
        let index = serve(Method::GET, Uri::from_static("/")).await;
        assert_eq!(index.status(), StatusCode::OK);
        assert_eq!(
            index.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        let js = serve(Method::GET, Uri::from_static("/js/app.js")).await;
        assert_eq!(js.status(), StatusCode::OK);
        let missing = serve(Method::GET, Uri::from_static("/nope.html")).await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        let escape = serve(Method::GET, Uri::from_static("/../Cargo.toml")).await;
        assert_eq!(escape.status(), StatusCode::NOT_FOUND);
        let icon = serve(Method::GET, Uri::from_static("/favicon.ico")).await;
        assert_eq!(icon.status(), StatusCode::OK);
        assert_eq!(icon.headers()[header::CONTENT_TYPE], "image/x-icon");
    }
}
