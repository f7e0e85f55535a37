package adminreport

// WhereSet returns ps with pred(*v) appended when the optional filter
// field v is set (not nil): the shape of every optional comparison of the
// admin listings' filters.
func WhereSet[T, P any](ps []P, v *T, pred func(T) P) []P {
	if v != nil {
		ps = append(ps, pred(*v))
	}
	return ps
}
