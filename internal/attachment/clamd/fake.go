package clamd

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"sync"
)

// EICAR is the EICAR anti-virus test string, which every scanner reports.
const EICAR = `X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*`

// Fake is an in-process clamd that speaks INSTREAM and reports
// "Eicar-Signature FOUND" for any stream containing EICAR. It is for tests.
type Fake struct {
	ln   net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	seen int
}

// NewFake starts a fake clamd on a loopback port.
func NewFake() (*Fake, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &Fake{ln: ln}
	f.wg.Add(1)
	go f.serve()
	return f, nil
}

// Addr is the fake's address for New.
func (f *Fake) Addr() string { return "tcp:" + f.ln.Addr().String() }

// Scans is how many streams the fake has answered.
func (f *Fake) Scans() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen
}

// Close stops the fake; later scans fail to connect.
func (f *Fake) Close() error {
	err := f.ln.Close()
	f.wg.Wait()
	return err
}

func (f *Fake) serve() {
	defer f.wg.Done()
	for {
		conn, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer conn.Close()
			f.handle(conn)
		}()
	}
}

func (f *Fake) handle(conn net.Conn) {
	cmd := make([]byte, len("zINSTREAM\x00"))
	if _, err := io.ReadFull(conn, cmd); err != nil || string(cmd) != "zINSTREAM\x00" {
		_, _ = io.WriteString(conn, "UNKNOWN COMMAND\x00")
		return
	}
	var body bytes.Buffer
	for {
		var n uint32
		if err := binary.Read(conn, binary.BigEndian, &n); err != nil {
			return
		}
		if n == 0 {
			break
		}
		if _, err := io.CopyN(&body, conn, int64(n)); err != nil {
			return
		}
	}
	f.mu.Lock()
	f.seen++
	f.mu.Unlock()
	if bytes.Contains(body.Bytes(), []byte(EICAR)) {
		_, _ = io.WriteString(conn, "stream: Eicar-Signature FOUND\x00")
		return
	}
	_, _ = io.WriteString(conn, "stream: OK\x00")
}
