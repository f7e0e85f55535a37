// Package deps pins modules that packages under construction will import,
// so that `go mod tidy` keeps them. Delete it once every module is imported
// by real code.
package deps

import (
	_ "github.com/golang-jwt/jwt/v5"
	_ "github.com/golang-migrate/migrate/v4"
	_ "github.com/gorilla/websocket"
	_ "github.com/lib/pq"
	_ "github.com/pgvector/pgvector-go"
	_ "github.com/pkoukk/tiktoken-go"
	_ "github.com/pkoukk/tiktoken-go-loader"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/rs/cors"
	_ "github.com/sashabaranov/go-openai"
	_ "github.com/stretchr/testify/require"
	_ "github.com/vikstrous/dataloadgen"
	_ "golang.org/x/time/rate"
	_ "modernc.org/sqlite"
)
