package attachment

import "github.com/ledongthuc/pdf"

// operand is one operand of a content stream operator: a number, a
// string or name (bytes in contentInterp.arena), or an array (its
// elements in contentInterp.elems, nested arrays flattened).
type operand struct {
	kind   tokKind // tokNumber, tokString, tokName, tokArrayOpen, or tokOther
	num    float64
	lo, hi int
}

// contentInterp reads the text operators of one page's content streams
// (ISO 32000-1, 9.4) into the extraction's text: BT, the text-showing
// operators Tj, TJ, ' and ", the line operators T*, Td, TD and Tm, and Tf
// for the font. Other operators are skipped; inline image data is
// skipped. Operands are bounded (maxOperands, maxArrayElements,
// maxOperandBytes): an operator whose operands pass a bound is dropped.
type contentInterp struct {
	x     *pdfExtractor
	fonts pdf.Value                   // the page's Font resources
	used  map[string]pdf.TextEncoding // the page's fonts by name, resolved
	enc   pdf.TextEncoding            // the current font's

	ops      []operand
	elems    []operand
	arena    []byte
	overflow bool
	lastY    float64
	ops2ctx  int
}

// run interprets parts, the streams of one /Contents, as one stream.
func (in *contentInterp) run(parts []pdf.Value) error {
	in.enc = rawEncoding{}
	for _, part := range parts {
		if in.x.inflatedFull() {
			return errInflatedFull
		}
		r := in.x.open(part, in.x.lim.MaxStreamBytes)
		if r == nil {
			continue
		}
		if err := in.stream(newLexer(r)); err != nil {
			return err
		}
	}
	return nil
}

// stream reads the tokens of one stream.
func (in *contentInterp) stream(l *lexer) error {
	array, dict := 0, 0
	for {
		t := l.next()
		switch t {
		case tokEOF:
			return nil
		case tokDictOpen:
			dict++
			continue
		case tokDictClose:
			if dict > 0 {
				dict--
				if dict == 0 {
					in.push(operand{kind: tokOther})
				}
			}
			continue
		}
		if dict > 0 {
			continue // a dictionary operand (marked content) is skipped
		}
		switch t {
		case tokArrayOpen:
			if array == 0 {
				in.push(operand{kind: tokArrayOpen, lo: len(in.elems), hi: len(in.elems)})
			}
			array++
		case tokArrayClose:
			if array > 0 {
				array--
				if array == 0 && len(in.ops) > 0 {
					in.ops[len(in.ops)-1].hi = len(in.elems)
				}
			}
		case tokNumber, tokString, tokName:
			o := operand{kind: t, num: l.num}
			if t != tokNumber {
				if len(in.arena)+len(l.buf) > maxOperandBytes {
					in.overflow = true
					continue
				}
				o.lo = len(in.arena)
				in.arena = append(in.arena, l.buf...)
				o.hi = len(in.arena)
			}
			if array > 0 {
				if len(in.elems) >= maxArrayElements {
					in.overflow = true
					continue
				}
				in.elems = append(in.elems, o)
				continue
			}
			in.push(o)
		case tokKeyword:
			if array > 0 {
				continue // true, false, null in an array
			}
			switch kw := string(l.buf); kw {
			case "true", "false", "null":
				in.push(operand{kind: tokOther})
			case "BI":
				in.inlineImage(l)
			default:
				err := in.operator(kw)
				in.clear()
				if err != nil {
					return err
				}
			}
		}
	}
}

// push adds an operand, or marks the stack overflowed.
func (in *contentInterp) push(o operand) {
	if len(in.ops) >= maxOperands {
		in.overflow = true
		return
	}
	in.ops = append(in.ops, o)
}

// clear empties the operands after an operator.
func (in *contentInterp) clear() {
	in.ops, in.elems, in.arena, in.overflow = in.ops[:0], in.elems[:0], in.arena[:0], false
}

// inlineImage skips BI … ID data EI.
func (in *contentInterp) inlineImage(l *lexer) {
	for {
		t := l.next()
		if t == tokEOF {
			return
		}
		if t == tokKeyword && string(l.buf) == "ID" {
			l.skipInlineImage()
			in.clear()
			return
		}
	}
}

// bytesOf returns a string or name operand's bytes (valid until the
// operands are cleared).
func (in *contentInterp) bytesOf(o operand) []byte { return in.arena[o.lo:o.hi] }

// operator runs one operator on the operands.
func (in *contentInterp) operator(op string) error {
	if in.ops2ctx++; in.ops2ctx%512 == 0 {
		if err := in.x.ctx.Err(); err != nil {
			return err
		}
	}
	if in.overflow {
		return nil
	}
	out := in.x.out
	last := func(k tokKind) (operand, bool) {
		if len(in.ops) == 0 || in.ops[len(in.ops)-1].kind != k {
			return operand{}, false
		}
		return in.ops[len(in.ops)-1], true
	}
	switch op {
	case "BT":
		return out.separate('\n')
	case "T*":
		return out.separate('\n')
	case "Td", "TD":
		if len(in.ops) == 2 && in.ops[1].num != 0 {
			return out.separate('\n')
		}
		return nil // a move along the line may be kerning inside a word
	case "Tm":
		if len(in.ops) == 6 && in.ops[5].num != in.lastY {
			in.lastY = in.ops[5].num
			return out.separate('\n')
		}
		return nil
	case "Tf":
		if len(in.ops) == 2 && in.ops[0].kind == tokName {
			in.enc = in.font(string(in.bytesOf(in.ops[0])))
		}
		return nil
	case "'", "\"":
		if err := out.separate('\n'); err != nil {
			return err
		}
		if s, ok := last(tokString); ok {
			return in.show(in.bytesOf(s))
		}
	case "Tj":
		if s, ok := last(tokString); ok {
			return in.show(in.bytesOf(s))
		}
	case "TJ":
		a, ok := last(tokArrayOpen)
		if !ok {
			return nil
		}
		for _, e := range in.elems[a.lo:a.hi] {
			switch {
			case e.kind == tokString:
				if err := in.show(in.bytesOf(e)); err != nil {
					return err
				}
			case e.kind == tokNumber && e.num < -200:
				// A gap of a fifth of an em or more is a word space.
				if err := out.separate(' '); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// decodeChunk is how many code bytes one Decode call of the font's
// encoding gets (a multiple of the 1-, 2- and 4-byte code widths): the
// library's decoders are not interruptible and may be slow per code.
const decodeChunk = 64

// show decodes raw with the current font and writes it.
func (in *contentInterp) show(raw []byte) error {
	for len(raw) > 0 {
		n := min(len(raw), decodeChunk)
		if err := in.x.out.WriteString(in.enc.Decode(string(raw[:n]))); err != nil {
			return err
		}
		raw = raw[n:]
	}
	return nil
}

// font returns the encoding of the page's font name.
func (in *contentInterp) font(name string) pdf.TextEncoding {
	if enc, ok := in.used[name]; ok {
		return enc
	}
	enc := in.x.encoding(in.fonts.Key(name))
	if len(in.used) < maxCachedFonts {
		in.used[name] = enc
	}
	return enc
}
