package webui

import "embed"

// dist is the built console: `make web` (npm ci, codegen, vite build in
// web/) writes it and it is committed, so building ragchat needs no Node.
// scripts/web.sh check checks that a fresh build reproduces it byte for
// byte.
//
//go:embed all:dist
var dist embed.FS
