package lambdatest

import (
	"context"
	"testing"
	"time"
)

// The emulator writes its init report on its own schedule, often after the
// first response reached the caller: reading the log once then found no
// line (2 of 9 cold starts failed). WaitInitDuration polls until it is
// there.
func TestWaitInitDurationWaitsForALateLine(t *testing.T) {
	p, err := startProcess("/bin/sh", []string{"-c", `sleep 0.3; echo "INIT REPORT(durationMs: 12.500000)"; sleep 30`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	e := &Emulator{proc: p}
	if _, ok := e.InitDuration(); ok {
		t.Fatal("an init report before the line was written")
	}
	d, err := e.WaitInitDuration(context.Background(), 10*time.Second)
	if err != nil || d != 12500*time.Microsecond {
		t.Fatalf("WaitInitDuration = %v, %v; want 12.5ms", d, err)
	}
}

func TestWaitInitDurationGivesUp(t *testing.T) {
	p, err := startProcess("/bin/sh", []string{"-c", `echo starting; sleep 30`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	e := &Emulator{proc: p}
	if _, err := e.WaitInitDuration(context.Background(), 200*time.Millisecond); err == nil {
		t.Fatal("no error without an init report")
	}
	p2, err := startProcess("/bin/sh", []string{"-c", `echo exiting`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.stop()
	if _, err := (&Emulator{proc: p2}).WaitInitDuration(context.Background(), 10*time.Second); err == nil {
		t.Fatal("no error from an emulator that exited without a report")
	}
}
