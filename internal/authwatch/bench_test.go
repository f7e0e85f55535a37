package authwatch_test

import (
	"testing"

	"github.com/ragchat/ragchat/internal/authwatch"
	"github.com/ragchat/ragchat/internal/broker"
)

// BenchmarkAccessStamp is what a stream pays per event that shows
// citations while no access changed (instead of a database statement).
func BenchmarkAccessStamp(b *testing.B) {
	m := broker.NewMemory(broker.MemoryOptions{})
	defer m.Close()
	a := authwatch.NewAccess(m, quiet)
	defer a.Close()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_ = a.Stamp("acme")
		}
	})
}
