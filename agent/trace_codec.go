package agent

import (
	"encoding/json"
	"fmt"
)

// EncodeTrace is the JSON stored with a conversation turn for its trace.
func EncodeTrace(events []Event) ([]byte, error) {
	b, err := json.Marshal(events)
	if err != nil {
		return nil, fmt.Errorf("agent: encode trace: %w", err)
	}
	return b, nil
}

// DecodeTrace reads a trace stored by EncodeTrace. Empty input is an empty trace.
func DecodeTrace(b []byte) ([]Event, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var events []Event
	if err := json.Unmarshal(b, &events); err != nil {
		return nil, fmt.Errorf("agent: decode trace: %w", err)
	}
	return events, nil
}

// EncodeCitations is the JSON stored with a conversation turn for its citations.
func EncodeCitations(cs []Citation) ([]byte, error) {
	b, err := json.Marshal(cs)
	if err != nil {
		return nil, fmt.Errorf("agent: encode citations: %w", err)
	}
	return b, nil
}

// DecodeCitations reads citations stored by EncodeCitations. Empty input is no citations.
func DecodeCitations(b []byte) ([]Citation, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var cs []Citation
	if err := json.Unmarshal(b, &cs); err != nil {
		return nil, fmt.Errorf("agent: decode citations: %w", err)
	}
	return cs, nil
}
