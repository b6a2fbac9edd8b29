package handlers

import "net/http"

// openAIErrorBody is an error as OpenAI's API states it, which its client libraries read.
type openAIErrorBody struct {
	Error openAIError `json:"error"`
}

type openAIError struct {
	Message string  `json:"message"`
	Type    string  `json:"type" jsonschema:"invalid_request_error, permission_error, not_found_error, rate_limit_error or server_error"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func newOpenAIError(status int, message string) openAIErrorBody {
	typ := "invalid_request_error"
	switch {
	case status == http.StatusUnauthorized:
		typ = "authentication_error"
	case status == http.StatusForbidden:
		typ = "permission_error"
	case status == http.StatusNotFound:
		typ = "not_found_error"
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case status >= 500:
		typ = "server_error"
	}
	return openAIErrorBody{Error: openAIError{Message: message, Type: typ}}
}
