package chat_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStepTableNamesTheCode: every function docs/ENGINE.md's "The ask at a
// glance" names is declared in the files its row names (a method as
// func (x T) Name or func (x *T) Name, a function, a type, or an
// interface's method), so the table cannot name code that moved or was
// renamed.
func TestStepTableNamesTheCode(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ENGINE.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "| # | Step of the ask | Function | File |")
	if start < 0 {
		t.Fatal(`docs/ENGINE.md has no "The ask at a glance" table`)
	}
	end := strings.Index(text[start:], "\n\n")
	code := regexp.MustCompile("`([^`]+)`")
	rows := 0
	for _, line := range strings.Split(text[start:start+end], "\n")[2:] {
		cells := strings.Split(line, "|")
		if len(cells) < 6 {
			t.Fatalf("a row without four cells: %q", line)
		}
		rows++
		files := rowFiles(t, root, cells[4])
		for _, m := range code.FindAllStringSubmatch(cells[3], -1) {
			name := m[1]
			if !declaredIn(t, files, name) {
				t.Errorf("step %s: %s is declared in none of %v", strings.TrimSpace(cells[1]), name, files)
			}
		}
	}
	if rows < 20 {
		t.Fatalf("only %d rows read", rows)
	}
}

// rowFiles returns the Go files a File cell names: paths, a directory
// (every Go file in it), a bare name relative to the directory before it,
// and for an Ent template the generated ent package.
func rowFiles(t *testing.T, root, cell string) []string {
	t.Helper()
	var out []string
	dir := ""
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cell, -1) {
		p := m[1]
		if !strings.Contains(p, "/") && dir != "" {
			p = dir + "/" + p
		}
		switch {
		case strings.HasSuffix(p, "/"):
			matches, _ := filepath.Glob(filepath.Join(root, p, "*.go"))
			out = append(out, matches...)
			dir = strings.TrimSuffix(p, "/")
		case strings.HasSuffix(p, ".tmpl"):
			matches, _ := filepath.Glob(filepath.Join(root, "ent", "*.go"))
			out = append(out, matches...)
			dir = filepath.Dir(p)
		case strings.HasSuffix(p, ".go"):
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				t.Errorf("the table names %s: %v", p, err)
			}
			out = append(out, filepath.Join(root, p))
			dir = filepath.Dir(p)
		}
	}
	return out
}

// declaredIn reports whether name (Name, Type.Name or pkg.Type.Name) is
// declared in one of files.
func declaredIn(t *testing.T, files []string, name string) bool {
	t.Helper()
	parts := strings.Split(name, ".")
	ident := regexp.QuoteMeta(parts[len(parts)-1])
	var pats []*regexp.Regexp
	if len(parts) >= 2 && parts[len(parts)-2] != "" && strings.ToUpper(parts[len(parts)-2][:1]) == parts[len(parts)-2][:1] {
		typ := regexp.QuoteMeta(parts[len(parts)-2])
		pats = append(pats,
			regexp.MustCompile(`(?m)^func \(\w+ \*?`+typ+`(\[[^\]]*\])?\) `+ident+`[\[(]`),
			regexp.MustCompile(`(?m)^\t`+ident+`\(`)) // an interface's method
	} else {
		pats = append(pats,
			regexp.MustCompile(`(?m)^func (\(\w+ \*?\w+\) )?`+ident+`[\[(]`),
			regexp.MustCompile(`(?m)^type `+ident+` `),
			regexp.MustCompile(`(?m)^\t`+ident+` `))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, p := range pats {
			if p.Match(b) {
				return true
			}
		}
	}
	return false
}
