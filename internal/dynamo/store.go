package dynamo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// DefaultPolicyTTL is how long a workspace's ai_policy, once read, answers
// get_ticket and list_tickets in this process without another read. Writes
// never use it: their transactions check the policy themselves.
const DefaultPolicyTTL = 5 * time.Second

// Config configures Open.
type Config struct {
	Client *dynamodb.Client
	Table  string
	// CreateTable creates the table (and waits for it) when it does not
	// exist; for local endpoints and first runs (LEDGER_CREATE_TABLE=1).
	CreateTable bool
	// PolicyTTL bounds how stale a cached ai_policy may be for reads
	// (0: DefaultPolicyTTL; negative: never cached, every read checks).
	PolicyTTL time.Duration
	// Seed workspaces created when absent (nil: board.DefaultWorkspaces).
	Seed []board.Workspace
	// SerializeWrites sends one write at a time from this process, and no
	// read while a write is in flight (serialize.go). DynamoDB does not
	// need it and it is off by default; moto does: it applies a
	// transaction item by item and undoes a cancelled one by restoring a
	// snapshot of the whole table, so concurrent requests can see or lose
	// each other's writes. The composition root turns it on with
	// LEDGER_DYNAMODB_SERIALIZE_WRITES=1.
	SerializeWrites bool
	// Now is the clock of the policy cache (nil: time.Now); tests move it.
	Now    func() time.Time
	Logger *slog.Logger
	// CounterRaceBudget bounds how long one write keeps meeting other
	// transactions on its items (commit.go) (0: the default,
	// DefaultCounterRaceBudget). Tests that race many instances on one
	// shared emulator lengthen it: there the emulator, not the protocol,
	// is slow.
	CounterRaceBudget time.Duration
	// Early, when set, gets the store before Open reaches the table, for
	// the reads that need no seeded workspace: people, sessions, API and
	// OAuth tokens, which a credential check reads first on a cold start. Not called when
	// Open is to create the table (until then those reads would fail).
	Early func(*Store)
	// WordsByStream leaves a ticket's body words, and the deletion of the
	// words an edit removed, to the table's stream consumer
	// (functions/indexer, IndexWordChange). Off: the store writes them
	// itself right after each commit (worditems.go), for endpoints without
	// streams and deployments without the consumer.
	WordsByStream bool
}

// Store is board.Store, and the contracts beside it, on DynamoDB. It is safe for concurrent use.
type Store struct {
	db        api // the client's operations the store uses (api.go)
	table     string
	policyTTL time.Duration
	log       *slog.Logger
	cache     *workspaceCache
	locks     keyLocks
	// leases: this instance's blocks of ticket numbers and count-shard
	// slots (numbers.go, countshards.go).
	leases leases
	// policyReads: the policy each LoadForWrite read, for its SaveTicket.
	policyReads policyReads
	serialize   bool
	raceFor     time.Duration
	// wordsByStream: Config.WordsByStream.
	wordsByStream bool
	// answered: the create requests this instance committed or answered
	// (createreplay.go).
	answered answeredRequests
}

var _ board.Store = (*Store)(nil)

// Open connects to the table (creating it if asked), seeds the default
// workspaces idempotently and warms the workspace cache, in one read when
// they exist already.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Client == nil {
		return nil, errors.New("dynamo: Config.Client is required")
	}
	if cfg.Table == "" {
		return nil, errors.New("dynamo: Config.Table is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case cfg.PolicyTTL == 0:
		cfg.PolicyTTL = DefaultPolicyTTL
	case cfg.PolicyTTL < 0:
		cfg.PolicyTTL = 0
	}
	if cfg.Seed == nil {
		cfg.Seed = board.DefaultWorkspaces()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Store{db: apiOf(cfg.Client), table: cfg.Table, policyTTL: cfg.PolicyTTL, log: cfg.Logger,
		cache: newWorkspaceCache(cfg.Now), serialize: cfg.SerializeWrites, raceFor: cfg.CounterRaceBudget,
		wordsByStream: cfg.WordsByStream}
	if s.raceFor <= 0 {
		s.raceFor = DefaultCounterRaceBudget
	}
	if cfg.CreateTable {
		if err := ensureTable(ctx, cfg.Client, cfg.Table, cfg.Logger); err != nil {
			return nil, err
		}
	} else if cfg.Early != nil {
		cfg.Early(s)
	}
	if err := s.seed(ctx, cfg.Seed); err != nil {
		return nil, err
	}
	return s, nil
}

// Close releases nothing: the SDK client belongs to the caller.
func (s *Store) Close() error { return nil }

// seed reads the seed workspaces and puts the missing ones with a
// condition, so instances starting together create each exactly once.
func (s *Store) seed(ctx context.Context, seed []board.Workspace) error {
	if len(seed) == 0 {
		return nil
	}
	keys := make([]map[string]types.AttributeValue, len(seed))
	for i, w := range seed {
		keys[i] = workspaceKey(w.Slug)
	}
	found, err := s.batchGet(ctx, keys)
	var missing *types.ResourceNotFoundException
	if errors.As(err, &missing) {
		return fmt.Errorf("dynamo: table %s does not exist: create it with LEDGER_CREATE_TABLE=1 (local endpoints) or the SAM template (AWS): %w", s.table, err)
	}
	if err != nil {
		return fmt.Errorf("dynamo: reading workspaces: %w", err)
	}
	for i, w := range seed {
		if item := found[i]; item != nil {
			w := decodeWorkspace(item).Workspace
			s.cache.setPolicy(w.Slug, w.AIPolicy)
			continue
		}
		c, err := s.commit(ctx, []types.TransactWriteItem{s.put(workspaceItem(w), "attribute_not_exists(#pk)",
			map[string]string{"#pk": attrPK}, nil, false), s.newCounter(w.Slug, 1)})
		if err != nil {
			return fmt.Errorf("dynamo: seeding workspace %s: %w", w.Slug, err)
		}
		if c == nil || c.failedAt(0) { // created now, or by another instance meanwhile
			continue
		}
		return fmt.Errorf("dynamo: seeding workspace %s: refused: %v", w.Slug, c.codes)
	}
	return nil
}

// batchGetMax is BatchGetItem's limit of keys per call.
const batchGetMax = 100

// batchGet reads items by key with strongly consistent reads, in one
// request unless DynamoDB leaves keys unprocessed (then those are asked
// again, with backoff: a partial answer is no error, so the SDK does not
// retry it). found[i] is nil for an absent item.
func (s *Store) batchGet(ctx context.Context, keys []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	return s.batchRead(ctx, keys, true, "", nil)
}

// batchRead is batchGet with a choice of consistency and a projection
// (which must include pk and sk: the answers are matched to keys by them).
func (s *Store) batchRead(ctx context.Context, keys []map[string]types.AttributeValue, consistent bool,
	projection string, names map[string]string) ([]map[string]types.AttributeValue, error) {
	found := make([]map[string]types.AttributeValue, len(keys))
	index := make(map[string]int, len(keys))
	for i, k := range keys {
		index[getS(k, attrPK)+"\x00"+getS(k, attrSK)] = i
	}
	pending := keys
	for attempt := 0; len(pending) > 0; attempt++ {
		if attempt >= maxAttempts {
			return nil, errors.New("dynamo: BatchGetItem kept leaving keys unprocessed")
		}
		if attempt > 0 {
			if err := backoff(ctx, attempt); err != nil {
				return nil, err
			}
		}
		ka := types.KeysAndAttributes{Keys: pending, ConsistentRead: aws.Bool(consistent)}
		if projection != "" {
			ka.ProjectionExpression, ka.ExpressionAttributeNames = aws.String(projection), names
		}
		done, err := s.sharedRead(ctx)
		if err != nil {
			return nil, err
		}
		out, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{s.table: ka}})
		done()
		if err != nil {
			return nil, err
		}
		for _, item := range out.Responses[s.table] {
			found[index[getS(item, attrPK)+"\x00"+getS(item, attrSK)]] = item
		}
		pending = out.UnprocessedKeys[s.table].Keys
	}
	return found, nil
}

// getItem is a strongly consistent read of one item; nil when absent.
func (s *Store) getItem(ctx context.Context, k map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	done, err := s.sharedRead(ctx)
	if err != nil {
		return nil, err
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: k, ConsistentRead: aws.Bool(true)})
	done()
	if err != nil {
		return nil, err
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}
