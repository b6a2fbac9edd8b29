package graphrag

import "sync"

// Progress is a snapshot of one document's job, published at every step so a UI can show it live.
type Progress struct {
	DocID     string
	Name      string
	Status    DocStatus
	Done      int // chunks finished in the current step
	Total     int // chunks in the current step
	Error     string
	Duplicate bool // the upload matched a document that was already ingested
}

// bus fans progress out to subscribers without ever blocking a job. A subscriber that falls behind loses
// the oldest snapshots in its channel, whichever document they are of and final ones (done, failed)
// included: a full channel drops its oldest to take the newest. Whoever must see a job end reads the
// document's status from the store as well, as `hopwise ingest` does.
type bus struct {
	mu   sync.Mutex
	subs map[chan Progress]struct{}
}

func newBus() *bus { return &bus{subs: map[chan Progress]struct{}{}} }

func (b *bus) subscribe() (<-chan Progress, func()) {
	ch := make(chan Progress, 256)
	b.mu.Lock()
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		if _, ok := b.subs[ch]; ok {
			delete(b.subs, ch)
			close(ch)
		}
		b.mu.Unlock()
	}
}

func (b *bus) publish(p Progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- p:
		default:
			// Full: drop the oldest snapshot to make room for this one.
			select {
			case <-ch:
			default:
			}
			select {
			case ch <- p:
			default:
			}
		}
	}
}
