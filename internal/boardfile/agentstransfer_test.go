package boardfile_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// TestAgentsExpiredByLoad: a grant that expires between the export and
// the import is skipped with its tokens, and its refresh token is refused.
func TestAgentsExpiredByLoad(t *testing.T) {
	src := open(t, testbackends.SQLite, testbackends.NewClock(t0))
	conns := connectAgents(t, src)
	file := export(t, src, boardfile.ExportOptions{WithPeople: true})
	dst := open(t, testbackends.Minidyn, testbackends.NewClock(src.clock.Now().Add(31*24*time.Hour)))
	res := loadInto(t, dst, file, boardfile.LoadOptions{})
	if res.Written[boardfile.KindOAuthGrant] != 0 || res.Skipped[boardfile.KindOAuthGrant] != 1 || res.Skipped[boardfile.KindOAuthToken] != 4 {
		t.Fatalf("written %v, skipped %v; want the grant and its 4 tokens skipped", res.Written, res.Skipped)
	}
	if _, grants, tokens := agentCounts(export(t, dst, boardfile.ExportOptions{WithPeople: true})); grants != 0 || tokens != 0 {
		t.Fatalf("the target exports %d grants and %d tokens; want none", grants, tokens)
	}
	serveAgents(t, dst, 0).gone("the expired grant's refresh token", conns.live)
}

// TestAgentsMetadataDocument: a client known by its metadata document
// moves while its cached copy is fresh; once the copy has expired its
// grant still moves without it (the target fetches the document again).
func TestAgentsMetadataDocument(t *testing.T) {
	clock := testbackends.NewClock(t0)
	src := open(t, testbackends.SQLite, clock)
	ctx := context.Background()
	now := clock.Now()
	if err := src.store.CreatePerson(ctx, board.Person{Handle: "cy", Name: "Cy", Role: board.RoleMember, CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	doc := board.OAuthClient{ID: "https://app.example/oauth/client.json", Kind: board.OAuthClientMetadataDocument, Name: "App",
		RedirectURIs: []string{"https://app.example/callback"}, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := src.store.PutOAuthClient(ctx, doc); err != nil {
		t.Fatal(err)
	}
	g := board.OAuthGrant{ID: "0123456789abcdef", ClientID: doc.ID, ClientName: doc.Name, Handle: "cy", Agent: "app",
		Resource: issuer, CreatedAt: now, ExpiresAt: now.Add(30 * 24 * time.Hour)}
	if out, err := src.store.PutOAuthGrant(ctx, g); err != nil || out != board.Added {
		t.Fatalf("PutOAuthGrant: %v, %v", out, err)
	}
	tok := board.OAuthToken{Hash: strings.Repeat("cd", 32), GrantID: g.ID, Kind: board.OAuthRefresh, CreatedAt: now, ExpiresAt: g.ExpiresAt}
	if out, err := src.store.PutOAuthToken(ctx, tok); err != nil || out != board.Added {
		t.Fatalf("PutOAuthToken: %v, %v", out, err)
	}

	fresh := export(t, src, boardfile.ExportOptions{WithPeople: true})
	if clients, grants, tokens := agentCounts(fresh); clients != 1 || grants != 1 || tokens != 1 {
		t.Fatalf("export while the copy is fresh: %d clients, %d grants, %d tokens; want 1 each", clients, grants, tokens)
	}
	dst := open(t, testbackends.Minidyn, clock)
	checkAllWritten(t, loadInto(t, dst, fresh, boardfile.LoadOptions{}), fresh)
	if c, err := dst.store.GetOAuthClient(ctx, doc.ID, clock.Now()); err != nil || c.Kind != doc.Kind || c.Name != doc.Name {
		t.Fatalf("the moved document's copy: %+v, %v", c, err)
	}

	clock.Add(2 * time.Hour)
	stale := export(t, src, boardfile.ExportOptions{WithPeople: true})
	if clients, grants, tokens := agentCounts(stale); clients != 0 || grants != 1 || tokens != 1 {
		t.Fatalf("export after the copy expired: %d clients, %d grants, %d tokens; want 0, 1, 1", clients, grants, tokens)
	}
	later := open(t, testbackends.SQLite, clock)
	checkAllWritten(t, loadInto(t, later, stale, boardfile.LoadOptions{}), stale)
	if got, err := later.store.GetOAuthGrant(ctx, g.ID); err != nil || !board.SameOAuthGrant(got, g) {
		t.Fatalf("the moved grant: %+v, %v", got, err)
	}
}

// TestAgentsMergeSkip: a grant whose id the target holds for another
// approval keeps the target's, and the file's tokens of it are left out.
func TestAgentsMergeSkip(t *testing.T) {
	clock := testbackends.NewClock(t0)
	src := open(t, testbackends.SQLite, clock)
	connectAgents(t, src)
	file := export(t, src, boardfile.ExportOptions{WithPeople: true})
	other := strings.Replace(string(file), `"agent":"claude"`, `"agent":"someone-else"`, 1)
	dst := open(t, testbackends.SQLite, clock)
	loadInto(t, dst, []byte(other), boardfile.LoadOptions{})
	res := loadInto(t, dst, file, boardfile.LoadOptions{Merge: boardfile.MergeSkip})
	if res.Kept[boardfile.KindOAuthGrant] != 1 || res.Skipped[boardfile.KindOAuthToken] != 4 {
		t.Fatalf("kept %v, skipped %v; want the grant kept and its 4 tokens skipped", res.Kept, res.Skipped)
	}
}
