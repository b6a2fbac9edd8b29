package web

import (
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	tests := []struct{ got, want string }{
		{Bytes(980), "980 B"},
		{Bytes(2355), "2.3 KB"},
		{Bytes(25 << 20), "25 MB"},
		{Bytes(3 << 30), "3 GB"},
		{Count(6169), "6,169"},
		{Count(1234567), "1,234,567"},
		{Count(12), "12"},
		{Duration(853 * time.Millisecond), "853 ms"},
		{Duration(4200 * time.Millisecond), "4.2 s"},
		{Duration(65 * time.Second), "1 min 5 s"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
