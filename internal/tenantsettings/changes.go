package tenantsettings

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/ragchat/ragchat/internal/domain"
)

// settingChange is one changed setting: its JSON name (nested fields
// dotted, as budgetRatios.history) and its old and new values as JSON.
type settingChange struct {
	Field, Old, New string
}

// settingsChanges lists the settings that differ between old and next, by
// name. It compares the JSON forms, so every field of
// domain.TenantSettings, present and future, is covered.
func settingsChanges(old, next domain.TenantSettings) []settingChange {
	a, b := flatSettings(old), flatSettings(next)
	names := make(map[string]bool, len(a)+len(b))
	for k := range a {
		names[k] = true
	}
	for k := range b {
		names[k] = true
	}
	var out []settingChange
	for k := range names {
		if a[k] != b[k] {
			out = append(out, settingChange{Field: k, Old: valueOr(a, k), New: valueOr(b, k)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

func valueOr(m map[string]string, k string) string {
	if v, ok := m[k]; ok {
		return v
	}
	return "null"
}

// flatSettings returns s's JSON fields by name, budgetRatios' fields one
// by one, each value as compact JSON.
func flatSettings(s domain.TenantSettings) map[string]string {
	b, _ := json.Marshal(s)
	var top map[string]json.RawMessage
	_ = json.Unmarshal(b, &top)
	out := make(map[string]string, len(top)+6)
	for k, v := range top {
		if k == "budgetRatios" {
			var r map[string]json.RawMessage
			if json.Unmarshal(v, &r) == nil {
				for rk, rv := range r {
					out[k+"."+rk] = string(rv)
				}
				continue
			}
		}
		out[k] = string(v)
	}
	return out
}

// changeMetadata is the audit metadata of a settings change: "fields"
// lists the changed names (comma-separated, sorted), and each name has
// "old.<name>" and "new.<name>" (JSON values), plus the new "version".
func changeMetadata(changes []settingChange, version int) map[string]string {
	m := map[string]string{"version": strconv.Itoa(version)}
	names := make([]string, 0, len(changes))
	for _, c := range changes {
		names = append(names, c.Field)
		m["old."+c.Field] = c.Old
		m["new."+c.Field] = c.New
	}
	m["fields"] = strings.Join(names, ",")
	return m
}
