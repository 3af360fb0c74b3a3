package sqlite

import (
	"context"
	"fmt"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// similarAttempts bounds how often a lookup tries to answer from the
// mirror before it reads the workspace for itself: each try either answers
// or builds (or waits for a build), and only a drop racing the build, or
// the workspace deleted meanwhile, makes one try fail.
const similarAttempts = 3

// SimilarCandidates answers, from the mirror (similarmirror.go), the
// workspace's policy and the candidate tickets board.SimilarCandidateNumbers
// picks from each word's newest title matches, in its order. Only ID,
// Workspace, Number, Title, Status and Owner are filled: an answer shows no
// other field of a similar ticket. A workspace not mirrored yet is read
// into it first (one statement, once per workspace and process); when the
// mirror cannot keep it (it is not live, or drops keep racing the build),
// the lookup reads the workspace for this answer alone.
func (s *Store) SimilarCandidates(ctx context.Context, q board.SimilarQuery) ([]board.Ticket, error) {
	if len(q.Words) > board.SimilarWords {
		return nil, fmt.Errorf("similar tickets: %d words asked, at most %d are looked up", len(q.Words), board.SimilarWords)
	}
	for range similarAttempts {
		if found, ok, err := s.mirror.candidates(q); ok {
			return found, err
		}
		kept, exists, err := s.buildMirror(ctx, q.Workspace)
		if err != nil {
			return nil, err
		}
		if !exists {
			return nil, board.ErrNotFound
		}
		if !kept {
			break
		}
	}
	return s.similarFromSnapshot(ctx, q)
}

// similarFromSnapshot answers q from one read of the workspace, kept
// nowhere: what the mirror answers when it holds the workspace as
// committed, so the tests hold the mirror to it too.
func (s *Store) similarFromSnapshot(ctx context.Context, q board.SimilarQuery) ([]board.Ticket, error) {
	sp, err := s.readMirroredSpace(ctx, q.Workspace)
	if err != nil {
		return nil, err
	}
	if sp == nil {
		return nil, board.ErrNotFound
	}
	return sp.candidates(q)
}
