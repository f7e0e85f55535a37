package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// env reads variables through a lookup function and collects parse errors,
// so that Load reports every bad variable at once.
type env struct {
	lookup func(string) (string, bool)
	errs   []error
}

// str returns the variable's trimmed value, or def when it is unset or
// empty.
func (e *env) str(name, def string) string {
	if v, ok := e.lookup(name); ok {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return def
}

// set reports whether the variable is set to a non-empty value.
func (e *env) set(name string) bool {
	v, ok := e.lookup(name)
	return ok && strings.TrimSpace(v) != ""
}

func (e *env) fail(name, value, want string) {
	e.errs = append(e.errs, fmt.Errorf("%s=%q: want %s", name, value, want))
}

// integer parses an int variable that must be at least min.
func (e *env) integer(name string, def, min int) int {
	s := e.str(name, "")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < min {
		e.fail(name, s, fmt.Sprintf("an integer >= %d", min))
		return def
	}
	return n
}

// float parses a float variable that must be positive.
func (e *env) float(name string, def float64) float64 {
	s := e.str(name, "")
	if s == "" {
		return def
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		e.fail(name, s, "a positive number")
		return def
	}
	return f
}

// boolean parses a boolean variable (1/0, true/false, yes/no, on/off).
func (e *env) boolean(name string, def bool) bool {
	s := strings.ToLower(e.str(name, ""))
	switch s {
	case "":
		return def
	case "1", "true", "yes", "on":
		return true
	case "0", "false", "no", "off":
		return false
	}
	e.fail(name, s, "true or false")
	return def
}

// duration parses a Go duration ("15ms", "30s"); negative values are
// allowed only when allowNegative is set.
func (e *env) duration(name string, def time.Duration, allowNegative bool) time.Duration {
	s := e.str(name, "")
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || (d < 0 && !allowNegative) {
		e.fail(name, s, "a duration such as 500ms or 30s")
		return def
	}
	return d
}

// positive parses a duration that must be greater than zero.
func (e *env) positive(name string, def time.Duration) time.Duration {
	s := e.str(name, "")
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		e.fail(name, s, "a positive duration such as 500ms or 30s")
		return def
	}
	return d
}

// list parses a comma-separated list, dropping empty items.
func (e *env) list(name string, def []string) []string {
	s := e.str(name, "")
	if s == "" {
		return def
	}
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func (e *env) err() error { return errors.Join(e.errs...) }
