package webhook

import "time"

// AnswerBytes is how much of a receiver's answer the log keeps.
const AnswerBytes = 200

// Attempt is one delivery attempt as the log shows it.
type Attempt struct {
	At      time.Time `json:"at"`
	EventID string    `json:"event_id"`
	// Kind is what sent it: "delivery" (the feed), "redelivery" (send
	// again) or "test".
	Kind string `json:"kind"`
	// Status is the receiver's HTTP status, 0 when there was no answer.
	Status    int   `json:"status"`
	LatencyMs int64 `json:"latency_ms"`
	OK        bool  `json:"ok"`
	// Answer: the first AnswerBytes bytes of the receiver's body, or why
	// there was no answer.
	Answer string `json:"answer"`
}

// The kinds of attempt.
const (
	AttemptDelivery   = "delivery"
	AttemptRedelivery = "redelivery"
	AttemptTest       = "test"
)
