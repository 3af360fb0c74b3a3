package sfn

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/aws/smithy-go"
)

// apiError reads an awsJson1_0 error: its name from the X-Amzn-ErrorType
// header or the body's __type (or code), without a namespace before '#' or
// anything after ':'; its message from the body.
func apiError(resp *http.Response, body []byte) error {
	var info struct {
		Type    string `json:"__type"`
		Code    any    `json:"code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(body, &info) // an unreadable body leaves the code unknown
	code := resp.Header.Get("X-Amzn-ErrorType")
	if code == "" {
		code = info.Type
	}
	if s, ok := info.Code.(string); ok && code == "" {
		code = s
	}
	code, _, _ = strings.Cut(code, ":")
	if _, name, ok := strings.Cut(code, "#"); ok {
		code = name
	}
	if code == "" {
		code = "UnknownError"
	}
	msg := info.Message
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	fault := smithy.FaultClient
	if resp.StatusCode >= 500 {
		fault = smithy.FaultServer
	}
	return &smithy.GenericAPIError{Code: code, Message: msg, Fault: fault}
}

// errorCode is the service's name for err's refusal ("" for none).
func errorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}
