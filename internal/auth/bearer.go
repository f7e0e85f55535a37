package auth

import "strings"

// BearerToken extracts the token from an Authorization value of the form
// "Bearer <token>". The scheme is matched case-insensitively and surrounding
// whitespace is ignored. It serves both HTTP Authorization headers and the
// authorization field of graphql-ws connection_init payloads. It reports
// false when the value uses another scheme, has no token, or the token
// contains whitespace.
func BearerToken(header string) (string, bool) {
	header = strings.TrimSpace(header)
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsAny(token, " \t\r\n") {
		return "", false
	}
	return token, true
}
