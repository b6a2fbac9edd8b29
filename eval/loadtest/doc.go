// Package loadtest drives a real Hopwise HTTP server (the handlers `hopwise serve` builds, on 127.0.0.1)
// with concurrent chats through the JSON/SSE ask API, against a scripted model of fixed latency, and
// reports throughput, latency percentiles, errors and how far the slowest answers are from the ideal of
// sequential rounds times model latency. It runs only when HOPWISE_LOAD=1 (`make load`).
package loadtest
