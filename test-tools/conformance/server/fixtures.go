package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 1x1 red PNG and a tiny WAV, as the reference server uses.
var (
	redPixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	silentWAV   = []byte("RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00")
)

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func noArgs() map[string]any { return map[string]any{"type": "object", "properties": map[string]any{}} }

// addFixtures registers the reference server's fixture tools, prompts and
// resources.
func addFixtures(s *mcp.Server, ft *fixtureTasks) {
	tool := func(name, desc string, schema map[string]any, h mcp.ToolHandler) {
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: schema}, h)
	}
	tool("test_simple_text", "returns simple text", noArgs(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("This is a simple text response for testing."), nil
	})
	tool("test_image_content", "returns an image", noArgs(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: redPixel, MIMEType: "image/png"}}}, nil
	})
	tool("test_audio_content", "returns audio", noArgs(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: silentWAV, MIMEType: "audio/wav"}}}, nil
	})
	tool("test_embedded_resource", "returns an embedded resource", noArgs(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}}}}, nil
	})
	tool("test_multiple_content_types", "returns text, an image and a resource", noArgs(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "Multiple content types test:"},
			&mcp.ImageContent{Data: redPixel, MIMEType: "image/png"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}},
		}}, nil
	})
	tool("test_error_handling", "always fails", noArgs(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := text("This tool intentionally returns an error for testing")
		r.IsError = true
		return r, nil
	})
	var schema2020 map[string]any
	json.Unmarshal([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
		"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},
			"phone":{"type":"string"},"email":{"type":"string"}},
		"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
		"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},
		"additionalProperties":false}`), &schema2020)
	tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", schema2020,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("ok"), nil })

	// A parameter mirrored into a header (SEP-2243): the SDK checks that
	// Mcp-Param-Region matches the body.
	tool("test_custom_header", "a tool whose region parameter travels in a header too", map[string]any{
		"type": "object", "properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}}, "required": []string{"region"},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Region string }
		json.Unmarshal(req.Params.Arguments, &in)
		return text("region " + in.Region), nil
	})

	// Diagnostic tools of the stateless scenario (2026-07-28).
	tool("test_missing_capability", "needs the client's sampling capability", noArgs(), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
			data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}})
			return nil, &jsonrpc.Error{Code: -32021, Message: "missing required client capability: sampling", Data: data}
		}
		return text("the client can sample"), nil
	})
	tool("test_streaming_elicitation", "asks a question by a multi round-trip request, never on the stream", noArgs(), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r, ok := req.Params.InputResponses["answer"]; ok {
			return text("you said " + elicited(r, "answer")), nil
		}
		return needInput(mcp.InputRequestMap{"answer": ask("Anything to say?", "answer", "string")}, ""), nil
	})
	tool("test_logging_tool", "would log at the level the request asks for; a JSON response carries no log", noArgs(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("done, without logging"), nil
	})

	// The tasks extension's fixtures.
	tool("greet", "says hello (never a task)", map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Name string }
			json.Unmarshal(req.Params.Arguments, &in)
			return text(fmt.Sprintf("Hello, %s!", in.Name)), nil
		})
	tool("slow_compute", "sleeps, then answers; a task when the client takes tasks", map[string]any{"type": "object", "properties": map[string]any{
		"seconds": map[string]any{"type": "number"}, "label": map[string]any{"type": "string"}}}, ft.slowCompute)
	tool("failing_job", "a task that ends in a tool error", noArgs(), ft.failingJob)
	tool("protocol_error_job", "a task that ends in a protocol error", noArgs(), ft.protocolErrorJob)
	tool("confirm_delete", "a task that asks the client to confirm", map[string]any{"type": "object", "properties": map[string]any{"filename": map[string]any{"type": "string"}}}, ft.confirmDelete)
	tool("multi_input", "a task that asks two questions at once", noArgs(), ft.multiInput)
	tool("test_tool_with_task", "asks a name (multi round-trip), then runs as a task", noArgs(), ft.withTask)

	addMRTRFixtures(s)

	// Prompts.
	s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "a simple prompt"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "This is a simple prompt for testing."}}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Description: "a prompt with arguments", Arguments: []*mcp.PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true}, {Name: "arg2", Description: "Second test argument", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{
				Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])}}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "a prompt with a resource", Arguments: []*mcp.PromptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}},
				{Role: "user", Content: &mcp.TextContent{Text: "Please process the embedded resource above."}},
			}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "a prompt with an image"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.ImageContent{Data: redPixel, MIMEType: "image/png"}},
			{Role: "user", Content: &mcp.TextContent{Text: "Please analyze the image above."}},
		}}, nil
	})

	// Resources.
	s.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static-text", MIMEType: "text/plain"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://static-text", MIMEType: "text/plain", Text: "This is the content of the static text resource."}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://static-binary", MIMEType: "image/png", Blob: redPixel}}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
			body, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(body)}}}, nil
		})
}

// complete suggests values for the fixture prompt's arguments.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var values []string
	for _, v := range []string{"paris", "park", "party", "test", "testing"} {
		if strings.HasPrefix(v, req.Params.Argument.Value) {
			values = append(values, v)
		}
	}
	if values == nil {
		values = []string{}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}
