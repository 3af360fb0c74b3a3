package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Fixtures of multi round-trip requests (SEP-2322, 2026-07-28): a tool or
// prompt answers InputRequiredResult with the input it needs, and the client
// calls again with inputResponses (and the requestState it was given, which
// is signed here so a tampered one is refused).

var stateKey = func() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}()

func signState(payload string) string {
	mac := hmac.New(sha256.New, stateKey)
	mac.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func verifyState(state string) (string, error) {
	enc, sig, ok := strings.Cut(state, ".")
	payload, err1 := base64.RawURLEncoding.DecodeString(enc)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	mac := hmac.New(sha256.New, stateKey)
	mac.Write(payload)
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(got, mac.Sum(nil)) {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState failed its integrity check: send back the requestState of the last InputRequiredResult unchanged"}
	}
	return string(payload), nil
}

func ask(message, field, typ string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: message, RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{field: map[string]any{"type": typ}}, "required": []string{field}}}
}

func sample(prompt string, maxTokens int64) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{MaxTokens: maxTokens, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}}}
}

func elicited(r mcp.InputResponse, field string) string {
	if e, ok := r.(*mcp.ElicitResult); ok {
		return fmt.Sprint(e.Content[field])
	}
	return ""
}

func sampled(r mcp.InputResponse) string {
	if m, ok := r.(*mcp.CreateMessageResult); ok {
		if t, ok := m.Content.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

func rootsOf(r mcp.InputResponse) string {
	var uris []string
	if l, ok := r.(*mcp.ListRootsResult); ok {
		for _, root := range l.Roots {
			uris = append(uris, root.URI)
		}
	}
	return strings.Join(uris, ", ")
}

func needInput(requests mcp.InputRequestMap, state string) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: requests, RequestState: state}
}

func addMRTRFixtures(s *mcp.Server) {
	tool := func(name string, h mcp.ToolHandler) {
		s.AddTool(&mcp.Tool{Name: name, Description: "multi round-trip fixture " + name, InputSchema: noArgs()}, h)
	}
	tool("test_input_required_result_elicitation", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, ok := req.Params.InputResponses["user_name"]
		if !ok {
			return needInput(mcp.InputRequestMap{"user_name": ask("What is your name?", "name", "string")}, ""), nil
		}
		return text("Hello, " + elicited(r, "name") + "!"), nil
	})
	tool("test_input_required_result_sampling", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, ok := req.Params.InputResponses["capital_question"]
		if !ok {
			return needInput(mcp.InputRequestMap{"capital_question": sample("What is the capital of France?", 100)}, ""), nil
		}
		return text("The model answered: " + sampled(r)), nil
	})
	tool("test_input_required_result_list_roots", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, ok := req.Params.InputResponses["client_roots"]
		if !ok {
			return needInput(mcp.InputRequestMap{"client_roots": &mcp.ListRootsParams{}}, ""), nil
		}
		return text("Your roots: " + rootsOf(r)), nil
	})
	tool("test_input_required_result_request_state", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, ok := req.Params.InputResponses["confirm"]; !ok {
			return needInput(mcp.InputRequestMap{"confirm": ask("Please confirm", "ok", "boolean")}, signState("confirm")), nil
		}
		if p, err := verifyState(req.Params.RequestState); err != nil || p != "confirm" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState is missing or not this tool's"}
		}
		return text("state-ok: confirmed"), nil
	})
	tool("test_input_required_result_multiple_inputs", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in := req.Params.InputResponses
		_, a := in["user_name"]
		_, b := in["greeting"]
		_, c := in["client_roots"]
		if !a || !b || !c {
			return needInput(mcp.InputRequestMap{
				"user_name":    ask("What is your name?", "name", "string"),
				"greeting":     sample("Generate a greeting", 50),
				"client_roots": &mcp.ListRootsParams{},
			}, signState("multiple")), nil
		}
		if _, err := verifyState(req.Params.RequestState); err != nil {
			return nil, err
		}
		return text(fmt.Sprintf("%s, %s (roots: %s)", sampled(in["greeting"]), elicited(in["user_name"], "name"), rootsOf(in["client_roots"]))), nil
	})
	tool("test_input_required_result_multi_round", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in := req.Params.InputResponses
		if len(in) == 0 {
			return needInput(mcp.InputRequestMap{"step1": ask("Step 1: What is your name?", "name", "string")}, signState("round1")), nil
		}
		round, err := verifyState(req.Params.RequestState)
		if err != nil {
			return nil, err
		}
		switch {
		case strings.HasPrefix(round, "round1") && in["step1"] != nil:
			name := elicited(in["step1"], "name")
			return needInput(mcp.InputRequestMap{"step2": ask("Step 2: What is your favorite color?", "color", "string")}, signState("round2:"+name)), nil
		case strings.HasPrefix(round, "round2:") && in["step2"] != nil:
			return text(fmt.Sprintf("%s likes %s", strings.TrimPrefix(round, "round2:"), elicited(in["step2"], "color"))), nil
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "inputResponses do not answer this round's requests"}
	})
	tool("test_input_required_result_tampered_state", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if len(req.Params.InputResponses) == 0 {
			return needInput(mcp.InputRequestMap{"confirm": ask("Please confirm", "ok", "boolean")}, signState("untampered")), nil
		}
		if _, err := verifyState(req.Params.RequestState); err != nil {
			return nil, err
		}
		return text("state-ok"), nil
	})
	tool("test_input_required_result_capabilities", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if len(req.Params.InputResponses) > 0 {
			return text("thanks"), nil
		}
		caps := req.ClientCapabilities()
		requests := mcp.InputRequestMap{}
		if caps != nil && caps.Elicitation != nil {
			requests["user_name"] = ask("What is your name?", "name", "string")
		}
		if caps != nil && caps.Sampling != nil {
			requests["greeting"] = sample("Generate a greeting", 50)
		}
		if len(requests) == 0 {
			return text("the client declared neither elicitation nor sampling: nothing to ask"), nil
		}
		return needInput(requests, ""), nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "a prompt that asks for context"},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			r, ok := req.Params.InputResponses["user_context"]
			if !ok {
				return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"user_context": ask("What context should the prompt use?", "context", "string")}}, nil
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Use this context: " + elicited(r, "context")}}}}, nil
		})
}
