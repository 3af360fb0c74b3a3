package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"sync"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The similar-tickets lookup runs before every create. As one statement
// over a table of title words (schema versions 6 to 10) it cost a create a
// third of a millisecond of CPU, and the table cost every write that
// changed a title its own rows. The mirror answers it from memory instead:
// for each workspace a lookup has asked about, its policy, each ticket's
// header (id, title, status, owner) and each title word's ticket numbers,
// in order. It is a copy of what is committed, so it must never drift from
// the tables:
//
//   - Built from one statement (one snapshot) the first time a lookup asks
//     about a workspace; the changes committed while it is read are
//     replayed onto it before it is used (their read-back states are whole
//     rows, so replaying one already in the snapshot changes nothing).
//     Lookups that arrive meanwhile wait for that build.
//   - Kept by the committer: temporary triggers on the write connection
//     (mirrorsync.go) note every ticket and workspace row a write inserts,
//     changes in a shown column, or deletes, inside the write's own
//     savepoint, so a write that rolls back notes nothing. Before COMMIT
//     the committer reads those rows back as the batch leaves them and
//     applies them after COMMIT succeeded; a batch that did not commit
//     applies nothing. No write path has to remember the mirror.
//   - Dropped whole when anything else may have written: another
//     connection committed to the file (PRAGMA data_version, read in every
//     batch: an admin command beside the server) or the write connection
//     lost its triggers. Until the next batch notices such a write, the
//     lookup may answer without it; similar tickets inform and never
//     refuse anything.
//
// The word list of a ticket is the title tier of board.IndexWords, the words
// the word index's title column holds. TestSimilarMirrorAnswersAsTheTables
// holds the mirror to the rule applied to the tickets' rows. When the
// mirror cannot keep a workspace (it is not live), a lookup reads the
// workspace for itself (similar.go).

// mirroredTicket is what the lookup answers of a ticket. Its title's
// words are not kept (they would be most of the mirror's memory): a title
// that changes is split into words again to take the ticket out of their
// lists. id is empty when it is the usual "<workspace>-<number>".
type mirroredTicket struct {
	id, title string
	status    board.Status
	owner     *string
}

// mirroredID is a ticket's id as the mirror keeps it.
func mirroredID(workspace string, number int64, id string) string {
	if id == workspace+"-"+strconv.FormatInt(number, 10) {
		return ""
	}
	return id
}

// idOf is the ticket's id.
func (t mirroredTicket) idOf(workspace string, number int64) string {
	if t.id == "" {
		return workspace + "-" + strconv.FormatInt(number, 10)
	}
	return t.id
}

// mirroredSpace is one workspace in the mirror.
type mirroredSpace struct {
	policy  board.AIPolicy
	tickets map[int64]mirroredTicket
	// words holds, per title word, the numbers of the tickets whose title
	// has it, ascending (the newest last).
	words map[string][]int64
}

// mirrorChange is one row the read-back of a batch found: a ticket
// (number > 0) or a workspace (number 0) as the batch left it, or gone.
type mirrorChange struct {
	workspace string
	number    int64
	gone      bool
	ticket    mirroredTicket
	policy    board.AIPolicy
}

type titleMirror struct {
	mu sync.RWMutex
	// live: the write connection notes changes. Only then is the mirror
	// used or built.
	live   bool
	spaces map[string]*mirroredSpace
	// building holds each workspace being built.
	building map[string]*mirrorBuild
	// epoch counts the times the mirror was dropped: a build begun before
	// a drop is thrown away.
	epoch uint64
	// builds counts the workspaces read into the mirror (tests see
	// whether a lookup was answered by keeping it or by reading again).
	builds int
}

// mirrorBuild is a workspace being read into the mirror.
type mirrorBuild struct {
	// pending holds the changes applied since the build began, replayed
	// onto what it read before it is kept.
	pending []mirrorChange
	// done is closed when the build ends, kept or not: lookups that
	// found it under way wait for it rather than read the workspace too.
	done chan struct{}
}

func newTitleMirror() *titleMirror {
	return &titleMirror{spaces: map[string]*mirroredSpace{}, building: map[string]*mirrorBuild{}}
}

// candidates answers q from the mirror; ok is false when the workspace is
// not mirrored.
func (m *titleMirror) candidates(q board.SimilarQuery) (out []board.Ticket, ok bool, err error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	sp := m.spaces[q.Workspace]
	if !m.live || sp == nil {
		return nil, false, nil
	}
	out, err = sp.candidates(q)
	return out, true, err
}

// candidates answers q from the workspace: the policy first, then
// board.SimilarCandidateNumbers' pick from each word's newest numbers.
func (sp *mirroredSpace) candidates(q board.SimilarQuery) ([]board.Ticket, error) {
	if err := board.CheckPolicy(q.Readable, sp.policy); err != nil {
		return nil, err
	}
	if len(q.Words) == 0 {
		return nil, nil
	}
	perWord := make([][]int64, len(q.Words))
	for i, w := range q.Words {
		numbers := sp.words[w]
		newest := numbers[max(0, len(numbers)-board.SimilarPerWord):]
		perWord[i] = make([]int64, len(newest))
		for j, n := range newest {
			perWord[i][len(newest)-1-j] = n // newest first, as the rule takes them
		}
	}
	var out []board.Ticket
	for _, n := range board.SimilarCandidateNumbers(perWord, q.Exclude) {
		t := sp.tickets[n]
		out = append(out, board.Ticket{ID: t.idOf(q.Workspace, n), Workspace: q.Workspace, Number: n, Title: t.title, Status: t.status, Owner: t.owner})
	}
	return out, nil
}

// set puts a ticket's state in the workspace, replacing what it held; its
// words change only when its title did.
func (sp *mirroredSpace) set(number int64, t mirroredTicket) {
	old, had := sp.tickets[number]
	sp.tickets[number] = t
	if had && old.title == t.title {
		return
	}
	if had {
		sp.removeWords(number, old.title)
	}
	for _, w := range mirroredWords(t.title) {
		numbers := sp.words[w]
		if i, found := slices.BinarySearch(numbers, number); !found {
			sp.words[w] = slices.Insert(numbers, i, number)
		}
	}
}

func (sp *mirroredSpace) remove(number int64) {
	if old, ok := sp.tickets[number]; ok {
		delete(sp.tickets, number)
		sp.removeWords(number, old.title)
	}
}

func (sp *mirroredSpace) removeWords(number int64, title string) {
	for _, w := range mirroredWords(title) {
		numbers := sp.words[w]
		if i, found := slices.BinarySearch(numbers, number); found {
			numbers = slices.Delete(numbers, i, i+1)
		}
		if len(numbers) == 0 {
			delete(sp.words, w)
		} else {
			sp.words[w] = numbers
		}
	}
}

// applyTo puts one change in sp; false when the workspace is gone.
func (c mirrorChange) applyTo(sp *mirroredSpace) bool {
	switch {
	case c.number == 0 && c.gone:
		return false
	case c.number == 0:
		sp.policy = c.policy
	case c.gone:
		sp.remove(c.number)
	default:
		sp.set(c.number, c.ticket)
	}
	return true
}

// apply puts a committed batch's changes in the mirror.
func (m *titleMirror) apply(changes []mirrorChange) {
	if len(changes) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range changes {
		if b := m.building[c.workspace]; b != nil {
			b.pending = append(b.pending, c)
		}
		if sp := m.spaces[c.workspace]; sp != nil && !c.applyTo(sp) {
			delete(m.spaces, c.workspace)
		}
	}
}

// drop forgets every workspace (and every build under way); live says
// whether the write connection notes changes from now on.
func (m *titleMirror) drop(live bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.live = live
	m.epoch++
	clear(m.spaces)
	clear(m.building)
}

// mirrorBuildSQL reads a workspace for the mirror in one snapshot: its
// policy (number -1), then every ticket's header.
const mirrorBuildSQL = `SELECT -1, '', '', '', NULL, ai_policy FROM workspaces WHERE slug = ?1
UNION ALL
SELECT number, id, title, status, owner, NULL FROM tickets WHERE workspace = ?1`

// buildMirror reads workspace into the mirror, or waits for the build
// another lookup has under way. kept is false when nothing can be kept now:
// the mirror is not live, or it was dropped while the workspace was read
// (what was read may miss a write). exists is false when the read found no
// such workspace (then nothing is mirrored).
func (s *Store) buildMirror(ctx context.Context, workspace string) (kept, exists bool, err error) {
	m := s.mirror
	m.mu.Lock()
	if !m.live {
		m.mu.Unlock()
		return false, true, nil
	}
	if m.spaces[workspace] != nil {
		m.mu.Unlock()
		return true, true, nil
	}
	if b := m.building[workspace]; b != nil {
		m.mu.Unlock()
		if h := s.hooks.Load(); h != nil && h.mirrorWait != nil {
			h.mirrorWait()
		}
		select {
		case <-b.done:
			return true, true, nil // kept or not: the caller looks again
		case <-ctx.Done():
			return false, true, ctx.Err()
		}
	}
	epoch := m.epoch
	b := &mirrorBuild{done: make(chan struct{})}
	m.building[workspace] = b
	m.mu.Unlock()
	defer close(b.done)
	sp, err := s.readMirroredSpace(ctx, workspace)
	if h := s.hooks.Load(); h != nil && h.mirrorRead != nil {
		h.mirrorRead()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.epoch != epoch {
		return false, true, err // dropped meanwhile
	}
	delete(m.building, workspace)
	if err != nil || sp == nil {
		return false, sp != nil, err
	}
	for _, c := range b.pending {
		if !c.applyTo(sp) {
			return true, true, nil // deleted since: the caller looks again
		}
	}
	m.spaces[workspace] = sp
	m.builds++
	return true, true, nil
}

func (s *Store) readMirroredSpace(ctx context.Context, workspace string) (*mirroredSpace, error) {
	rows, err := s.read.QueryContext(ctx, mirrorBuildSQL, workspace)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var sp *mirroredSpace
	for rows.Next() {
		var number int64
		var t mirroredTicket
		var owner, policy sql.NullString
		if err := rows.Scan(&number, &t.id, &t.title, &t.status, &owner, &policy); err != nil {
			return nil, err
		}
		if number == -1 {
			sp = &mirroredSpace{policy: board.AIPolicy(policy.String), tickets: map[int64]mirroredTicket{}, words: map[string][]int64{}}
			continue
		}
		if sp == nil {
			continue // no workspace row: nothing to mirror
		}
		t.owner, t.id = stringPtr(owner), mirroredID(workspace, number, t.id)
		sp.set(number, t)
	}
	return sp, rows.Err()
}

// mirroredWords are the title's words: the title tier of the word index.
func mirroredWords(title string) []string {
	return board.IndexWords(board.Ticket{Title: title}).Title
}
