package broker

import (
	"bytes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// Every frame a Distributed broker puts on its bus is sealed, so that a
// database role that can LISTEN (or a NATS client that can subscribe)
// reads nothing, and one that can NOTIFY (or publish) cannot inject a
// frame, alter one, or move one from another channel:
//
//	sealed = "rcb2" | nonce (24 bytes) | XChaCha20-Poly1305(plain, aad)
//	plain  = sent at (Unix milliseconds, 8 bytes big-endian) | inner frame
//	aad    = "ragchat broker rcb2" 0 bus 0 channel
//
// The inner frame is the rcb1 frame of frame.go. The key is derived with
// HKDF-SHA256 from Options.Secret, which every instance on the bus shares;
// the associated data binds a frame to its bus and channel. XChaCha20's
// 192-bit random nonces need no coordination between the instances that
// share the key and have no practical limit on the number of frames (96-bit
// random nonces, as in AES-GCM, would be limited to about 2^32 frames per
// key across the whole deployment).
//
// Replays: a frame is accepted only while its sending time is within
// Options.MaxFrameAge of the receiver's clock, and only when its inner frame
// seq is above the highest seq already taken from its origin (receive.go),
// which the receiver remembers for longer than the window.
const sealMagic = "rcb2"

// sealOverhead is how many bytes sealing adds to an inner frame.
const sealOverhead = len(sealMagic) + chacha20poly1305.NonceSizeX + 8 + chacha20poly1305.Overhead

// MinSecretLen is the shortest Options.Secret a Distributed broker takes.
const MinSecretLen = 32

// DefaultMaxFrameAge is the default Options.MaxFrameAge.
const DefaultMaxFrameAge = time.Minute

// ErrNoSecret: a Distributed broker was started without a secret of at
// least MinSecretLen bytes.
var ErrNoSecret = fmt.Errorf("broker: a shared secret of at least %d bytes is required", MinSecretLen)

// hkdfInfo names what the derived key is for.
const hkdfInfo = "ragchat broker frames " + sealMagic

// sealer seals and opens the frames of one bus and channel.
type sealer struct {
	aad []byte
	// keys[0] seals; every key opens (the previous secrets of a rotation).
	keys []cipher.AEAD
}

// newSealer derives the frame keys of secret (which seals and opens) and
// previous (which only open) for the channel of bus.
func newSealer(secret []byte, previous [][]byte, bus, channel string) (*sealer, error) {
	s := &sealer{aad: []byte("ragchat broker " + sealMagic + "\x00" + bus + "\x00" + channel)}
	for i, sec := range append([][]byte{secret}, previous...) {
		if len(sec) < MinSecretLen {
			if i == 0 {
				return nil, ErrNoSecret
			}
			return nil, fmt.Errorf("broker: previous secret %d is shorter than %d bytes", i, MinSecretLen)
		}
		key, err := hkdf.Key(sha256.New, sec, nil, hkdfInfo, chacha20poly1305.KeySize)
		if err != nil {
			return nil, err
		}
		aead, err := chacha20poly1305.NewX(key)
		if err != nil {
			return nil, fmt.Errorf("broker: frame cipher: %w", err)
		}
		s.keys = append(s.keys, aead)
	}
	return s, nil
}

// seal returns inner sealed, stamped with the sending time now.
func (s *sealer) seal(inner []byte, now time.Time) []byte {
	const head = len(sealMagic) + chacha20poly1305.NonceSizeX
	out := make([]byte, head+8+len(inner), head+8+len(inner)+chacha20poly1305.Overhead)
	copy(out, sealMagic)
	nonce := out[len(sealMagic):head]
	_, _ = rand.Read(nonce) // never fails (crypto/rand)
	plain := out[head:]
	binary.BigEndian.PutUint64(plain, uint64(now.UnixMilli()))
	copy(plain[8:], inner)
	return s.keys[0].Seal(out[:head], nonce, plain, s.aad) // in place
}

// errUnsealed: a frame that is not sealed with a key of this bus and
// channel (a forgery, a tampered frame, an instance with another secret, a
// frame copied from another channel).
var errUnsealed = errors.New("not sealed with this deployment's key")

// open authenticates a sealed frame and returns the inner frame and when
// it was sent.
func (s *sealer) open(frame []byte) (inner []byte, sent time.Time, err error) {
	const head = len(sealMagic) + chacha20poly1305.NonceSizeX
	if len(frame) < sealOverhead || !bytes.HasPrefix(frame, []byte(sealMagic)) {
		return nil, time.Time{}, errUnsealed
	}
	nonce, box := frame[len(sealMagic):head], frame[head:]
	for _, k := range s.keys {
		plain, err := k.Open(nil, nonce, box, s.aad)
		if err == nil {
			return plain[8:], time.UnixMilli(int64(binary.BigEndian.Uint64(plain))), nil
		}
	}
	return nil, time.Time{}, errUnsealed
}
