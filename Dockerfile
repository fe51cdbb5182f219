# The arena binary in a small image. Build: docker build -t hexarena .
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin hexarena

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/hexarena /usr/local/bin/hexarena
ENV ARENA_BIND=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["hexarena", "serve"]
