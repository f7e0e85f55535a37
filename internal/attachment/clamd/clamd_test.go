package clamd_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/attachment/clamd"
)

func TestScan(t *testing.T) {
	f, err := clamd.NewFake()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := clamd.New(f.Addr())
	big := strings.Repeat("clean text ", 20000) // several chunks
	cases := []struct {
		name  string
		body  string
		clean bool
	}{
		{"clean", "hello", true},
		{"empty", "", true},
		{"large clean", big, true},
		{"eicar", clamd.EICAR, false},
		{"eicar past the first chunk", big + clamd.EICAR, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := c.Scan(context.Background(), strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if v.Clean != tc.clean {
				t.Fatalf("clean = %v, want %v (%+v)", v.Clean, tc.clean, v)
			}
			if !tc.clean && v.Signature != "Eicar-Signature" {
				t.Fatalf("signature = %q", v.Signature)
			}
		})
	}
}

func TestScanFailsClosedWhenDown(t *testing.T) {
	f, err := clamd.NewFake()
	if err != nil {
		t.Fatal(err)
	}
	addr := f.Addr()
	f.Close()
	_, err = clamd.New(addr).Scan(context.Background(), bytes.NewReader([]byte("x")))
	if !errors.Is(err, clamd.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
}
