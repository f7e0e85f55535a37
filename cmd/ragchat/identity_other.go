//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

// lockFile cannot lock on this system; SQLite deployments there must not
// run two processes with one instance id.
func lockFile(string) (func(), error) { return func() {}, nil }
