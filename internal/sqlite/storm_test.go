package sqlite_test

import (
	"sync"
	"testing"
)

// storm runs n writers, each calling write(w, i) for i = 0, 1, … until
// stop is called; stop waits for them and may be called more than once. A
// writer whose write fails reports it and ends.
func storm(t *testing.T, n int, write func(w, i int) error) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				if err := write(w, i); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		}()
	}
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}
