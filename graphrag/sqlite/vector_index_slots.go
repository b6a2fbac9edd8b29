package sqlite

// slotTable maps chunk seqs (the rowids of chunks, which SQLite hands out one after another) to index
// slots: a slice indexed by seq while the seqs are dense, which a million of fill in milliseconds when the
// index file is read, where a map took about 90 ms; a map once a seq lies far past the others' count.
type slotTable struct {
	dense  []int32 // dense[seq] is slot+1; 0: no slot
	sparse map[int64]int32
	n      int
}

// denseUpTo is the largest seq the slice may hold for n slots: four times as many as slots, and more.
func denseUpTo(n int) int64 { return 4*int64(n) + 1<<16 }

func (t *slotTable) len() int { return t.n }

func (t *slotTable) get(seq int64) (int32, bool) {
	if t.sparse != nil {
		i, ok := t.sparse[seq]
		return i, ok
	}
	if seq < 0 || seq >= int64(len(t.dense)) || t.dense[seq] == 0 {
		return 0, false
	}
	return t.dense[seq] - 1, true
}

// set maps seq to slot i, replacing its slot if it had one.
func (t *slotTable) set(seq int64, i int32) {
	if _, ok := t.get(seq); !ok {
		t.n++
	}
	if t.sparse == nil && (seq < 0 || seq > denseUpTo(t.n)) {
		t.sparse = make(map[int64]int32, t.n)
		for s, x := range t.dense {
			if x != 0 {
				t.sparse[int64(s)] = x - 1
			}
		}
		t.dense = nil
	}
	if t.sparse != nil {
		t.sparse[seq] = i
		return
	}
	if seq >= int64(len(t.dense)) {
		t.dense = append(t.dense, make([]int32, int(seq)+1-len(t.dense)+len(t.dense)/2)...)
	}
	t.dense[seq] = i + 1
}

func (t *slotTable) delete(seq int64) {
	if _, ok := t.get(seq); !ok {
		return
	}
	t.n--
	if t.sparse != nil {
		delete(t.sparse, seq)
		return
	}
	t.dense[seq] = 0
}
