//go:build !linux

package attachment

// limitProcess does nothing outside Linux: the sandbox child is still
// killed at its deadline, and its Go heap is limited (SandboxMain).
func limitProcess(int64) error { return nil }
