//go:build !linux

package attachment

import (
	"syscall"
	"time"
)

// sandboxAttr adds nothing outside Linux.
func sandboxAttr() *syscall.SysProcAttr { return nil }

// limitProcess does nothing outside Linux: the sandbox child is still
// killed at its deadline, and its Go heap is limited (SandboxMain).
func limitProcess(int64, time.Duration) error { return nil }
