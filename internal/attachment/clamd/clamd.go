// Package clamd is a client of ClamAV's clamd daemon over its INSTREAM
// protocol: the command "zINSTREAM\0", then the bytes in chunks, each
// prefixed by its length as 4 bytes big-endian, then a zero length; clamd
// answers "stream: OK" for a clean stream or "stream: <signature> FOUND".
package clamd

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// chunkSize is the length of each INSTREAM chunk, well under clamd's
// default StreamMaxLength.
const chunkSize = 64 << 10

// ErrUnavailable wraps every failure to reach clamd or to understand its
// answer: the scan did not happen, and a caller must fail closed.
var ErrUnavailable = errors.New("clamd: scanner unavailable")

// A Verdict is the outcome of one scan.
type Verdict struct {
	// Clean is true when clamd answered "stream: OK".
	Clean bool
	// Signature names what clamd found when Clean is false.
	Signature string
}

// Client scans streams on one clamd address ("tcp:host:port",
// "unix:/path", or a bare "host:port").
type Client struct {
	network, addr string
	// Timeout bounds one whole scan; zero means one minute.
	Timeout time.Duration
}

// New returns a client of the clamd at addr.
func New(addr string) *Client {
	network, rest := "tcp", addr
	if n, a, ok := strings.Cut(addr, ":"); ok && (n == "tcp" || n == "unix") {
		network, rest = n, a
	}
	return &Client{network: network, addr: rest}
}

// Scan streams r to clamd and returns its verdict. Any error wraps
// ErrUnavailable.
func (c *Client) Scan(ctx context.Context, r io.Reader) (Verdict, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, c.network, c.addr)
	if err != nil {
		return Verdict{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if err := send(conn, r); err != nil {
		return Verdict{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	reply, err := bufio.NewReader(conn).ReadString(0)
	if err != nil && !(errors.Is(err, io.EOF) && reply != "") {
		return Verdict{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return parse(strings.TrimRight(reply, "\x00\n"))
}

// send writes the INSTREAM command, r in chunks, and the terminator.
func send(w io.Writer, r io.Reader) error {
	if _, err := io.WriteString(w, "zINSTREAM\x00"); err != nil {
		return err
	}
	buf := make([]byte, 4+chunkSize)
	for {
		n, rerr := io.ReadFull(r, buf[4:])
		if n > 0 {
			binary.BigEndian.PutUint32(buf[:4], uint32(n))
			if _, err := w.Write(buf[:4+n]); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	_, err := w.Write([]byte{0, 0, 0, 0})
	return err
}

// parse reads clamd's reply line.
func parse(reply string) (Verdict, error) {
	body, ok := strings.CutPrefix(reply, "stream: ")
	switch {
	case ok && body == "OK":
		return Verdict{Clean: true}, nil
	case ok && strings.HasSuffix(body, " FOUND"):
		return Verdict{Signature: strings.TrimSuffix(body, " FOUND")}, nil
	}
	return Verdict{}, fmt.Errorf("%w: unexpected reply %q", ErrUnavailable, reply)
}
