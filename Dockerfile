# One image, several commands: `supportdesk serve` (API), `supportdesk migrate` and
# `supportdesk tenants ...` (operator), `supportdesk-worker` (background work).
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
# Control-plane statements were checked against the schema at development time (.sqlx/).
ENV SQLX_OFFLINE=true
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p supportdesk -p supportdesk-worker --bins \
 && mkdir -p /out && cp target/release/supportdesk target/release/supportdesk-worker /out/

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin supportdesk
COPY --from=build /out/supportdesk /out/supportdesk-worker /usr/local/bin/
USER 10001:10001
ENV ASPNETCORE_ENVIRONMENT=Production
EXPOSE 5000 5001 9464
ENTRYPOINT ["/usr/local/bin/supportdesk"]
CMD ["serve"]
