//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path for the process's lifetime; the
// system drops it when the process ends, however it ends.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the instance id: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errIdentityInUse
		}
		return nil, fmt.Errorf("lock the instance id: %w", err)
	}
	// The file is left in place: removing it could let two processes lock
	// two different files of the same name.
	return func() { _ = f.Close() }, nil
}
