package webui

import (
	"encoding/json"
	"net/http"
	"time"
)

// DevUser is one of the demo tenant's users offered by the development
// sign-in.
type DevUser struct {
	ID          string   `json:"id"`
	Roles       []string `json:"roles"`
	Groups      []string `json:"groups"`
	Description string   `json:"description"`
}

// DemoUsers are the users the development sign-in offers: a member, a
// member of the ops group (who may read the restricted runbook), an agent
// (who curates knowledge) and an admin.
var DemoUsers = []DevUser{
	{ID: "demo-user", Roles: []string{"member"}, Groups: []string{}, Description: "member"},
	{ID: "demo-ops", Roles: []string{"member"}, Groups: []string{"ops"}, Description: "member of the ops group (reads the ops runbook)"},
	{ID: "demo-agent", Roles: []string{"agent"}, Groups: []string{}, Description: "agent: curates knowledge bases"},
	{ID: "demo-admin", Roles: []string{"admin"}, Groups: []string{"ops"}, Description: "tenant admin"},
}

// DevTokenTTL is the lifetime of a development sign-in token: short, so
// that the console's "sign in again" path is exercised.
const DevTokenTTL = time.Hour

// DevSignIn mints development tokens for the demo users. It exists only
// when RAGCHAT_ENV=development (cmd/ragchat sets it then).
type DevSignIn struct {
	// Mint signs a token for user with roles and groups, valid for ttl.
	Mint func(user string, roles, groups []string, ttl time.Duration) (string, error)
	// Users are the users offered; nil means DemoUsers.
	Users []DevUser
}

// ServeHTTP serves GET /dev/users and POST /dev/token {"user": id}.
func (d *DevSignIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	users := d.Users
	if users == nil {
		users = DemoUsers
	}
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case r.URL.Path == "/dev/users" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, users)
	case r.URL.Path == "/dev/token" && r.Method == http.MethodPost:
		// JSON only: a cross-site form cannot send it without a CORS
		// preflight, which this endpoint never grants.
		if r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "unsupported media type", http.StatusUnsupportedMediaType)
			return
		}
		var req struct {
			User string `json:"user"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		for _, u := range users {
			if u.ID != req.User {
				continue
			}
			tok, err := d.Mint(u.ID, u.Roles, u.Groups, DevTokenTTL)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			writeJSON(w, http.StatusOK, map[string]string{"token": tok})
			return
		}
		http.Error(w, "unknown user", http.StatusNotFound)
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
