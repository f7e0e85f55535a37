package tokens

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// setLoader installs the offline BPE loader exactly once, before the first
// encoding is loaded. tiktoken.SetBpeLoader writes an unsynchronised global,
// so nothing else in the program should call it or tiktoken.GetEncoding
// directly: use this package.
var setLoader = sync.OnceFunc(func() {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
})

// encodings caches one loader per supported encoding. Loading a BPE takes a
// noticeable fraction of a second and tens of megabytes, so it happens at
// most once per encoding; sync.OnceValues makes that concurrency-safe.
var encodings = map[string]func() (Counter, error){
	O200KBase:  sync.OnceValues(func() (Counter, error) { return load(O200KBase) }),
	CL100KBase: sync.OnceValues(func() (Counter, error) { return load(CL100KBase) }),
}

// Encoding returns the exact counter for a tiktoken encoding name
// (O200KBase or CL100KBase), loading it on first use.
func Encoding(name string) (Counter, error) {
	get, ok := encodings[name]
	if !ok {
		return nil, fmt.Errorf("tokens: unsupported encoding %q", name)
	}
	return get()
}

func load(name string) (Counter, error) {
	setLoader()
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, fmt.Errorf("tokens: load %s: %w", name, err)
	}
	c := &bpeCounter{enc: enc, name: "tiktoken/" + name, cache: newCountCache(countCacheSize)}
	loaded[name].Store(c)
	return c, nil
}

// loaded holds each encoding's counter once it is loaded, so that
// CacheSizes can report it without loading it.
var loaded = map[string]*atomic.Pointer[bpeCounter]{O200KBase: {}, CL100KBase: {}}

// bpeCounter counts tokens exactly with a tiktoken encoding.
type bpeCounter struct {
	enc   *tiktoken.Tiktoken
	name  string
	cache *countCache
	// encodes counts the texts actually tokenised (for tests).
	encodes atomic.Int64
}

// Count returns the number of tokens of s. Counts of long texts are
// remembered (countCache). Special-token text such as
// "<|endoftext|>" is counted as ordinary text, which is how untrusted input
// reaches the model.
func (c *bpeCounter) Count(s string) int {
	if s == "" {
		return 0
	}
	return c.cache.count(s, c.encode)
}

// encode tokenises s and returns its length. tiktoken merges the byte
// pairs of each piece of its pre-tokenising pattern in time quadratic in
// the piece's length, and a piece is a whole run of letters, of
// whitespace or of other symbols: 8,000 CJK characters without
// punctuation took half a second, 60,000 (a model's answer, a question, a
// document) would take half a minute. So s is tokenised in parts cut
// inside such runs every maxRun runes (runParts), which bounds the work
// per rune. A cut can add at most one token to the count (the two halves
// of a merged pair are counted apart); text without such runs is counted
// exactly.
func (c *bpeCounter) encode(s string) int {
	c.encodes.Add(1)
	n := 0
	for part := range runParts(s) {
		n += len(c.enc.EncodeOrdinary(part))
	}
	return n
}

// Name returns "tiktoken/<encoding>".
func (c *bpeCounter) Name() string { return c.name }
