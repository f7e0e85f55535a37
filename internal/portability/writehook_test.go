package portability

import "context"

// SetBeforeWrite makes every import of s call f before it writes, under
// the import's context (a test hook: a slow or blocked write).
func SetBeforeWrite(s *Service, f func(context.Context)) { s.beforeWrite = f }
