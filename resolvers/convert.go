package resolvers

// convertAll converts every element of in, in order.
func convertAll[E, T any](in []E, convert func(E) T) []T {
	out := make([]T, len(in))
	for i, e := range in {
		out[i] = convert(e)
	}
	return out
}

// convertNonNil converts the elements of a list input that are not null
// (GraphQL lets a client send null in a list of input objects), in order.
func convertNonNil[E, T any](in []*E, convert func(*E) T) []T {
	out := make([]T, 0, len(in))
	for _, e := range in {
		if e != nil {
			out = append(out, convert(e))
		}
	}
	return out
}
