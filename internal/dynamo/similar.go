package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"golang.org/x/sync/errgroup"
)

// SimilarCandidates is one keys-only Query per word, all at once (one round
// trip): the word's title-tier index items, newest first, Limit
// board.SimilarPerWord; then one BatchGetItem of the candidates
// board.SimilarCandidateNumbers picks. With the policy cached that is
// len(words) + 1 requests in two round trips, whatever the board's size.
func (s *Store) SimilarCandidates(ctx context.Context, q board.SimilarQuery) ([]board.Ticket, error) {
	policy, err := s.WorkspacePolicy(ctx, q.Workspace)
	if err == nil {
		err = board.CheckPolicy(q.Readable, policy)
	}
	if err != nil {
		return nil, err
	}
	perWord := make([][]int64, len(q.Words))
	g, gctx := errgroup.WithContext(ctx)
	for i, word := range q.Words {
		g.Go(func() error {
			out, err := s.queryWords(gctx, &dynamodb.QueryInput{
				KeyConditionExpression:   aws.String("#pk = :pk AND begins_with(#sk, :title)"),
				ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK},
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":pk": str(wordPartition(q.Workspace, word)), ":title": str(word + wordSep + "0")},
				Limit: aws.Int32(board.SimilarPerWord),
			})
			if err != nil {
				return err
			}
			for _, item := range out.Items {
				_, _, n, err := parseWordSK(getS(item, attrSK))
				if err != nil {
					return err
				}
				perWord[i] = append(perWord[i], n)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	numbers := board.SimilarCandidateNumbers(perWord, q.Exclude)
	if len(numbers) == 0 {
		return nil, nil
	}
	cands := make([]posting, len(numbers))
	for i, n := range numbers {
		cands[i] = posting{number: n}
	}
	found, err := s.readCandidates(ctx, q.Workspace, cands)
	if err != nil {
		return nil, err
	}
	out := make([]board.Ticket, 0, len(found))
	for _, t := range found {
		if t != nil {
			out = append(out, *t)
		}
	}
	return out, nil
}
