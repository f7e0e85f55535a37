package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// operationComplexity computes the complexity of a validated operation the
// way gqlgen's complexity.Calculate does: a field costs what its
// ComplexityRoot function (complexityRoot) says, given its children's cost
// and its arguments, else 1 plus its children; a field of an interface costs
// as much as its costliest implementation; __schema is free. Unlike
// complexity.Calculate it computes each fragment's cost once, however often
// the fragment is spread, and stops counting at limit+1 (every sum and
// child cost is capped there), so that its work is linear in the
// document's size and no product can overflow. A result above limit means
// the operation is over the limit. steps counts the selections visited.
func operationComplexity(ctx context.Context, es graphql.ExecutableSchema, doc *ast.QueryDocument, op *ast.OperationDefinition, vars map[string]any, limit int) (cost, steps int) {
	c := complexityCalc{
		es:     es,
		schema: es.Schema(),
		vars:   vars,
		ceil:   limit + 1,
		frags:  fragmentIndex(doc),
		memo:   map[string]int{},
		onPath: map[string]bool{},
	}
	cost = c.set(ctx, op.SelectionSet)
	return cost, c.steps
}

// complexityCalc holds the state of operationComplexity.
type complexityCalc struct {
	es     graphql.ExecutableSchema
	schema *ast.Schema
	vars   map[string]any
	ceil   int

	frags  map[string]*ast.FragmentDefinition
	memo   map[string]int  // cost of each fragment's selection set
	onPath map[string]bool // fragments being costed (a cycle costs nothing; validation refuses it)
	steps  int
}

// add adds b to a, ignoring negative operands as gqlgen does, capped at
// the ceiling.
func (c *complexityCalc) add(a, b int) int {
	if b < 0 {
		return a
	}
	if a < 0 {
		a = 0
	}
	if b >= c.ceil-a {
		return c.ceil
	}
	return a + b
}

// set is the cost of a selection set.
func (c *complexityCalc) set(ctx context.Context, set ast.SelectionSet) int {
	total := 0
	for _, sel := range set {
		if total >= c.ceil {
			return c.ceil
		}
		c.steps++
		switch s := sel.(type) {
		case *ast.Field:
			total = c.add(total, c.field(ctx, s))
		case *ast.InlineFragment:
			total = c.add(total, c.set(ctx, s.SelectionSet))
		case *ast.FragmentSpread:
			total = c.add(total, c.fragment(ctx, s.Name))
		}
	}
	return total
}

// fragment is the cost of a named fragment's selections, computed once.
func (c *complexityCalc) fragment(ctx context.Context, name string) int {
	if v, ok := c.memo[name]; ok {
		return v
	}
	def := c.frags[name]
	if def == nil || c.onPath[name] {
		return 0
	}
	c.onPath[name] = true
	v := c.set(ctx, def.SelectionSet)
	delete(c.onPath, name)
	c.memo[name] = v
	return v
}

// field is the cost of one field with its children.
func (c *complexityCalc) field(ctx context.Context, f *ast.Field) int {
	if f.Definition == nil || f.ObjectDefinition == nil {
		return 0 // not validated; cannot happen after validation
	}
	typ := c.schema.Types[f.Definition.Type.Name()]
	if typ == nil || typ.Name == "__Schema" {
		return 0
	}
	child := 0
	switch typ.Kind {
	case ast.Object, ast.Interface, ast.Union:
		child = c.set(ctx, f.SelectionSet)
	}
	args := f.ArgumentMap(c.vars)
	if f.ObjectDefinition.Kind != ast.Interface {
		return c.fieldOf(ctx, f.ObjectDefinition, f.Name, child, args)
	}
	// An interface field costs as much as its costliest implementation.
	most := 0
	for _, impl := range c.schema.GetPossibleTypes(f.ObjectDefinition) {
		most = max(most, c.fieldOf(ctx, impl, f.Name, child, args))
	}
	return most
}

// fieldOf is the cost of field on the object type def: its complexity
// function's value when it has one (at least 1), else 1 plus its children.
func (c *complexityCalc) fieldOf(ctx context.Context, def *ast.Definition, field string, child int, args map[string]any) int {
	if v, ok := c.es.Complexity(ctx, def.Name, field, child, args); ok && v >= 1 {
		return min(v, c.ceil)
	}
	return c.add(1, child)
}
