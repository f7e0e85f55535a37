package auth_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any goroutine outlives the tests: the Verifier
// starts none, and every test server and client connection is closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
