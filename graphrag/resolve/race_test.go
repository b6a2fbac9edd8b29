//go:build race

package resolve_test

// raceDetector: the race detector slows the embedded SQLite store and the scripted model about twentyfold,
// so the order test reads fewer documents there.
const raceDetector = true
