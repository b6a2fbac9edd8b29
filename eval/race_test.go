//go:build race

package eval_test

// raceDetector: the race detector slows the embedded SQLite store about twentyfold, so the dev-set test
// runs a representative subset there.
const raceDetector = true
