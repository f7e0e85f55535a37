// Command fakemodel serves the fake OpenAI-compatible model of the tests
// (internal/llm/llmfake) as a process, with a control API, for tests that
// run `ragchat serve` as a child and must decide when its answers go on:
// the browser tests (web/e2e) hold an answer at its gate while they cut a
// WebSocket or press Stop, rather than hoping that it still runs.
//
// It prints one JSON line on stdout, {"url": ".../v1", "control": "..."},
// and serves until interrupted. Point ragchat at url (OPENAI_BASE_URL);
// the control API is:
//
//	POST /hold?at=K        streams wait before content chunk K (llmfake.Server.Hold)
//	POST /release          held streams go on; later ones are not held
//	GET  /held?atLeast=N   waits until at least N streams are held, then
//	                       answers {"held": n}; without atLeast it answers at once
//
// Only for tests and local trials: it answers every question with the same
// text and listens on the loopback address by default.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/ragchat/ragchat/internal/llm/llmfake"
)

// defaultReply is a Chinese answer of about 300 runes citing [C1], long
// enough to stream over many chunks.
const defaultReply = "RAG（检索增强生成）先从知识库中检索与问题相关的片段，再把这些片段连同问题一起交给大模型生成回答 [C1]。" +
	"这样回答可以引用最新的、私有的资料，而不必重新训练模型；每一句结论都能追溯到具体的来源片段 [C1]。" +
	"检索通常使用向量相似度，把问题和文档片段映射到同一个向量空间，再取最相近的若干片段作为证据。" +
	"生成时，模型被要求只根据证据作答，证据不足时明确说明不知道，而不是编造答案 [C1]。" +
	"多轮对话中，后续问题会先结合上下文改写成独立的问题，再进行检索，这样指代和省略也能找到正确的资料。"

func main() {
	addr := flag.String("control", "127.0.0.1:0", "host:port of the control API")
	reply := flag.String("reply", defaultReply, "the answer to every chat request")
	chunkRunes := flag.Int("chunk-runes", 4, "runes per stream chunk")
	chunkDelay := flag.Duration("chunk-delay", 20*time.Millisecond, "pause between stream chunks")
	dims := flag.Int("embedding-dims", 1, "width of the embeddings (1: every chunk scores ±1, so retrieval always finds evidence)")
	flag.Parse()
	if err := run(*addr, *reply, *chunkRunes, *chunkDelay, *dims); err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
}

func run(addr, reply string, chunkRunes int, chunkDelay time.Duration, dims int) error {
	fake := llmfake.New()
	defer fake.Close()
	fake.SetReply(reply)
	fake.SetChunkRunes(chunkRunes)
	fake.SetChunkDelay(chunkDelay)
	fake.SetEmbeddingDims(dims)

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: control(fake), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	line, _ := json.Marshal(map[string]string{"url": fake.URL, "control": "http://" + ln.Addr().String()})
	fmt.Println(string(line))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	fake.Release() // held streams end with the fake
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

// control is the control API of fake.
func control(fake *llmfake.Server) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hold", func(w http.ResponseWriter, r *http.Request) {
		k, err := strconv.Atoi(r.URL.Query().Get("at"))
		if err != nil || k < 0 {
			http.Error(w, "at must be a chunk number (0 or more)", http.StatusBadRequest)
			return
		}
		fake.Hold(k)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /release", func(w http.ResponseWriter, _ *http.Request) {
		fake.Release()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /held", func(w http.ResponseWriter, r *http.Request) {
		if s := r.URL.Query().Get("atLeast"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				http.Error(w, "atLeast must be a count", http.StatusBadRequest)
				return
			}
			if err := fake.WaitHeld(r.Context(), n); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]int{"held": fake.Held()})
	})
	return mux
}
