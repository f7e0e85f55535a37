package chunker

// pack packs units greedily into chunks. Each chunk after the first starts
// with the longest run of whole sentences ending the previous chunk that
// counts at most OverlapTokens and still leaves room for the next unit.
func (p *planner) pack(units []unit) []piece {
	if len(units) == 0 {
		return nil
	}
	var out []piece
	a, overlap := 0, 0 // the chunk is units[a:b]; units[a:a+overlap] repeat
	body := p.text(units[0])
	for b := 1; b < len(units); b++ {
		if next := body + units[b].sep + p.text(units[b]); p.fits(next) {
			body = next
			continue
		}
		out = append(out, p.piece(units, a, overlap, body))
		k := b
		if p.opts.OverlapTokens > 0 {
			for k > a && units[k-1].overlappable && p.count(p.join(units, k-1, b)) <= p.opts.OverlapTokens {
				k--
			}
			for k < b && !p.fits(p.join(units, k, b+1)) {
				k++
			}
		}
		a, overlap = k, b-k
		body = p.join(units, a, b+1)
	}
	return append(out, p.piece(units, a, overlap, body))
}

// piece renders a chunk whose body starts with units[a] and whose first
// overlap units repeat the previous chunk.
func (p *planner) piece(units []unit, a, overlap int, body string) piece {
	content := p.prefix + body
	fresh := len(p.prefix)
	if overlap > 0 {
		fresh += len(p.join(units, a, a+overlap)) + len(units[a+overlap].sep)
	}
	return piece{
		Chunk:      Chunk{Content: content, Tokens: p.count(content), Heading: p.heading},
		bodyStart:  len(p.prefix),
		freshStart: fresh,
	}
}
