package operations

// WriteNote ends every write tool's description: it is how a model learns
// the retry discipline the ledger relies on.
const WriteNote = ` Exactly once: pass a new request_id for each new intent. After an error or lost connection, call find_request with that request_id first; to retry, reuse the same request_id with the same arguments, and the first result comes back with replayed: true instead of a second write.`

// ArgumentHint says what to do about arguments a caller may not send, or
// "" when none of them was sent: the author and created_by are decided by
// the server from the credential, on every surface. has reports whether
// the arguments hold a name.
func ArgumentHint(has func(name string) bool) string {
	switch {
	case has("author"):
		return "the author is decided by the server from your credential: leave author out"
	case has("created_by"):
		return "created_by is decided by the server from your credential: leave it out"
	}
	return ""
}
