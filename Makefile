# ragchat developer tasks. CI runs `make test` (.ci/run); see docs/TESTING.md.

GO          ?= go
PKG         ?= ./...
GOTESTFLAGS ?=
BENCHFLAGS  ?=

.DEFAULT_GOAL := help

.PHONY: help run build build-bench generate check-generate migration test test-go bench bench-go lint web image

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{ printf "  %-15s %s\n", $$1, $$2 }'

run: ## Run the server (go run ./cmd/ragchat serve).
	$(GO) run ./cmd/ragchat serve

build: ## Build bin/ragchat.
	$(GO) build -o bin/ragchat ./cmd/ragchat

build-bench: build ## Build bin/ragchat and the benchmark harness, bin/ragchat-bench.
	$(GO) build -o bin/ragchat-bench ./cmd/ragchat-bench

generate: ## Regenerate code (Ent, entgql, gqlgen): go generate ./...
	$(GO) generate ./...

check-generate: ## Fail if go generate changes generated code.
	scripts/check-generate.sh

image: ## OCI image of ragchat serve, from scratch with buildah, into bin/image (docs/DEPLOYMENT.md, "The container image").
	scripts/image.sh bin/image

web: ## Build the web console (npm ci, codegen, vite) into internal/webui/dist, and regenerate clients/ts/src/gql; commit the result.
	scripts/web.sh build
	cd clients/ts && npm ci --no-audit --no-fund --loglevel=error && npm run --silent codegen >/dev/null

migration: ## New PostgreSQL migration from the Ent schema, diffed on a throwaway cluster: make migration NAME=add_x
	@test -n "$(NAME)" || { echo "usage: make migration NAME=snake_case_name" >&2; exit 2; }
	scripts/pgtest.sh run $(GO) run ./internal/tools/migrationdiff -name $(NAME) -dir migrations

test: ## Everything CI runs: generate check, vet, all tests on a throwaway PostgreSQL 15 + pgvector.
	scripts/test.sh

test-go: ## go test with the database env already set: make test-go PKG=./internal/store GOTESTFLAGS='-run X'
	$(GO) test -race -count=1 $(GOTESTFLAGS) $(PKG)

bench: build-bench ## Measure the API and print the Targets table: make bench BENCHFLAGS='--database-url URL --only ttft' (docs/BENCHMARKS.md)
	bin/ragchat-bench --server-bin bin/ragchat $(BENCHFLAGS)

bench-go: ## Go benchmarks (go test -bench; a throwaway database unless RAGCHAT_TEST_DATABASE_URL is set).
	scripts/pgtest.sh run $(GO) test -run '^$$' -bench . -benchmem $(GOTESTFLAGS) $(PKG)

lint: ## gofmt -l and go vet.
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
