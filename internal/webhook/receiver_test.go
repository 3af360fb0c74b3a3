package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// verifyStandardWebhook is the receiver's check, written from the
// Standard Webhooks specification and sharing no code with the sender:
// the key is the base64 after "whsec_"; the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>"; webhook-signature is a
// space-separated list of "<version>,<base64 signature>", any "v1" one of
// which may match (compared in constant time); the timestamp must be
// within the tolerance of now.
func verifyStandardWebhook(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("missing webhook-id, webhook-timestamp or webhook-signature")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp is not unix seconds")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return errors.New("webhook-timestamp is outside the tolerance")
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte("."))
	mac.Write([]byte(ts))
	mac.Write([]byte("."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range strings.Fields(sigs) {
		version, b64, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no v1 signature matches")
}

// delivery is one request a receiver got.
type delivery struct {
	ID     string
	Body   []byte
	Status int
	Err    error // the signature check's verdict
}

// receiver is a loopback webhook endpoint that checks every request's
// signature and answers with what answer says.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	secret string
	got    []delivery
	answer func(n int) int // the status of the n-th request (0-based)
	notify chan struct{}
	clock  func() time.Time // the receiver's now, for the timestamp check
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{answer: func(int) int { return http.StatusNoContent }, notify: make(chan struct{}, 1000), clock: time.Now}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := len(r.got)
		status := r.answer(n)
		err := verifyStandardWebhook(r.secret, req.Header, body, r.clock(), 5*time.Minute)
		r.got = append(r.got, delivery{ID: req.Header.Get("webhook-id"), Body: body, Status: status, Err: err})
		r.mu.Unlock()
		w.WriteHeader(status)
		io.WriteString(w, "answer "+strconv.Itoa(n)+" "+strings.Repeat("x", 300))
		r.notify <- struct{}{}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) setSecret(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = s
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

func TestVerifierRefusesWhatIsNotSigned(t *testing.T) {
	h := http.Header{}
	h.Set("webhook-id", "msg_1")
	h.Set("webhook-timestamp", strconv.FormatInt(time.Now().Unix(), 10))
	h.Set("webhook-signature", "v1,AAAA v2,BBBB")
	if err := verifyStandardWebhook("whsec_"+base64.StdEncoding.EncodeToString([]byte("key")), h, []byte("{}"), time.Now(), time.Minute); err == nil {
		t.Fatal("the verifier accepted a made-up signature")
	}
}
