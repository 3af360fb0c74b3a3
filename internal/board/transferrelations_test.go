package board

import (
	"fmt"
	"strings"
	"testing"
)

// The graph an import checks relation lines with refuses what a relate
// would: more than MaxRelations of a kind at an end, and parents nested
// deeper than MaxNesting.
func TestRelationGraphLimits(t *testing.T) {
	rel := func(kind RelationKind, from, to int) TransferredRelation {
		return TransferredRelation{Kind: kind, From: fmt.Sprintf("ops-%d", from), To: fmt.Sprintf("ops-%d", to)}
	}
	g := NewRelationGraph()
	for i := 2; i <= MaxRelations+1; i++ {
		if err := g.Add(rel(RelationBlocks, 1, i)); err != nil {
			t.Fatalf("blocker %d of %d: %v", i-1, MaxRelations, err)
		}
	}
	if err := g.Add(rel(RelationBlocks, 1, 100)); err == nil || !strings.Contains(err.Error(), "would block more than 50") {
		t.Errorf("blocking a 51st ticket: %v", err)
	}
	for i := 200; i <= 200+MaxRelations-1; i++ {
		if err := g.Add(rel(RelationBlocks, i, 300)); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Add(rel(RelationBlocks, 299, 300)); err == nil || !strings.Contains(err.Error(), "blocked by more than 50") {
		t.Errorf("a 51st blocker: %v", err)
	}

	g = NewRelationGraph()
	for i := 500; i < 500+MaxNesting-1; i++ { // 500 > 501 > ... > 504: five levels
		if err := g.Add(rel(RelationParent, i, i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Add(rel(RelationParent, 500+MaxNesting-1, 600)); err == nil || !strings.Contains(err.Error(), "6 levels deep") {
		t.Errorf("a sixth level below: %v", err)
	}
	if err := g.Add(rel(RelationParent, 700, 500)); err == nil || !strings.Contains(err.Error(), "6 levels deep") {
		t.Errorf("a sixth level above: %v", err)
	}
	if err := g.Add(rel(RelationParent, 501, 800)); err != nil {
		t.Errorf("a sub-ticket within the depth: %v", err)
	}
}
