//! The browser client: the static files of `web/` served at `/` as the router's fallback, so every
//! API route keeps its own answers. No build step on the client side: the files go out as they are.
//!
//! Where `web/` is: `./web` when the server runs from the repository or an image that copies it
//! beside the binary, else the repository's `web/` found from this crate at compile time.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

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
        _ => "application/octet-stream",
    }
}

/// `GET /<path>`: the file under `web/`, `index.html` for `/`; 404 otherwise. Only plain path
/// segments are accepted, so no request can leave the directory.
pub async fn serve(uri: Uri) -> Response {
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
        let index = serve(Uri::from_static("/")).await;
        assert_eq!(index.status(), StatusCode::OK);
        assert_eq!(
            index.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        let js = serve(Uri::from_static("/js/app.js")).await;
        assert_eq!(js.status(), StatusCode::OK);
        let missing = serve(Uri::from_static("/nope.html")).await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        let escape = serve(Uri::from_static("/../Cargo.toml")).await;
        assert_eq!(escape.status(), StatusCode::NOT_FOUND);
    }
}
