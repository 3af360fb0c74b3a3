package board

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseMentions(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"a person", "@alice please look", []string{"human:alice"}},
		{"an agent", "over to @ai:claude now", []string{"ai:claude"}},
		{"agent names keep case and dots", "@ai:Claude.v2 and @ai:gpt-4o", []string{"ai:Claude.v2", "ai:gpt-4o"}},
		{"sentence punctuation ends a name", "ask @alice. Or (@bob), @carol! @dave? @ai:claude.", []string{"human:alice", "human:bob", "human:carol", "human:dave", "ai:claude"}},
		{"a colon or a comma after", "@alice: done, @bob,", []string{"human:alice", "human:bob"}},
		{"at the start of a line", "line\n@alice", []string{"human:alice"}},
		{"an email is no mention", "write to bob@alice.com or alice@example.org", nil},
		{"a domain after @ is no mention", "see @example.com", nil},
		{"a path is no mention", "https://x.example/@alice", nil},
		{"a capital is no handle", "@Alice", nil},
		{"an underscore is no handle", "@al_ice", nil},
		{"a bare @ and @ai:", "@ alone, @ai: nothing", nil},
		{"repeats count once", "@alice @bob @alice @ai:claude @ai:claude", []string{"human:alice", "human:bob", "ai:claude"}},
		{"inline code mentions nobody", "run `ping @alice` then ask @bob", []string{"human:bob"}},
		{"a code block mentions nobody", "```\n@alice\n```\n@carol", []string{"human:carol"}},
		{"a longer fence holds shorter backticks", "``a ` @alice`` @bob", []string{"human:bob"}},
		{"an unclosed backtick is plain", "it's ` odd @alice", []string{"human:alice"}},
		{"after non-ASCII letters no mention", "é@alice", nil},
		{"after an opening quote", "\"@alice\"", []string{"human:alice"}},
		{"empty", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ParseMentions(c.text); !slices.Equal(got, c.want) {
				t.Errorf("ParseMentions(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func TestParseMentionsStopsAtTheCap(t *testing.T) {
	var b strings.Builder
	for i := range MaxMentions + 5 {
		fmt.Fprintf(&b, "@p%d ", i)
	}
	got := ParseMentions(b.String())
	if len(got) != MaxMentions || got[0] != "human:p0" || got[MaxMentions-1] != fmt.Sprintf("human:p%d", MaxMentions-1) {
		t.Fatalf("got %d mentions (%q), want the first %d", len(got), got, MaxMentions)
	}
}
