package server_test

import (
	"bufio"
	"strconv"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestStatementAndContextMetrics: /metrics counts the statements of each
// GraphQL operation up to its first response, leaving out the answer's
// background run, so that every follow-up ask's mutation counts the same,
// positive number of statements; and it records one context assembly per
// answer. It asserts counts, never durations.
func TestStatementAndContextMetrics(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		c := h.Client(t, "alice")
		conv := createConversation(t, c)
		follow := func(q string) {
			a := ask(t, c, conv, q)
			sub, err := c.SubscribeSSE(ctxT(t), attemptEventsQuery, map[string]any{"a": a})
			if err != nil {
				t.Fatal(err)
			}
			checkStream(t, collectEvents(t, sub))
		}
		follow("上传文件最大是多少？") // the first ask also sets the title
		const sum, count = `ragchat_db_statements_per_operation_sum{type="mutation"}`, `ragchat_db_statements_per_operation_count{type="mutation"}`
		const assemblies = `ragchat_context_assembly_seconds_count`
		var perAsk []float64
		for _, q := range []string{"那超过以后返回什么错误码？", "那退款呢？", "退款要多久？"} {
			before := metricValues(t, scrapeMetrics(t, h.URL))
			follow(q)
			after := metricValues(t, scrapeMetrics(t, h.URL))
			if n := after[count] - before[count]; n != 1 {
				t.Fatalf("%s grew by %v for one ask", count, n)
			}
			perAsk = append(perAsk, after[sum]-before[sum])
			if n := after[assemblies] - before[assemblies]; n != 1 {
				t.Errorf("%s grew by %v for one answer, want 1", assemblies, n)
			}
		}
		if perAsk[0] <= 0 || perAsk[1] != perAsk[0] || perAsk[2] != perAsk[0] {
			t.Errorf("statements of the ask mutation, per ask: %v; want the same positive count each time", perAsk)
		}
	})
}

// metricValues parses a Prometheus text page into its samples, keyed by
// the series as printed.
func metricValues(t *testing.T, text string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if strings.HasPrefix(line, "#") || i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}
