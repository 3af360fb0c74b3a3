package dynamo

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// searchTickets lists a text query's matches from the word index
// (worditems.go), title matches first, then the rest, newest first in
// each, from the cursor's tier and number on. The index only proposes
// candidates: each is read (one strongly consistent BatchGetItem per
// chunk) and checked against its current words and the other filters, and
// kept only in the tier its words put it in now. So an item left from an
// edit costs a read, never a wrong answer.
//
// Where the candidates come from:
//
//   - one whole word: its items, which run in (tier, number) order
//     already; one Query of limit + 1 items, then one BatchGetItem of
//     their tickets: 2 requests and 2 × (limit + 1) items for a full page;
//   - several terms: the longest whole word's items; tier 0 from its title
//     items, tier 1 from its title and other items merged by number, the
//     other terms checked on the tickets (within MaxScan examined);
//   - a prefix alone: every item of the words that begin with it, in one
//     Query (at most prefixMax of them, or the query is refused), ordered
//     by tier and number here.
func (s *Store) searchTickets(ctx context.Context, q board.TicketQuery, b *pageBuilder) error {
	search, err := board.ParseSearch(q.Query)
	if err != nil {
		return err
	}
	src, err := s.searchSource(ctx, q, search)
	if err != nil {
		return err
	}
	var (
		examined int
		last     posting
		pushed   *posting
		chunk    = min(b.limit+1, batchGetMax)
	)
	next := func() (posting, bool, error) {
		if pushed != nil {
			p := *pushed
			pushed = nil
			return p, true, nil
		}
		return src(ctx)
	}
	for {
		var cands []posting
		for len(cands) < min(chunk, b.scan-examined) {
			p, ok, err := next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			cands = append(cands, p)
		}
		if len(cands) == 0 {
			return nil
		}
		tickets, err := s.readCandidates(ctx, q.Workspace, cands)
		if err != nil {
			return err
		}
		for i, c := range cands {
			examined++
			last = c
			t := tickets[i]
			if t == nil {
				continue // gone since the index saw it
			}
			if tier, ok := q.Matches(*t, &search); ok && tier == c.tier {
				if !b.add(*t) {
					return nil
				}
				b.page.NextTier = c.tier
			}
		}
		if examined >= b.scan {
			p, ok, err := next()
			if err != nil || !ok {
				return err
			}
			pushed = &p
			b.stopAt(last.number)
			b.page.NextTier = last.tier
			return nil
		}
		chunk = min(chunk*2, batchGetMax)
	}
}

// posting is one candidate: a ticket number in a tier.
type posting struct {
	tier   int
	number int64
}

// candidateSource yields candidates in page order; false when none is left.
type candidateSource func(ctx context.Context) (posting, bool, error)

// searchSource picks where a search's candidates come from (see
// searchTickets).
func (s *Store) searchSource(ctx context.Context, q board.TicketQuery, search board.Search) (candidateSource, error) {
	if len(search.Words) == 0 {
		return s.prefixSource(ctx, q, search.Prefix)
	}
	word, known, none, err := s.drivingWord(ctx, q, search.Words)
	if err != nil || none {
		return sliceSource(nil), err
	}
	from := func(tier int) string { // the first sort key of tier at the cursor
		if tier == q.Tier && q.Before > 0 {
			return word + wordSep + fmt.Sprint(tier) + invertedNumber(q.Before-1)
		}
		return word + wordSep + fmt.Sprint(tier)
	}
	through := func(tier int) string { return word + wordSep + fmt.Sprint(tier) + ":" } // ':' sorts after the digits
	if search.Terms() == 1 {
		return s.wordRange(q, word, from(q.Tier), word+wordEnd).next, nil
	}
	// Tier 1 merges the title items too: a ticket is in tier 1 with the
	// driving word in its title when another term is not.
	var title, titleAgain, other candidateSource
	switch {
	case known != nil:
		// The probe read every item of the word: no more Queries.
		below := func(tier int) []posting {
			var out []posting
			for _, p := range known {
				if p.tier == tier && (q.Before == 0 || p.number < q.Before || tier > q.Tier) {
					out = append(out, p)
				}
			}
			return out
		}
		titleAgain, other = sliceSource(below(0)), sliceSource(below(1))
		if q.Tier == 0 {
			// Tier 1 starts from the top: every title item again.
			title, titleAgain = sliceSource(below(0)), sliceSource(known[:countTier(known, 0)])
		}
	case q.Tier == 0 && q.Before == 0:
		// Its title items are read once: tier 0 walks them and keeps
		// them, tier 1 merges what was kept.
		walk := s.wordRange(q, word, from(0), through(0))
		walk.keep = true
		title = walk.next
		titleAgain = func(context.Context) (posting, bool, error) {
			if len(walk.kept) == 0 {
				return posting{}, false, nil
			}
			p := walk.kept[0]
			walk.kept = walk.kept[1:]
			return p, true, nil
		}
		other = s.wordRange(q, word, from(1), through(1)).next
	case q.Tier == 0:
		// Tier 0 continues below the cursor; tier 1 starts from the top.
		title = s.wordRange(q, word, from(0), through(0)).next
		titleAgain, other = s.wordRange(q, word, word+wordSep+"0", through(0)).next, s.wordRange(q, word, from(1), through(1)).next
	default:
		lo := word + wordSep + "0"
		if q.Before > 0 {
			lo += invertedNumber(q.Before - 1)
		}
		titleAgain, other = s.wordRange(q, word, lo, through(0)).next, s.wordRange(q, word, from(1), through(1)).next
	}
	merged := mergeByNumber(titleAgain, other)
	return func(ctx context.Context) (posting, bool, error) {
		if title != nil {
			p, ok, err := title(ctx)
			if err != nil || ok {
				return p, ok, err
			}
			title = nil
		}
		return merged(ctx)
	}, nil
}

// drivingWord picks the whole word whose items drive a search of several
// words: the rarest, judged by one Query of each word's first page + 1
// items, sent at once (keys only, a few KB). A word with no item at all
// means no ticket matches (none). A word whose items all fit the page is
// the rarest if it has the fewest (and then its items, all read, are
// known); otherwise the sparsest wins: the word whose first page spans the
// most ticket numbers per item, since its candidates are the fewest to
// check per match. One word: no probe.
func (s *Store) drivingWord(ctx context.Context, q board.TicketQuery, words []string) (word string, known []posting, none bool, err error) {
	if len(words) == 1 {
		return words[0], nil, false, nil
	}
	type probe struct {
		items   []posting
		done    bool
		err     error
		spacing float64
	}
	probes := make([]probe, len(words))
	var wg sync.WaitGroup
	for i, w := range words {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := s.wordRange(q, w, w+wordSep, w+wordEnd)
			for { // the first page only
				x, ok, err := p.next(ctx)
				if err != nil {
					probes[i].err = err
					return
				}
				if !ok {
					probes[i].done = true
					break
				}
				probes[i].items = append(probes[i].items, x)
				if len(p.buf) == 0 && !p.done {
					break // the first page is read; the rest would be another Query
				}
			}
			if len(probes[i].items) > 1 {
				lo, hi := probes[i].items[0].number, probes[i].items[0].number
				for _, x := range probes[i].items {
					lo, hi = min(lo, x.number), max(hi, x.number)
				}
				probes[i].spacing = float64(hi-lo) / float64(len(probes[i].items)-1)
			}
		}()
	}
	wg.Wait()
	best := -1
	for i, p := range probes {
		switch {
		case p.err != nil:
			return "", nil, false, p.err
		case p.done && len(p.items) == 0:
			return "", nil, true, nil
		case best < 0:
			best = i
		case p.done && (!probes[best].done || len(p.items) < len(probes[best].items)):
			best = i
		case !p.done && !probes[best].done && p.spacing > probes[best].spacing:
			best = i
		}
	}
	if probes[best].done {
		known = probes[best].items
	}
	return words[best], known, false, nil
}

// countTier is how many of ps, in (tier, number) order, are in tier.
func countTier(ps []posting, tier int) int {
	n := 0
	for _, p := range ps {
		if p.tier == tier {
			n++
		}
	}
	return n
}

// sliceSource yields postings already read, in order.
func sliceSource(ps []posting) candidateSource {
	return func(context.Context) (posting, bool, error) {
		if len(ps) == 0 {
			return posting{}, false, nil
		}
		p := ps[0]
		ps = ps[1:]
		return p, true, nil
	}
}

// mergeByNumber merges two sources newest first, each number once, as
// tier 1 candidates.
func mergeByNumber(a, b candidateSource) candidateSource {
	var pa, pb *posting
	var doneA, doneB bool
	fill := func(ctx context.Context, src candidateSource, p **posting, done *bool) error {
		if *p != nil || *done {
			return nil
		}
		x, ok, err := src(ctx)
		if err != nil {
			return err
		}
		if !ok {
			*done = true
			return nil
		}
		*p = &x
		return nil
	}
	return func(ctx context.Context) (posting, bool, error) {
		if err := fill(ctx, a, &pa, &doneA); err != nil {
			return posting{}, false, err
		}
		if err := fill(ctx, b, &pb, &doneB); err != nil {
			return posting{}, false, err
		}
		var n int64
		switch {
		case pa == nil && pb == nil:
			return posting{}, false, nil
		case pb == nil || pa != nil && pa.number >= pb.number:
			n = pa.number
		default:
			n = pb.number
		}
		if pa != nil && pa.number == n {
			pa = nil
		}
		if pb != nil && pb.number == n {
			pb = nil
		}
		return posting{tier: 1, number: n}, true, nil
	}
}

// postings reads one range of a word's items in sort key order, a page
// at a time: limit + 1 items first, four times as many each page after.
type postings struct {
	s    *Store
	in   *dynamodb.QueryInput
	buf  []posting
	ask  int
	done bool
	// keep: every posting yielded is also kept, to be yielded again.
	keep bool
	kept []posting
}

// wordRange reads word's items with sort keys from lo through hi.
func (s *Store) wordRange(q board.TicketQuery, word, lo, hi string) *postings {
	limit := q.Limit
	if limit <= 0 {
		limit = board.DefaultLimit
	}
	return &postings{s: s, ask: limit + 1, in: &dynamodb.QueryInput{
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(wordPartition(q.Workspace, word)), ":lo": str(lo), ":hi": str(hi)},
	}}
}

func (p *postings) next(ctx context.Context) (posting, bool, error) {
	for len(p.buf) == 0 && !p.done {
		p.in.Limit = aws.Int32(int32(p.ask))
		out, err := p.s.queryWords(ctx, p.in)
		if err != nil {
			return posting{}, false, err
		}
		for _, item := range out.Items {
			_, tier, n, err := parseWordSK(getS(item, attrSK))
			if err != nil {
				return posting{}, false, err
			}
			p.buf = append(p.buf, posting{tier, n})
		}
		p.done = len(out.LastEvaluatedKey) == 0
		p.in.ExclusiveStartKey = out.LastEvaluatedKey
		p.ask = min(p.ask*growth, board.DefaultScan)
	}
	if len(p.buf) == 0 {
		return posting{}, false, nil
	}
	x := p.buf[0]
	p.buf = p.buf[1:]
	if p.keep {
		p.kept = append(p.kept, x)
	}
	return x, true, nil
}

// prefixMax bounds the index items a prefix alone may match: they are
// read in one Query (about 70 bytes each, well within its 1 MB) and
// ordered here.
const prefixMax = 4000

// prefixSource reads every item of the words beginning with prefix and
// yields each (tier, number) once, in page order, from the cursor on.
func (s *Store) prefixSource(ctx context.Context, q board.TicketQuery, prefix string) (candidateSource, error) {
	out, err := s.queryWords(ctx, &dynamodb.QueryInput{
		KeyConditionExpression:   aws.String("#pk = :pk AND begins_with(#sk, :p)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(wordPartition(q.Workspace, prefix)), ":p": str(prefix)},
		Limit: aws.Int32(prefixMax + 1),
	})
	if err != nil {
		return nil, err
	}
	if len(out.Items) > prefixMax || len(out.LastEvaluatedKey) > 0 {
		return nil, board.Errorf(board.CodeInvalid, "the words beginning with %q are too many in workspace %s to rank (over %d); type more of the word, or end it with a space to find it whole",
			prefix, q.Workspace, prefixMax)
	}
	seen := map[posting]bool{}
	var all []posting
	for _, item := range out.Items {
		_, tier, n, err := parseWordSK(getS(item, attrSK))
		if err != nil {
			return nil, err
		}
		p := posting{tier, n}
		after := tier > q.Tier || tier == q.Tier && (q.Before == 0 || n < q.Before)
		if after && !seen[p] {
			seen[p] = true
			all = append(all, p)
		}
	}
	slices.SortFunc(all, func(a, b posting) int {
		if a.tier != b.tier {
			return a.tier - b.tier
		}
		return -cmpInt64(a.number, b.number)
	})
	return func(context.Context) (posting, bool, error) {
		if len(all) == 0 {
			return posting{}, false, nil
		}
		p := all[0]
		all = all[1:]
		return p, true, nil
	}, nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// readCandidates reads the candidates' tickets, strongly consistent, each
// once; nil where a ticket is gone.
func (s *Store) readCandidates(ctx context.Context, workspace string, cands []posting) ([]*board.Ticket, error) {
	var keys []map[string]types.AttributeValue
	at := map[int64]int{}
	for _, c := range cands {
		if _, ok := at[c.number]; !ok {
			at[c.number] = len(keys)
			keys = append(keys, ticketKey(fmt.Sprintf("%s-%d", workspace, c.number)))
		}
	}
	found, err := s.batchRead(ctx, keys, true, "#pk, #sk, #doc, #docz, #num, #ob",
		map[string]string{"#pk": attrPK, "#sk": attrSK, "#doc": attrDoc, "#docz": zipped(attrDoc), "#num": attrNum, "#ob": attrOpenBlockers})
	if err != nil {
		return nil, err
	}
	out := make([]*board.Ticket, len(cands))
	for i, c := range cands {
		item := found[at[c.number]]
		if item == nil {
			continue
		}
		t, err := decodeTicket(item)
		if err != nil {
			return nil, err
		}
		out[i] = &t
	}
	return out, nil
}
