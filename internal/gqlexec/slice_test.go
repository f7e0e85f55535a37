package gqlexec_test

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"github.com/ragchat/ragchat/internal/gqlexec"
)

// goroutineID is the running goroutine's id, from its stack header.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	return strings.Fields(string(buf))[1]
}

// TestMarshalSliceRunsInOrderOnTheCaller checks that every element is
// rendered in order, on the calling goroutine, under its own field context
// carrying its index, and that a panicking element becomes a null element
// and an error while the others render.
func TestMarshalSliceRunsInOrderOnTheCaller(t *testing.T) {
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
	parent := &graphql.FieldContext{Object: "Parent"}
	ctx = graphql.WithFieldContext(ctx, parent)
	caller := goroutineID()
	var order []int
	seen := map[*graphql.FieldContext]bool{}
	ret := gqlexec.MarshalSlice(ctx, 4, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		if g := goroutineID(); g != caller {
			t.Errorf("element %d on goroutine %s, want the caller's %s", i, g, caller)
		}
		fc := graphql.GetFieldContext(ctx)
		if fc.Index == nil || *fc.Index != i || fc.Parent != parent || seen[fc] {
			t.Errorf("element %d: field context %+v", i, fc)
		}
		seen[fc] = true
		order = append(order, i)
		if i == 2 {
			panic("element 2")
		}
		return graphql.MarshalInt(i)
	})
	if len(order) != 4 || order[0] != 0 || order[3] != 3 {
		t.Fatalf("order %v", order)
	}
	var b bytes.Buffer
	ret.MarshalGQL(&b)
	if b.String() != "[0,1,null,3]" {
		t.Fatalf("rendered %s", b.String())
	}
	if errs := graphql.GetErrors(ctx); len(errs) != 1 || errs[0].Path.String() != "[2]" {
		t.Fatalf("errors %v", errs)
	}
	if got := gqlexec.MarshalSlice(ctx, 0, 0, false, nil); len(got) != 0 {
		t.Fatalf("empty list: %v", got)
	}
}

// TestNewDeferredGroup checks that an object without deferred fields gets
// an empty group and one with a deferred field gqlgen's full group.
func TestNewDeferredGroup(t *testing.T) {
	ctx := context.Background()
	plain := []graphql.CollectedField{{}, {}}
	if g := gqlexec.NewDeferredGroup(ctx, plain); g.Defers != nil || g.FieldSet != nil || g.Context != ctx || len(g.Defers) != 0 {
		t.Fatalf("plain object: %+v", g)
	}
	deferred := append(plain, graphql.CollectedField{Deferrables: []*graphql.Deferrable{{Label: "later"}}})
	if g := gqlexec.NewDeferredGroup(ctx, deferred); g.Defers == nil || g.FieldSet == nil {
		t.Fatalf("object with a deferred field: %+v", g)
	}
}

const sample = `package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/ragchat/ragchat/internal/gqlid"
)

func (ec *executionContext) _ThingEdge(ctx context.Context, sel ast.SelectionSet, obj *ThingEdge) graphql.Marshaler {
	fields := graphql.CollectFields(ec.OperationContext, sel, thingEdgeImplementors)

	out := graphql.NewFieldSet(fields)
	deferred := graphql.NewDeferredGroup(ctx)
	return out
}

func (ec *executionContext) marshalOThingEdge2ᚕᚖThingEdge(ctx context.Context, sel ast.SelectionSet, v []*ThingEdge) graphql.Marshaler {
	ret := graphql.MarshalSliceConcurrently(ctx, len(v), 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		return nil
	})
	return ret
}

func (ec *executionContext) marshalOOther2ᚕᚖOther(ctx context.Context, sel ast.SelectionSet, v []*Other) graphql.Marshaler {
	ret := graphql.MarshalSliceConcurrently(ctx, len(v), 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		return nil
	})
	return ret
}
`

// TestRewriteSequentialLists checks the generation step on a sample: only
// the named type's list marshaler changes, every deferred group after a
// field collection does, the import is added, a second run changes
// nothing, and an unknown type fails.
func TestRewriteSequentialLists(t *testing.T) {
	out, err := gqlexec.RewriteSequentialLists([]byte(sample), []string{"ThingEdge"})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		"ret := gqlexec.MarshalSlice(ctx, len(v)",
		"deferred := gqlexec.NewDeferredGroup(ctx, fields)",
		"\t\"github.com/ragchat/ragchat/internal/gqlexec\"\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in\n%s", want, s)
		}
	}
	if strings.Count(s, "graphql.MarshalSliceConcurrently(") != 1 || !strings.Contains(s[strings.Index(s, "marshalOOther2"):], "graphql.MarshalSliceConcurrently(") {
		t.Errorf("the other list changed too:\n%s", s)
	}
	again, err := gqlexec.RewriteSequentialLists(out, []string{"ThingEdge"})
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("second run changed the output (%v)", err)
	}
	if _, err := gqlexec.RewriteSequentialLists([]byte(sample), []string{"Missing"}); err == nil {
		t.Error("an unknown type did not fail")
	}
}

// TestGeneratedExecutorIsRewritten checks that graph/generated.go is the
// output of the generation step (go generate ./... runs it after gqlgen).
func TestGeneratedExecutorIsRewritten(t *testing.T) {
	src, err := os.ReadFile("../../graph/generated.go")
	if err != nil {
		t.Fatal(err)
	}
	out, err := gqlexec.RewriteSequentialLists(src, gqlexec.SequentialLists)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, src) {
		t.Fatal("graph/generated.go is not rewritten: run go generate ./...")
	}
	if !bytes.Contains(src, []byte("gqlexec.MarshalSlice(")) {
		t.Fatal("no list renders through gqlexec.MarshalSlice")
	}
}
