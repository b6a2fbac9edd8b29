package auth

import (
	"sync"
	"time"
)

// attempts counts failed sign-ins per key (an account name, a client address) over a sliding window, in
// memory: each serve process counts its own. At most maxKeys keys are held; past that the oldest-seen are
// forgotten first, so a flood of invented names cannot grow the map without bound.
type attempts struct {
	mu      sync.Mutex
	max     int
	window  time.Duration
	maxKeys int
	fails   map[string][]time.Time
}

func newAttempts(max int, window time.Duration) *attempts {
	return &attempts{max: max, window: window, maxKeys: 10000, fails: map[string][]time.Time{}}
}

// blocked reports whether key has max failures within the window before now, and when the oldest of
// them leaves it.
func (a *attempts) blocked(key string, now time.Time) (bool, time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	recent := a.recent(key, now)
	if len(recent) < a.max {
		return false, time.Time{}
	}
	return true, recent[len(recent)-a.max].Add(a.window)
}

// fail records a failure of key at now.
func (a *attempts) fail(key string, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	recent := a.recent(key, now)
	if len(a.fails) >= a.maxKeys && len(recent) == 0 {
		a.evict(now)
	}
	recent = append(recent, now)
	if len(recent) > a.max {
		recent = recent[len(recent)-a.max:]
	}
	a.fails[key] = recent
}

// reset forgets key's failures (a successful sign-in of that account).
func (a *attempts) reset(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.fails, key)
}

// recent drops key's failures older than the window and returns the rest, oldest first.
func (a *attempts) recent(key string, now time.Time) []time.Time {
	list := a.fails[key]
	i := 0
	for i < len(list) && !list[i].After(now.Add(-a.window)) {
		i++
	}
	if i == len(list) {
		delete(a.fails, key)
		return nil
	}
	list = list[i:]
	a.fails[key] = list
	return list
}

// evict forgets every key whose last failure left the window, and when none did, the one seen longest ago.
func (a *attempts) evict(now time.Time) {
	var oldestKey string
	var oldest time.Time
	for k, list := range a.fails {
		last := list[len(list)-1]
		if !last.After(now.Add(-a.window)) {
			delete(a.fails, k)
			continue
		}
		if oldestKey == "" || last.Before(oldest) {
			oldestKey, oldest = k, last
		}
	}
	if len(a.fails) >= a.maxKeys {
		delete(a.fails, oldestKey)
	}
}
