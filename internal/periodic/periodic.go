// Package periodic runs the background loops that do one thing every
// interval until they are told to stop.
package periodic

import "time"

// Every calls f every interval, the first time one interval after the
// call, until stop is closed or f returns false; then it stops its ticker
// and returns. f runs on the caller's goroutine, one call at a time.
func Every(stop <-chan struct{}, interval time.Duration, f func() bool) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if !f() {
				return
			}
		}
	}
}
