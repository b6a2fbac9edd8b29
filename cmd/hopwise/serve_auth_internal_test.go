package main

import "testing"

func TestLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:8080": true, "[::1]:8080": true, "127.0.0.2:80": true,
		"0.0.0.0:8080": false, ":8080": false, "[::]:8080": false, "192.168.1.20:8080": false,
		"hopwise.example.org:8080": false, "not an address": false,
	} {
		if got := loopbackAddr(addr); got != want {
			t.Errorf("loopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}
