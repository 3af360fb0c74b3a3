package openingstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// credentialReads are the methods a credential check calls (a session or
// token, its person, an OAuth access token and its grant): they go to the
// store published early. Every other method waits for the open.
var credentialReads = map[string]bool{
	"GetPerson": true, "GetSession": true, "GetToken": true, "TouchToken": true, "GetOAuthToken": true, "TouchOAuthGrant": true,
	"LookupCredential": true,
}

var errEarly = errors.New("answered by the early store")

// earlyOnly answers the credential reads with errEarly. Any other method
// that reaches it panics: its Backend is nil.
type earlyOnly struct{ Backend }

func (earlyOnly) GetPerson(context.Context, string) (board.Person, error) {
	return board.Person{}, errEarly
}

func (earlyOnly) GetSession(context.Context, string, time.Time) (board.Session, error) {
	return board.Session{}, errEarly
}

func (earlyOnly) GetToken(context.Context, string) (board.APIToken, error) {
	return board.APIToken{}, errEarly
}

func (earlyOnly) LookupCredential(context.Context, board.CredentialLookup) (board.FoundCredential, error) {
	return board.FoundCredential{}, errEarly
}

func (earlyOnly) TouchToken(context.Context, string, time.Time, time.Time) error { return errEarly }

func (earlyOnly) GetOAuthToken(context.Context, string, string) (board.OAuthToken, board.OAuthGrant, error) {
	return board.OAuthToken{}, board.OAuthGrant{}, errEarly
}

func (earlyOnly) TouchOAuthGrant(context.Context, string, time.Time, time.Time) error {
	return errEarly
}

// callByName calls s's method name with ctx and zero values for the other
// arguments, and returns its error (a panic is returned as one).
func callByName(s *Store, name string, ctx context.Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panicked (it reached a store it should not have): %v", r)
		}
	}()
	m := reflect.ValueOf(s).MethodByName(name)
	args := []reflect.Value{reflect.ValueOf(ctx)}
	for i := 1; i < m.Type().NumIn(); i++ {
		args = append(args, reflect.Zero(m.Type().In(i)))
	}
	out := m.Call(args)
	err, _ = out[len(out)-1].Interface().(error)
	return err
}

// Every method of Backend goes where its kind says: while the open
// runs, a credential read to the store published early and anything else
// to the open (a caller that gives up gets its own context's error); once
// the open has failed, anything else answers that failure.
func TestEveryMethodGoesWhereItsKindSays(t *testing.T) {
	published, release := make(chan struct{}), make(chan struct{})
	errOpen := errors.New("table ticket-ledger not found")
	s := InBackgroundEarly(context.Background(), func(ctx context.Context, early func(Backend)) (Backend, error) {
		early(earlyOnly{})
		close(published)
		<-release
		return nil, errOpen
	}, slog.New(slog.DiscardHandler))
	<-published
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	methods := reflect.TypeFor[Backend]()
	for i := range methods.NumMethod() {
		name := methods.Method(i).Name
		if name == "Close" {
			continue
		}
		err := callByName(s, name, cancelled)
		if credentialReads[name] && !errors.Is(err, errEarly) {
			t.Errorf("%s while opening: %v, want the early store's answer", name, err)
		}
		if !credentialReads[name] && !errors.Is(err, context.Canceled) {
			t.Errorf("%s while opening, with a cancelled context: %v, want it to wait for the open", name, err)
		}
	}

	close(release)
	for i := range methods.NumMethod() {
		name := methods.Method(i).Name
		if name == "Close" || credentialReads[name] {
			continue
		}
		if err := callByName(s, name, context.Background()); !errors.Is(err, errOpen) {
			t.Errorf("%s after the open failed: %v, want its failure", name, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close after a failed open: %v", err)
	}
}
