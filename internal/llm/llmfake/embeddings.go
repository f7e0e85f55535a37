package llmfake

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"strconv"
)

func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req embeddingRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeFailure(w, Failure{Status: http.StatusBadRequest})
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			writeFailure(w, Failure{Status: http.StatusBadRequest, Body: `{"error":{"message":"input must be a string or an array of strings","type":"invalid_request_error"}}`})
			return
		}
		inputs = []string{one}
	}
	cfg := s.snapshot()
	dims := cfg.embeddingDims
	if req.Dimensions > 0 {
		dims = req.Dimensions
	}
	resp := embeddingResponse{Object: "list", Model: req.Model}
	tokens := 0
	for i, in := range inputs {
		resp.Data = append(resp.Data, embeddingData{Object: "embedding", Index: i, Embedding: Vector(in, dims)})
		tokens += countTokens(in)
	}
	if cfg.reverseEmbed {
		for i, j := 0, len(resp.Data)-1; i < j; i, j = i+1, j-1 {
			resp.Data[i], resp.Data[j] = resp.Data[j], resp.Data[i]
		}
	}
	resp.Usage = usage{PromptTokens: tokens, TotalTokens: tokens}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// Vector is the fake's deterministic embedding of text: dims values in
// [-1, 1) derived from FNV-1a hashes, not normalised.
func Vector(text string, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		h := fnv.New64a()
		_, _ = h.Write([]byte(strconv.Itoa(i) + "\x00" + text))
		v[i] = float32(float64(h.Sum64()>>11)/float64(1<<53)*2 - 1)
	}
	if dims > 0 && isZero(v) {
		v[0] = 1
	}
	return v
}

func isZero(v []float32) bool {
	for _, x := range v {
		if math.Abs(float64(x)) > 0 {
			return false
		}
	}
	return true
}
