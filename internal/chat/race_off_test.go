//go:build !race

package chat_test

// raceEnabled says the tests run under the race detector, which allocates
// more (the counted allocation bounds have a figure for each).
const raceEnabled = false
