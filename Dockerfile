# Hopwise: a static binary on a small non-root image.
# Build: docker build -t hopwise .
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/hopwise ./cmd/hopwise

# Debian slim rather than distroless: scanned PDFs are read with Debian's tesseract-ocr and poppler-utils,
# which the static binary runs as programs.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends tesseract-ocr poppler-utils ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 nonroot && useradd --uid 65532 --gid 65532 --no-create-home --shell /usr/sbin/nologin nonroot \
 && mkdir /data && chown nonroot:nonroot /data
COPY --from=build /out/hopwise /usr/local/bin/hopwise
USER nonroot:nonroot
ENV HOPWISE_ADDR=0.0.0.0:8080 HOPWISE_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD ["/usr/local/bin/hopwise", "health"]
ENTRYPOINT ["/usr/local/bin/hopwise"]
CMD ["serve"]
