package auth

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// API tokens (docs/decisions.md, "API tokens"): tl_ and 256 random bits,
// stored as the SHA-256 of the whole token, bound to a person and, for an
// agent, the agent's name. The token's id is the first 16 hex digits of
// that hash: it names the token in lists and revocations, and finding a
// token by what a caller presents is one read by id.
const (
	// TokenPrefix marks an API token, so the resolver knows which verifier
	// a bearer token is for (OAuth access tokens carry their own prefix)
	// and secret scanners can recognise a leaked one.
	TokenPrefix = "tl_"
	// TokenTouchEvery is the granularity of last_used_at: a use is written
	// only when the recorded one is at least this old, so a busy token
	// costs one write a minute (across all instances), not one per call.
	TokenTouchEvery = time.Minute
	tokenIDLen      = 16
)

// NewTokenSecret returns a new API token: TokenPrefix and 256 random bits.
func NewTokenSecret() string { return TokenPrefix + NewSecret() }

// wellFormedToken rejects what NewTokenSecret never makes, before any read.
func wellFormedToken(s string) bool {
	rest, ok := strings.CutPrefix(s, TokenPrefix)
	return ok && wellFormedSecret(rest)
}

// TokenID is the id of the token whose secret is given.
func TokenID(secret string) string { return HashSecret(secret)[:tokenIDLen] }

func validTokenID(id string) bool {
	if len(id) != tokenIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// CreateTokenInput makes a token.
type CreateTokenInput struct {
	// Handle is the person the token belongs to; "" is the caller.
	Handle string
	// Agent, if set, makes the token an agent's (ai:<Agent>) acting for the
	// person; "" makes it the person's own.
	Agent string
	Label string
	// Secret, if set, is the token to store (a NewTokenSecret the web form
	// carried), so a form submitted twice shows the same token instead of
	// making a second one. Empty: a new one.
	Secret string
}

// CreatedToken is a new token: Secret is shown once and never stored.
type CreatedToken struct {
	Secret string
	Token  board.APIToken
}

// selfHandle is the handle of a person caller, "" for anyone else.
func selfHandle(p board.Principal) string {
	if p.IsAI() {
		return ""
	}
	h, ok := strings.CutPrefix(p.Author, "human:")
	if !ok {
		return "" // the operator is no person
	}
	return h
}

// mayManageTokens says whether p may make, list or revoke handle's tokens:
// people their own, admins (and the operator) anyone's, agents none.
func mayManageTokens(p board.Principal, handle string) error {
	if p.IsAI() {
		return board.Errorf(board.CodeForbidden, "agents cannot make, list or revoke API tokens; a person does that on the web board (My tokens)")
	}
	if handle != selfHandle(p) && !p.IsAdmin() {
		return board.Errorf(board.CodeForbidden, "you can manage your own API tokens only; ask an admin for anyone else's")
	}
	return nil
}

// CreateToken makes an API token for a person (themselves, or anyone when
// an admin or the operator asks) and returns it, once.
func (a *Accounts) CreateToken(ctx context.Context, in CreateTokenInput) (CreatedToken, error) {
	p := board.PrincipalFrom(ctx)
	if p.IsAI() {
		return CreatedToken{}, mayManageTokens(p, in.Handle)
	}
	if in.Handle == "" {
		in.Handle = selfHandle(p)
		if in.Handle == "" {
			return CreatedToken{}, board.Errorf(board.CodeForbidden, "API tokens belong to people: say whose (--for <handle>)")
		}
	}
	if err := mayManageTokens(p, in.Handle); err != nil {
		return CreatedToken{}, err
	}
	if err := board.ValidateHandle(in.Handle); err != nil {
		return CreatedToken{}, err
	}
	if in.Agent != "" {
		name, err := board.ValidateAgentName(in.Agent)
		if err != nil {
			return CreatedToken{}, board.InField("agent", err)
		}
		in.Agent = name
	}
	if err := board.ValidateTokenLabel(in.Label); err != nil {
		return CreatedToken{}, board.InField("label", err)
	}
	if in.Secret != "" && !wellFormedToken(in.Secret) {
		return CreatedToken{}, board.Errorf(board.CodeInvalid, "the form's token is malformed; reload the page and submit again")
	}
	person, err := a.store.GetPerson(ctx, in.Handle)
	if errors.Is(err, board.ErrNotFound) {
		return CreatedToken{}, personNotFound(in.Handle)
	}
	if err != nil {
		return CreatedToken{}, a.failure(err)
	}
	if person.Disabled {
		return CreatedToken{}, board.Errorf(board.CodeInvalid, "%s is disabled; enable them before making a token", person.Author())
	}
	secret := in.Secret
	for attempt := 0; ; attempt++ {
		if in.Secret == "" {
			secret = NewTokenSecret()
		}
		hash := HashSecret(secret)
		tok := board.APIToken{ID: hash[:tokenIDLen], Hash: hash, Handle: in.Handle, Agent: in.Agent, Label: in.Label,
			CreatedBy: p.Author, CreatedAt: a.now()}
		err := a.store.CreateToken(ctx, tok)
		if err == nil {
			return CreatedToken{Secret: secret, Token: tok}, nil
		}
		if errors.Is(err, board.ErrNotFound) {
			return CreatedToken{}, personNotFound(in.Handle)
		}
		if !errors.Is(err, board.ErrExists) {
			return CreatedToken{}, a.failure(err)
		}
		if in.Secret != "" {
			// The same form again: its token exists, so this is a replay.
			prev, gerr := a.store.GetToken(ctx, tok.ID)
			if gerr == nil && prev.Hash == hash && prev.Handle == in.Handle {
				return CreatedToken{Secret: secret, Token: prev}, nil
			}
			return CreatedToken{}, board.Errorf(board.CodeConflict, "this form's token cannot be made; reload the page and submit again")
		}
		if attempt == 2 { // 64-bit ids colliding three times: not chance
			return CreatedToken{}, a.failure(errors.New("token ids keep colliding"))
		}
	}
}

// Tokens lists handle's tokens (the caller's own, or anyone's for an
// admin); "" lists everyone's (admins only).
func (a *Accounts) Tokens(ctx context.Context, handle string) ([]board.APIToken, error) {
	p := board.PrincipalFrom(ctx)
	if handle == "" && !p.IsAdmin() {
		return nil, board.Errorf(board.CodeForbidden, "only admins list everyone's tokens")
	}
	if handle != "" {
		if err := mayManageTokens(p, handle); err != nil {
			return nil, err
		}
	}
	out, err := a.store.ListTokens(ctx, handle)
	if err != nil {
		return nil, a.failure(err)
	}
	return out, nil
}

// RevokeToken revokes a token by id: the owner's own, or anyone's for an
// admin. Another person's token answers as if it did not exist. It stops
// working at the next call on every instance: every call reads the token.
func (a *Accounts) RevokeToken(ctx context.Context, id string) (board.APIToken, error) {
	tok, err := a.TokenToRevoke(ctx, id)
	if err != nil {
		return board.APIToken{}, err
	}
	now := a.now()
	if err := a.store.RevokeToken(ctx, id, now); err != nil {
		return board.APIToken{}, a.failure(err)
	}
	if tok.RevokedAt == nil {
		tok.RevokedAt = &now
	}
	return tok, nil
}

// TokenToRevoke returns the token id names if the caller may revoke it,
// and refuses as RevokeToken does otherwise (another person's token is
// not_found), without revoking anything. The board asks "Revoke token …?"
// only after it, so nobody is offered to confirm what they may not do.
func (a *Accounts) TokenToRevoke(ctx context.Context, id string) (board.APIToken, error) {
	p := board.PrincipalFrom(ctx)
	gone := board.Errorf(board.CodeNotFound, "no API token has the id '%s'; see the list of tokens", id)
	if !validTokenID(id) {
		return board.APIToken{}, gone
	}
	tok, err := a.store.GetToken(ctx, id)
	if errors.Is(err, board.ErrNotFound) {
		return board.APIToken{}, gone
	}
	if err != nil {
		return board.APIToken{}, a.failure(err)
	}
	if err := mayManageTokens(p, tok.Handle); err != nil {
		if p.IsAI() {
			return board.APIToken{}, err
		}
		return board.APIToken{}, gone
	}
	return tok, nil
}

// VerifyToken is the resolver's BearerVerifier for API tokens. It reads
// the token and its person on every call (nothing of their state is
// cached, so a revocation or a disabled person stops the token at the next
// call on any instance: one read once this instance knows whose the token
// is) and records the use at TokenTouchEvery granularity. The token itself
// is never logged.
func (a *Accounts) VerifyToken(ctx context.Context, token string) (board.Principal, bool, error) {
	if !strings.HasPrefix(token, TokenPrefix) {
		return board.Principal{}, false, nil
	}
	if !wellFormedToken(token) {
		return board.Principal{}, true, ErrBadCredential
	}
	hash := HashSecret(token)
	id := hash[:tokenIDLen]
	f, person, err := a.LookupCredential(ctx, board.CredentialLookup{Kind: board.CredentialToken, ID: id},
		func(f board.FoundCredential) string { return f.Token.Handle })
	if errors.Is(err, ErrBadCredential) {
		return board.Principal{}, true, ErrBadCredential
	}
	if err != nil {
		a.log.Error("reading an API token or its person failed", "token_id", id, "err", err)
		return board.Principal{}, true, err
	}
	tok := f.Token
	if tok.Hash != hash || tok.RevokedAt != nil {
		return board.Principal{}, true, ErrBadCredential
	}
	a.touch(ctx, tok)
	return tok.Principal(person), true, nil
}

// touch records a use when the recorded one is TokenTouchEvery old. A
// failure is logged, not the caller's: the credential was valid.
func (a *Accounts) touch(ctx context.Context, tok board.APIToken) {
	now := a.now()
	stale := now.Add(-TokenTouchEvery)
	if tok.LastUsedAt != nil && tok.LastUsedAt.After(stale) {
		return
	}
	if err := a.store.TouchToken(ctx, tok.ID, now, stale); err != nil {
		a.log.Warn("recording an API token's use failed", "token_id", tok.ID, "err", err)
	}
}
