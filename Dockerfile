# fourkings server image. Build: `docker build -t fourkings .`; run: `docker compose up` (with PostgreSQL)
# or `docker run -p 8080:8080 fourkings` (SQLite in the /app/data volume). Configuration is by
# environment: FOURKINGS_<SECTION>__<KEY> (see config/default.toml) and DATABASE_URL.

ARG RUST_IMAGE=rust:1-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# --- planner: the workspace's manifests with stub sources, so that the dependency layer below is
# rebuilt only when a Cargo.toml or Cargo.lock changes (what cargo-chef does, without installing it).
FROM ${RUST_IMAGE} AS planner
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY crates crates
RUN mkdir -p /recipe \
 && cp Cargo.toml Cargo.lock /recipe/ \
 && for manifest in crates/*/Cargo.toml; do \
      dir=/recipe/$(dirname "$manifest"); \
      mkdir -p "$dir/src" "$dir/benches"; \
      cp "$manifest" "$dir/"; \
      touch "$dir/src/lib.rs"; \
      echo 'fn main() {}' > "$dir/src/main.rs"; \
      awk '/^\[\[bench\]\]/ { b = 1; next } b && /^name *=/ { gsub(/[" ]/, "", $0); sub(/^name=/, "", $0); print; b = 0 }' "$manifest" \
        | while read -r bench; do echo 'fn main() {}' > "$dir/benches/$bench.rs"; done; \
    done

# --- builder
FROM ${RUST_IMAGE} AS builder
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /src
COPY --from=planner /recipe ./
# Dependencies only (the workspace's own crates are stubs here).
RUN cargo build --release --locked -p fourkings
COPY crates crates
COPY config config
COPY migrations migrations
COPY web web
# COPY keeps the context's modification times, which may be older than the stub build: touch the real
# sources so cargo rebuilds the workspace crates instead of shipping the stubs.
RUN find crates -name '*.rs' -exec touch {} + \
 && cargo build --release --locked -p fourkings --bin fourkings \
 && ./target/release/fourkings --version

# --- runtime: the binary, the browser client and the default configuration; nothing else.
FROM ${RUNTIME_IMAGE}
RUN useradd --system --user-group --uid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin fourkings \
 && mkdir -p /app/data \
 && chown fourkings:fourkings /app/data
WORKDIR /app
COPY --from=builder /src/target/release/fourkings /usr/local/bin/fourkings
COPY config /app/config
COPY web /app/web
USER 10001:10001
# Listen on every interface of the container; JSON logs for log collectors. Any key of
# config/default.toml can be overridden the same way (FOURKINGS_<SECTION>__<KEY>).
ENV FOURKINGS_SERVER__LISTEN=0.0.0.0:8080 \
    FOURKINGS_LOG__FORMAT=json
EXPOSE 8080
# The embedded database (SQLite, the default when DATABASE_URL is not set) lives here.
VOLUME ["/app/data"]
# The binary checks itself: no curl in the image.
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 CMD ["fourkings", "healthcheck"]
# SIGTERM (docker stop) closes every WebSocket with 1012 and exits within server.shutdown_timeout_ms.
STOPSIGNAL SIGTERM
ENTRYPOINT ["fourkings"]
CMD ["serve"]
