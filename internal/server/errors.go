package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Codes the API adds to the domain codes: the GraphQL protocol's own
// (kept as gqlgen and the APQ protocol set them).
const (
	codeParseFailed      = "GRAPHQL_PARSE_FAILED"
	codeValidationFailed = "GRAPHQL_VALIDATION_FAILED"
)

// presentError returns the error presenter: every error leaves with
// extensions.code. Domain errors keep their code, client-safe message and
// details; protocol errors keep their code; storage errors take the code
// of their store.Classify class (NOT_FOUND, FORBIDDEN or UNAUTHENTICATED
// without a viewer, UNAVAILABLE, BAD_USER_INPUT, CONFLICT); argument
// coercion failures are BAD_USER_INPUT. Anything else is INTERNAL: the client sees only "internal
// error" and the trace id, and the details go to the log.
func presentError(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gerr := graphql.DefaultErrorPresenter(ctx, err)
		out := &gqlerror.Error{Message: gerr.Message, Path: gerr.Path, Locations: gerr.Locations, Rule: gerr.Rule}
		code, msg, details := classify(ctx, err, gerr)
		out.Extensions = map[string]any{}
		for k, v := range gerr.Extensions {
			out.Extensions[k] = v
		}
		for k, v := range details {
			out.Extensions[k] = v
		}
		out.Extensions["code"] = code
		if msg != "" {
			out.Message = msg
		}
		if code == string(domain.CodeInternal) {
			trace := TraceID(ctx)
			out.Message = "internal error"
			out.Extensions = map[string]any{"code": code, "traceId": trace}
			log.ErrorContext(ctx, "internal error", slog.String("path", gerr.Path.String()), slog.String("error", err.Error()))
		}
		return out
	}
}

// classify returns the code, the message to show ("" keeps the error's
// own) and extra extensions of err. Storage errors that reach it unmapped
// (a resolver's own Ent query) are classified by store.Classify, the
// classifier the engine and the knowledge service map theirs with, so an
// error has one code whichever layer returned it.
func classify(ctx context.Context, err error, gerr *gqlerror.Error) (code, msg string, details map[string]any) {
	var de *domain.Error
	if errors.As(err, &de) {
		return string(de.Code), domain.ErrorMessage(err), de.Details
	}
	if gerr.Extensions["code"] != nil {
		return fmt.Sprint(gerr.Extensions["code"]), "", nil
	}
	switch store.Classify(err) {
	case store.ClassNotFound:
		return string(domain.CodeNotFound), "not found", nil
	case store.ClassDenied:
		if viewer.FromContext(ctx) == nil {
			return string(domain.CodeUnauthenticated), "authentication required", nil
		}
		return string(domain.CodeForbidden), "operation not permitted", nil
	case store.ClassCancelled:
		if errors.Is(err, context.DeadlineExceeded) {
			return string(domain.CodeUnavailable), "request timed out", nil
		}
		return string(domain.CodeUnavailable), "request cancelled", nil
	case store.ClassTransient:
		return string(domain.CodeUnavailable), "the database is unavailable, try again", nil
	case store.ClassInvalid:
		return string(domain.CodeBadUserInput), "invalid input", nil
	case store.ClassConflict:
		return string(domain.CodeConflict), "conflicting change", nil
	}
	switch {
	case gerr.Err != nil && gerr.Err.Error() == "introspection disabled":
		return string(domain.CodeForbidden), "introspection is disabled on this server", nil
	case isArgumentError(ctx, gerr):
		return string(domain.CodeBadUserInput), "", map[string]any{"argument": argumentPath(ctx, gerr)}
	case gerr.Err == nil && gerr.Message != "must not be null":
		// A GraphQL-level error without a cause (pagination arguments,
		// input shape): the client's mistake.
		return string(domain.CodeBadUserInput), "", nil
	}
	return string(domain.CodeInternal), "", nil
}

// isArgumentError reports whether gerr was raised while coercing the
// current field's arguments: its path extends the field's path by one of
// the field's argument names (resolver errors carry the field's own path).
func isArgumentError(ctx context.Context, gerr *gqlerror.Error) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return false
	}
	fieldPath := fc.Path()
	if len(gerr.Path) <= len(fieldPath) {
		return false
	}
	name, ok := gerr.Path[len(fieldPath)].(ast.PathName)
	if !ok {
		return false
	}
	return fc.Field.Field != nil && fc.Field.Arguments.ForName(string(name)) != nil
}

// argumentPath is the argument part of an argument error's path.
func argumentPath(ctx context.Context, gerr *gqlerror.Error) string {
	fc := graphql.GetFieldContext(ctx)
	return ast.Path(gerr.Path[len(fc.Path()):]).String()
}

// recoverFunc turns a resolver panic into an INTERNAL error and logs it.
func recoverFunc(log *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		log.ErrorContext(ctx, "resolver panic", slog.Any("panic", p))
		return domain.Errorf(domain.CodeInternal, "internal error")
	}
}

// gqlErr builds a protocol-level error with a code and extra extensions.
func gqlErr(code domain.Code, msg string, ext map[string]any) *gqlerror.Error {
	e := &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": string(code)}}
	for k, v := range ext {
		e.Extensions[k] = v
	}
	return e
}
