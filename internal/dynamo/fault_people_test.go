package dynamo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestLostAnswersOnPeopleWrites: a person or token put whose first answer
// was lost is resent by the SDK; the resend meets the first attempt's item
// and must still succeed, while a genuinely taken handle or token id is
// still refused.
func TestLostAnswersOnPeopleWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, inj, _ := faultyStore(t)
	now := time.Now().UTC()
	alice := board.Person{Handle: "alice", Name: "Alice", Role: board.RoleMember, CreatedAt: now}

	// A person alone goes out as PutItem.
	inj.arm("PutItem", faultLostResponse)
	if err := s.CreatePerson(ctx, alice, nil); err != nil {
		t.Fatalf("create person after a lost answer: %v, want success", err)
	}
	if got := inj.count("PutItem"); got != 1 {
		t.Fatalf("%d faults applied, want 1", got)
	}
	if got, err := s.GetPerson(ctx, "alice"); err != nil || got.Name != "Alice" {
		t.Fatalf("stored person %+v, %v", got, err)
	}
	other := alice
	other.Name = "Another Alice"
	other.CreatedAt = now.Add(time.Millisecond)
	if err := s.CreatePerson(ctx, other, nil); !errors.Is(err, board.ErrExists) {
		t.Fatalf("second person with alice's handle: %v, want ErrExists", err)
	}

	tok := board.APIToken{ID: "0123456789abcdef", Hash: "0123456789abcdef00", Handle: "alice", Label: "ci", CreatedBy: "alice", CreatedAt: now}
	inj.arm("TransactWriteItems", faultLostResponse)
	if err := s.CreateToken(ctx, tok); err != nil {
		t.Fatalf("create token after a lost answer: %v, want success", err)
	}
	if got := inj.count("TransactWriteItems"); got != 1 {
		t.Fatalf("%d faults applied, want 2", got)
	}
	clash := tok
	clash.Hash = "0123456789abcdef11"
	if err := s.CreateToken(ctx, clash); !errors.Is(err, board.ErrExists) {
		t.Fatalf("another token with the same id: %v, want ErrExists", err)
	}
}

// TestLostAnswerOnOAuthCode: an authorization code put whose answer was
// lost is still issued once, and a clash of hashes is still refused.
func TestLostAnswerOnOAuthCode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, inj, _ := faultyStore(t)
	now := time.Now().UTC()
	code := board.OAuthCode{Hash: "c0de", ClientID: "client", RedirectURI: "http://127.0.0.1:9/cb", Challenge: "x",
		Handle: "alice", GrantID: "grant-1", CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
	inj.arm("PutItem", faultLostResponse)
	if err := s.CreateOAuthCode(ctx, code); err != nil {
		t.Fatalf("create code after a lost answer: %v, want success", err)
	}
	if got := inj.count("PutItem"); got != 1 {
		t.Fatalf("%d faults applied, want 1", got)
	}
	clash := code
	clash.GrantID = "grant-2"
	if err := s.CreateOAuthCode(ctx, clash); !errors.Is(err, board.ErrExists) {
		t.Fatalf("another code with the same hash: %v, want ErrExists", err)
	}
}
