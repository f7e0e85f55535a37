package auth

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ragchat/ragchat/internal/viewer"
)

// Limits on the identity claims a token may carry.
const (
	// MaxUserIDLen is the longest `sub` accepted, in bytes.
	MaxUserIDLen = 128
	// MaxGroups is the most distinct groups a token may carry.
	MaxGroups = 100
	// MaxGroupLen is the longest group name accepted, in bytes.
	MaxGroupLen = 128
)

// tenantKeyPattern is the shape of a tenant key.
var tenantKeyPattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)

// Claims are the JWT claims ragchat reads: the registered claims plus the
// tenant, the roles and the ACL groups of the user named by Subject.
type Claims struct {
	// Tenant is the tenant key. Verify also accepts it as `tid`.
	Tenant string `json:"tenant,omitempty"`
	// Roles are the viewer's roles: member, agent, admin or support. Other values are
	// ignored; no known role means member.
	Roles []string `json:"roles,omitempty"`
	// Groups are the ACL groups the user belongs to.
	Groups []string `json:"groups,omitempty"`
	jwt.RegisteredClaims
}

// tokenClaims is what Verify decodes: Claims plus the `tid` alias, with
// roles and groups accepted as a string or an array of strings.
type tokenClaims struct {
	Claims
	TID    string           `json:"tid,omitempty"`
	Roles  jwt.ClaimStrings `json:"roles,omitempty"`
	Groups jwt.ClaimStrings `json:"groups,omitempty"`
}

// viewer validates the identity claims and builds the viewer they describe.
func (c *tokenClaims) viewer() (*viewer.Viewer, error) {
	tenant := c.Tenant
	if c.TID != "" {
		if tenant != "" && tenant != c.TID {
			return nil, errors.New("tenant and tid claims disagree")
		}
		tenant = c.TID
	}
	v, err := buildViewer(c.Subject, tenant, c.Roles, c.Groups)
	if err == nil && c.ExpiresAt != nil {
		v.ExpiresAt = c.ExpiresAt.Time
	}
	if err == nil && c.IssuedAt != nil {
		v.IssuedAt = c.IssuedAt.Time
	}
	return v, err
}

// buildViewer validates a subject, tenant key, roles and groups and returns
// the viewer they describe.
func buildViewer(subject, tenant string, roles, groups []string) (*viewer.Viewer, error) {
	if err := checkUserID(subject); err != nil {
		return nil, err
	}
	if tenant == "" {
		return nil, errors.New("missing tenant claim")
	}
	if !tenantKeyPattern.MatchString(tenant) {
		return nil, errors.New("tenant claim is not a valid tenant key")
	}
	gs, err := normalizeGroups(groups)
	if err != nil {
		return nil, err
	}
	return &viewer.Viewer{
		TenantID: tenant,
		UserID:   subject,
		Roles:    normalizeRoles(roles),
		Groups:   gs,
	}, nil
}

// checkUserID reports whether sub is usable as a user id: present, at most
// MaxUserIDLen bytes of valid UTF-8, without control characters.
func checkUserID(sub string) error {
	switch {
	case sub == "":
		return errors.New("missing sub claim")
	case len(sub) > MaxUserIDLen:
		return fmt.Errorf("sub claim longer than %d bytes", MaxUserIDLen)
	case !printable(sub):
		return errors.New("sub claim has invalid characters")
	}
	return nil
}

// normalizeRoles keeps the known roles, once each, in token order. A token
// with no known role gets RoleMember.
func normalizeRoles(roles []string) []viewer.Role {
	out := make([]viewer.Role, 0, 3)
	for _, r := range roles {
		role := viewer.Role(r)
		if role.Valid() && !slices.Contains(out, role) {
			out = append(out, role)
		}
	}
	if len(out) == 0 {
		out = append(out, viewer.RoleMember)
	}
	return out
}

// normalizeGroups drops empty names and duplicates, keeping token order (nil
// when none remain). It
// rejects (rather than truncates) a token with more than MaxGroups groups or
// a group name longer than MaxGroupLen: silently dropping groups would hide
// documents without explanation.
func normalizeGroups(groups []string) ([]string, error) {
	var out []string
	seen := make(map[string]struct{}, len(groups))
	for _, g := range groups {
		if g == "" {
			continue
		}
		if len(g) > MaxGroupLen || !printable(g) {
			return nil, fmt.Errorf("group name longer than %d bytes or with invalid characters", MaxGroupLen)
		}
		if _, dup := seen[g]; dup {
			continue
		}
		seen[g] = struct{}{}
		out = append(out, g)
		if len(out) > MaxGroups {
			return nil, fmt.Errorf("more than %d groups", MaxGroups)
		}
	}
	return out, nil
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}
