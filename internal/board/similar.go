package board

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Similar tickets: when a ticket is created (and while a person types a
// new ticket's title on the board), the open tickets of the workspace whose
// titles share most words with the new title, so an agent or a person can
// add a note to the existing ticket instead of filing a duplicate. It
// informs; it never refuses a create.
//
// The rule, the same on every store:
//   - the new title's words (Words: folded, repeats dropped), of at least
//     similarMinRunes runes when there are any such (so "a", "of" and "is"
//     do not make two titles similar) or pairs of a CJK run, the
//     SimilarWords longest of them (similarWords);
//   - for each, the SimilarPerWord newest tickets of the workspace whose
//     title has it (the word index's title tier);
//   - the tickets found for at least half of those words (rounded up),
//     most shared words first, then newest; the SimilarCandidates first are
//     read, and those open (not done), with the words still in their title
//     (an edit may have changed it since), are the answer: at most
//     MaxSimilar.
const (
	MaxSimilar        = 3
	SimilarWords      = 8
	SimilarPerWord    = 20
	SimilarCandidates = 10
	similarMinRunes   = 3
)

// SimilarQuery asks a store for the candidates of similar tickets.
type SimilarQuery struct {
	Workspace string
	// Words are the title words looked up (similarWords gives them).
	Words []string
	// Exclude is a ticket never to return (the one just created); 0: none.
	Exclude int64
	// Readable: as TicketQuery's.
	Readable []AIPolicy
}

// SimilarStore finds the candidates of similar tickets. It is part of
// Store (every backend implements it and runs the storetest suite).
type SimilarStore interface {
	// SimilarCandidates reads, for each word, the numbers of the
	// SimilarPerWord newest tickets of the workspace with the word in their
	// title, picks the candidates with SimilarCandidateNumbers, and returns
	// those tickets (in its order; any it cannot find are left out). Only
	// their ID, Workspace, Number, Title, Status and Owner are read by the
	// rule and shown: a store may leave the other fields empty.
	// ErrNotFound when the workspace does not exist; *PolicyError (nothing
	// read) when its policy is not in q.Readable.
	SimilarCandidates(ctx context.Context, q SimilarQuery) ([]Ticket, error)
}

// SimilarTicket is one similar ticket in an answer.
type SimilarTicket struct {
	ID     string  `json:"id"`
	Title  string  `json:"title"`
	Status Status  `json:"status"`
	Owner  *string `json:"owner"`
	URL    string  `json:"url"`
	// SharedWords is how many of the new title's words its title has.
	SharedWords int `json:"shared_words"`
}

// similarWords are the words of title that similarity looks up. A pair
// of a CJK run always counts (the minimum length is for words between
// spaces), a pair with Hiragana after the others (particles such as の
// and を make them, so they tell less).
func similarWords(title string) []string {
	var all, long []string
	for _, w := range Words(title) {
		if slices.Contains(all, w) {
			continue
		}
		all = append(all, w)
		if isCJKWord(w) || utf8.RuneCountInString(w) >= similarMinRunes {
			long = append(long, w)
		}
	}
	if len(long) > 0 {
		all = long
	}
	// The longest first (rarer, so more telling); equal weights keep the
	// title's order.
	slices.SortStableFunc(all, func(a, b string) int { return similarWeight(b) - similarWeight(a) })
	return all[:min(len(all), SimilarWords)]
}

// similarWeight orders the words similarity looks up: a word by its
// length, a pair as 2, or 1 when it has Hiragana.
func similarWeight(w string) int {
	if !isCJKWord(w) {
		return utf8.RuneCountInString(w)
	}
	for _, r := range w {
		if unicode.Is(unicode.Hiragana, r) {
			return 1
		}
	}
	return 2
}

// SimilarNeed is how many of n words a title must share.
func SimilarNeed(n int) int { return max(1, (n+1)/2) }

// SimilarCandidateNumbers picks the candidates from the word index's
// answer: perWord[i] are the numbers found for the query's word i. The
// numbers found for at least half the words, most words first, then
// newest, at most SimilarCandidates; never exclude.
func SimilarCandidateNumbers(perWord [][]int64, exclude int64) []int64 {
	shared := map[int64]int{}
	for _, numbers := range perWord {
		for _, n := range slices.Compact(slices.Clone(numbers)) {
			if n != exclude {
				shared[n]++
			}
		}
	}
	need := SimilarNeed(len(perWord))
	var out []int64
	for n, k := range shared {
		if k >= need {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b int64) int {
		return cmp.Or(cmp.Compare(shared[b], shared[a]), cmp.Compare(b, a))
	})
	return out[:min(len(out), SimilarCandidates)]
}

// rankSimilar checks the candidates on what they are now and answers the
// open ones that still share enough words, most shared first, then newest.
func rankSimilar(words []string, candidates []Ticket) []SimilarTicket {
	type scored struct {
		t      Ticket
		shared int
	}
	var keep []scored
	for _, t := range candidates {
		if t.Status == StatusDone {
			continue
		}
		n := sharedWords(t.Title, words)
		if n >= SimilarNeed(len(words)) {
			keep = append(keep, scored{t, n})
		}
	}
	slices.SortFunc(keep, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.shared, a.shared), cmp.Compare(b.t.Number, a.t.Number))
	})
	out := []SimilarTicket{}
	for _, s := range keep[:min(len(keep), MaxSimilar)] {
		out = append(out, SimilarTicket{ID: s.t.ID, Title: s.t.Title, Status: s.t.Status, Owner: s.t.Owner, URL: s.t.URL, SharedWords: s.shared})
	}
	return out
}

// sharedWords counts the words (of similarWords: distinct, at most
// SimilarWords) that title has among its Words. It runs for every
// candidate of every create, so it walks the title's words without
// building their list.
func sharedWords(title string, words []string) int {
	var found [SimilarWords]bool
	has := found[:0]
	if len(words) > len(found) {
		has = make([]bool, 0, len(words))
	}
	has = has[:len(words)]
	mark := func(w string) {
		for i, q := range words {
			if q == w {
				has[i] = true
			}
		}
	}
	scanTokens(title, mark, func(chars []string) {
		for i := 0; i+1 < len(chars); i++ {
			mark(chars[i] + chars[i+1])
		}
	})
	n := 0
	for _, h := range has {
		if h {
			n++
		}
	}
	return n
}

// SimilarInput asks for the open tickets of a workspace whose titles are
// like Title (the board's new-ticket form, as a person types).
type SimilarInput struct {
	Workspace string
	Title     string
	// Exclude is a ticket never to answer (the one just created): its id.
	Exclude string
}

// SimilarTickets answers the open tickets of the workspace whose titles
// share most words with in.Title (at most MaxSimilar; none when the title
// has no words). The caller must be able to read the workspace.
func (s *Service) SimilarTickets(ctx context.Context, in SimilarInput) ([]SimilarTicket, error) {
	if err := ValidateSlug(in.Workspace); err != nil {
		return nil, err
	}
	words := similarWords(in.Title)
	if len(words) == 0 {
		return []SimilarTicket{}, nil
	}
	var exclude int64
	if in.Exclude != "" {
		ws, n, err := ParseTicketID(in.Exclude)
		if err == nil && ws == in.Workspace {
			exclude = n
		}
	}
	candidates, err := s.store.SimilarCandidates(ctx, SimilarQuery{Workspace: in.Workspace, Words: words, Exclude: exclude,
		Readable: readablePolicies(PrincipalFrom(ctx))})
	var denied *PolicyError
	if errors.Is(err, ErrNotFound) || errors.As(err, &denied) {
		return nil, workspaceNotFound(in.Workspace) // a hidden workspace does not exist for its caller
	}
	if err != nil {
		return nil, s.storeFailure(err)
	}
	return rankSimilar(words, s.shownTickets(candidates)), nil
}

// CreatedTicket answers create_ticket: the ticket written (exactly once,
// as TicketResult) and the open tickets like it, found once before the
// write and stored with the result.
type CreatedTicket struct {
	TicketResult
	// Similar are up to MaxSimilar open tickets of the workspace whose
	// titles share most words with this one (the ticket itself never):
	// look at them, and add a note to one instead if it is the same
	// matter. Found when the ticket was created and stored with it, so a
	// replay answers the same ones (a record stored without them answers
	// none).
	Similar []SimilarTicket `json:"similar" jsonschema:"up to 3 open tickets of the workspace whose titles share most words with this one: if one is the same matter, add a note there"`
	// encoded is this answer's JSON, when it is the answer the write built
	// and stored in its request record (Encoded).
	encoded []byte
}

// Encoded is the answer's JSON when it is at hand already: the first
// answer of a create is the one its request record stored, encoded once
// for the record. Nil otherwise (a replay, an answer changed since). An
// adapter sends these bytes as they are instead of encoding the answer
// again; they are what encoding/json makes of it.
func (c *CreatedTicket) Encoded() []byte { return c.encoded }

// CreateTicketFindingSimilar creates a ticket (CreateTicket) and answers it
// with the similar tickets, found once before the write and stored with
// its result: a replay answers exactly what the first answer said. Finding
// them never fails the create: when the lookup fails the write stands, the
// failure is logged and Similar is empty (and stays so on a replay).
func (s *Service) CreateTicketFindingSimilar(ctx context.Context, in CreateTicketInput) (CreatedTicket, error) {
	return s.createTicket(ctx, in, true)
}

// similarForCreate looks up the similar tickets of a ticket about to be
// created in workspace with title (it does not exist yet, so nothing is
// excluded). A failure answers none; a workspace that is missing or hidden
// from the caller is logged by nothing here, since the write refuses it.
func (s *Service) similarForCreate(ctx context.Context, workspace, title string) []SimilarTicket {
	similar, err := s.SimilarTickets(ctx, SimilarInput{Workspace: workspace, Title: title})
	if err != nil {
		if ErrorCode(err) != CodeNotFound {
			s.log.Warn("finding similar tickets for a new ticket failed; answered without them", "workspace", workspace, "err", err)
		}
		return []SimilarTicket{}
	}
	return similar
}
