package bench

import "testing"

// TestReproduceCommand repeats the command line of a run with the database
// and NATS URLs as placeholders and without the paths of --out and
// --server-bin, in every spelling of those flags, and keeps the values of
// other flags even when they look like one of their names.
func TestReproduceCommand(t *testing.T) {
	const tail = ` --database-url "$DATABASE_URL"`
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--only", "lag", "--database-url", "postgres://x", "--nats-url=nats://y"}, " --only lag"},
		{[]string{"-out", "/tmp/r.md", "--server-bin=bin/ragchat", "-database-url=p", "--rounds", "1"}, " --rounds 1"},
		{[]string{"--server-bin", "/x/ragchat", "--soak-profiles", "out", "--only", "cancel"}, " --soak-profiles out --only cancel"},
	} {
		if got, want := reproduceCommand(benchOptions{args: tc.args}), "go run ./internal/tools/natsserver -- bin/ragchat-bench"+tc.want+tail; got != want {
			t.Errorf("reproduceCommand(%q)\n got %s\nwant %s", tc.args, got, want)
		}
	}
}
