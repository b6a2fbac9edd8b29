//go:build !race

package resolve_test

const raceDetector = false
