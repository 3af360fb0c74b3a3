package storetest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

// ServerSecret: get-or-create of the server's named secrets. The first
// candidate stored under a name is the secret for good; every later call,
// concurrent or not, gets those bytes back.

func secretTests() []contractTest {
	return []contractTest{
		{"the first candidate is kept, names are apart", testSecretFirstKept},
		{"32 concurrent get-or-creates: one secret", testSecretRace},
	}
}

func testSecretFirstKept(t *testing.T, f *fixture) {
	first := bytes.Repeat([]byte{1}, 32)
	got, err := f.s.ServerSecret(f.ctx, "cursor-test", first)
	if err != nil || !bytes.Equal(got, first) {
		t.Fatalf("first get-or-create: %x, %v; want the candidate", got, err)
	}
	got, err = f.s.ServerSecret(f.ctx, "cursor-test", bytes.Repeat([]byte{2}, 32))
	if err != nil || !bytes.Equal(got, first) {
		t.Errorf("second get-or-create: %x, %v; want the first candidate, kept", got, err)
	}
	other := bytes.Repeat([]byte{3}, 32)
	got, err = f.s.ServerSecret(f.ctx, "signing-test", other)
	if err != nil || !bytes.Equal(got, other) {
		t.Errorf("another name: %x, %v; want its own candidate", got, err)
	}
}

func testSecretRace(t *testing.T, f *fixture) {
	got := raceSecrets(t, func(i int, candidate []byte) ([]byte, error) {
		return f.s.ServerSecret(f.ctx, "raced", candidate)
	})
	stored, err := f.s.ServerSecret(f.ctx, "raced", []byte("late"))
	if err != nil || !bytes.Equal(stored, got) {
		t.Errorf("after the race: %x, %v; want the winner %x", stored, err, got)
	}
}

// raceSecrets runs 32 get-or-creates at once, each with its own candidate,
// and checks that all answer the same secret, one of the candidates; it
// returns it.
func raceSecrets(t *testing.T, getOrCreate func(i int, candidate []byte) ([]byte, error)) []byte {
	t.Helper()
	const racers = 32
	got := make([][]byte, racers)
	errs := make([]error, racers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			<-start
			got[i], errs[i] = getOrCreate(i, []byte(fmt.Sprintf("candidate %02d of the racers, 32 bytes", i)))
		})
	}
	close(start)
	wg.Wait()
	for i := range racers {
		if errs[i] != nil {
			t.Fatalf("racer %d: %v", i, errs[i])
		}
		if !bytes.Equal(got[i], got[0]) {
			t.Fatalf("racer %d got %q, racer 0 %q: two secrets under one name", i, got[i], got[0])
		}
	}
	if !bytes.HasPrefix(got[0], []byte("candidate ")) {
		t.Fatalf("the secret %q is none of the candidates", got[0])
	}
	return got[0]
}
