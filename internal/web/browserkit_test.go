package web_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// A browser session for the board tests that drive one page at a time:
// started on a context without a deadline, each step bounded instead, and
// the POSTs the page sends counted from the browser's own network events.

type session struct {
	t         *testing.T
	ctx       context.Context
	e         *env
	backend   string
	postsSent atomic.Int64
}

// newEnvWithAgents is newEnv in required mode with Connected agents served.
func newEnvWithAgents(t *testing.T, backend string) *env {
	e := &env{t: t, store: openStore(t, backend), clock: testbackends.NewClock(time.Now().UTC()), mode: auth.ModeRequired, agents: true}
	e.serve(e.store)
	return e
}

// openBrowser starts the browser at exe with a window of width × height
// for the rest of the test, and makes the screenshot folder. The context
// it returns has no deadline: each step bounds itself.
func openBrowser(t *testing.T, exe string, width, height int) context.Context {
	t.Helper()
	if err := os.MkdirAll(outputDir, 0o755); err != nil {
		t.Fatal(err)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.WindowSize(width, height))...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // start the browser on a context without a deadline
		t.Fatal(err)
	}
	return ctx
}

func startSession(t *testing.T, exe string, e *env, backend string) *session {
	t.Helper()
	ctx := openBrowser(t, exe, 1280, 900)
	s := &session{t: t, ctx: ctx, e: e, backend: backend}
	go func() {
		for ev, err := range chromedp.Events(ctx, network.RequestWillBeSent) {
			if err != nil {
				return
			}
			if ev.Request.Method == "POST" {
				s.postsSent.Add(1)
			}
		}
	}()
	return s
}

// run does steps within 30 s, or fails with what the page shows.
func (s *session) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	sctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		dctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		defer cancel()
		html, _ := chromedp.Run(dctx, chromedp.OuterHTML(chromedp.CSS("main")))
		where, _ := chromedp.Run(dctx, chromedp.Location())
		s.t.Fatalf("%s: %v\nat %s:\n%s", what, err, where, html)
	}
}

// eval runs a script on the page and returns its value.
func eval[T any](s *session, what, script string, opts ...chromedp.EvaluateOption) T {
	s.t.Helper()
	sctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(sctx, chromedp.Evaluate[T](script, opts...))
	if err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// shot saves a full-page screenshot as test-output/<backend>-<name>.
func (s *session) shot(name string) {
	s.t.Helper()
	screenshot(s.t, s.ctx, s.backend, name)
}

// screenshot saves the page of ctx, whole, as test-output/<backend>-<name>.
func screenshot(t *testing.T, ctx context.Context, backend, name string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(outputDir, backend+"-"+name), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// colorScheme emulates prefers-color-scheme (light or dark).
func (s *session) colorScheme(scheme string) {
	s.t.Helper()
	_, err := chromedp.Call(s.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
	if err != nil {
		s.t.Fatalf("emulating %s: %v", scheme, err)
	}
}

func (s *session) signIn(handle string) {
	s.t.Helper()
	s.run("sign in as "+handle,
		chromedp.Navigate(s.e.url+"/signin"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="handle"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="handle"]`), handle),
		chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), testPassword),
		chromedp.Submit(chromedp.CSS(`input[name="password"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.me`)),
	)
}

// settle waits, with a deadline, until the server has answered every POST
// the browser sent since the counts were sentBefore and doneBefore, and at
// least one was sent; it returns how many were sent.
func (s *session) settle(what string, sentBefore, doneBefore int64) int64 {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.postsSent.Load()-sentBefore != s.e.postsDone.Load()-doneBefore || s.postsSent.Load() == sentBefore {
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: the browser sent %d POSTs, the server answered %d within 10 s",
				what, s.postsSent.Load()-sentBefore, s.e.postsDone.Load()-doneBefore)
		}
		time.Sleep(10 * time.Millisecond) // the poll's interval
	}
	return s.postsSent.Load() - sentBefore
}
