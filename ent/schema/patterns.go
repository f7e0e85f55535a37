package schema

import "regexp"

// tenantKeyPattern is the shape of a tenant key: lower-case letters, digits
// and dashes, starting with a letter.
var tenantKeyPattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)
