// Package webhook tells other systems what happens on a workspace: an
// admin subscribes a URL, and every event of the workspace that passes the
// subscription's filter is posted to it, signed the Standard Webhooks way
// (webhook-id, webhook-timestamp, webhook-signature), as JSON or as a Slack
// message.
//
// Delivery is at least once and in order per subscription: each
// subscription keeps a durable cursor in the events feed, and the cursor
// moves past an event only after the receiver answered it with a 2xx. A
// failure holds the subscription at that event and retries it on a
// backoff schedule; after the give-up window of failures the subscription
// is paused with the reason, for an admin to resume.
//
// On AWS the same delivery step runs from a queue instead (queued.go):
// Fanout names, for each new event the table's stream hands over, one
// Delivery per subscription that wants it; a FIFO queue keeps them in
// order per subscription and ticket; SendQueued posts each and says how
// long a failed one waits. The queue and the Lambda handlers are
// adapters (internal/sqsqueue, internal/webhooklambda).
//
// The package owns its storage contract (Store), separate from the board's:
// subscriptions, their progress and their delivery log, and the reads of
// the events feed a sender needs.
package webhook
