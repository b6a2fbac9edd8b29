package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"time"
)

// The vector index file keeps the index beside the store (vectorIndexPath), so that opening a large store
// reads the compact codes instead of decoding every float32 vector of the file. The store file counts every
// change of the searchable vectors (the vector_changes row and its triggers, migration 11) under a random
// token of its own; the index file records the token and count it holds. Open uses the file only when both
// match, and rebuilds the index from the store file otherwise (no file, a crash since it was written, a
// write the process did not follow, another store file at the same path, a damaged file); Close writes it
// when the index followed every change.
//
// Layout, little-endian: magic, dim u32, count u64, changes i64, meanOf u64, token length u16 and bytes,
// mean dim×f32, seqs count×i64, scales count×f32, factors count×f32, zeros to a multiple of
// vectorIndexAlign, codes count×dim bytes, zeros to a multiple of vectorIndexAlign, the blocks of bits as
// the index holds them (vector_index_bits.go: ⌈count/32⌉ blocks of words×256 bytes, lanes past the last
// vector zero), then the CRC-32C of everything before it. The codes and the blocks, nine tenths of the
// file, start at page boundaries so that Open maps them (vector_index_map_unix.go) instead of reading them
// into the heap.
const vectorIndexMagic = "HWVECIX4"

// vectorIndexAlign is where the codes and the blocks start: a multiple of every page size in use.
const vectorIndexAlign = 1 << 16

// indexLayout is where each part of an index file of count vectors lies.
type indexLayout struct {
	headEnd, codesAt, codesEnd, blocksAt, blocksEnd int64
}

func (v *vectorIndex) layout(token string, count int) indexLayout {
	align := func(n int64) int64 { return (n + vectorIndexAlign - 1) / vectorIndexAlign * vectorIndexAlign }
	var l indexLayout
	l.headEnd = int64(vectorIndexHeadSize+len(token)) + 4*int64(v.dim) + int64(count)*(8+4+4)
	l.codesAt = align(l.headEnd)
	l.codesEnd = l.codesAt + int64(count)*int64(v.dim)
	l.blocksAt = align(l.codesEnd)
	l.blocksEnd = l.blocksAt + int64(v.blocksFor(count))
	return l
}

// vectorIndexPath is the index file of the store file at path.
func vectorIndexPath(path string) string { return path + ".vectors" }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// vectorChanges reads the file's token and count of vector changes.
func vectorChanges(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (token string, n int64, err error) {
	err = q.QueryRowContext(ctx, `SELECT token, n FROM vector_changes WHERE id = 1`).Scan(&token, &n)
	return token, n, err
}

// changeCount reads the count alone, in a vector-changing transaction.
func changeCount(ctx context.Context, tx *sql.Tx) (int64, error) {
	var n int64
	err := tx.QueryRowContext(ctx, `SELECT n FROM vector_changes WHERE id = 1`).Scan(&n)
	return n, err
}

// save writes the index to path under token, through a temporary file renamed over it, so that a crash
// leaves the old file or the new one. The caller keeps the index still (vecMu).
func (v *vectorIndex) save(path, token string) error {
	v.mu.RLock()
	defer v.mu.RUnlock()
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	sum := crc32.New(castagnoli)
	w := bufio.NewWriterSize(io.MultiWriter(f, sum), 1<<20)
	var head []byte
	head = append(head, vectorIndexMagic...)
	head = binary.LittleEndian.AppendUint32(head, uint32(v.dim))
	head = binary.LittleEndian.AppendUint64(head, uint64(len(v.seqs)))
	head = binary.LittleEndian.AppendUint64(head, uint64(v.changes))
	head = binary.LittleEndian.AppendUint64(head, uint64(v.meanOf))
	head = binary.LittleEndian.AppendUint16(head, uint16(len(token)))
	head = append(head, token...)
	w.Write(head)
	writeWords(w, len(v.mean), func(i int) uint64 { return uint64(math.Float32bits(v.mean[i])) }, 4)
	writeWords(w, len(v.seqs), func(i int) uint64 { return uint64(v.seqs[i]) }, 8)
	writeWords(w, len(v.scale), func(i int) uint64 { return uint64(math.Float32bits(v.scale[i])) }, 4)
	writeWords(w, len(v.factor), func(i int) uint64 { return uint64(math.Float32bits(v.factor[i])) }, 4)
	l := v.layout(token, len(v.seqs))
	w.Write(make([]byte, l.codesAt-l.headEnd))
	w.Write(v.codes)
	w.Write(make([]byte, l.blocksAt-l.codesEnd))
	w.Write(v.blocks)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32())); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// writeWords writes n values of size bytes (4 or 8) that at gives, little-endian.
func writeWords(w *bufio.Writer, n int, at func(i int) uint64, size int) {
	var b [8]byte
	for i := range n {
		binary.LittleEndian.PutUint64(b[:], at(i))
		w.Write(b[:size])
	}
}

// indexFileHeader reads the token and change count an index file records.
func indexFileHeader(path string) (token string, changes int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	head := make([]byte, vectorIndexHeadSize)
	if _, err := io.ReadFull(f, head); err != nil {
		return "", 0, err
	}
	if string(head[:len(vectorIndexMagic)]) != vectorIndexMagic {
		return "", 0, fmt.Errorf("not a vector index file")
	}
	h := head[len(vectorIndexMagic):]
	tok := make([]byte, binary.LittleEndian.Uint16(h[28:]))
	if _, err := io.ReadFull(f, tok); err != nil {
		return "", 0, err
	}
	return string(tok), int64(binary.LittleEndian.Uint64(h[12:])), nil
}

// vectorIndexHeadSize is the size of the header before the token.
const vectorIndexHeadSize = len(vectorIndexMagic) + 4 + 8 + 8 + 8 + 2

// errIndexStale is a vector index file that does not hold the store file's vectors as they are.
var errIndexStale = errors.New("stale")

// loadVectorIndex reads the index file at path when it holds the vectors of dimension dim at the file's
// token and change count; otherwise it fails, wrapping os.ErrNotExist or errIndexStale, or saying what is
// damaged. The codes and the blocks are mapped from the file where the system allows (mapRegion) and
// unmap, when not nil, releases them: every index holding them must be emptied first (releaseVectors).
func loadVectorIndex(path string, dim int, token string, changes int64) (_ *vectorIndex, unmap func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	head := make([]byte, vectorIndexHeadSize)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	if string(head[:len(vectorIndexMagic)]) != vectorIndexMagic {
		return nil, nil, fmt.Errorf("not a vector index file")
	}
	h := head[len(vectorIndexMagic):]
	fileDim, count := int(binary.LittleEndian.Uint32(h)), binary.LittleEndian.Uint64(h[4:])
	fileChanges, meanOf := int64(binary.LittleEndian.Uint64(h[12:])), binary.LittleEndian.Uint64(h[20:])
	fileToken := make([]byte, binary.LittleEndian.Uint16(h[28:]))
	if _, err := f.ReadAt(fileToken, int64(len(head))); err != nil {
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	switch {
	case string(fileToken) != token:
		return nil, nil, fmt.Errorf("%w: written for another store file", errIndexStale)
	case fileChanges != changes:
		return nil, nil, fmt.Errorf("%w: holds change %d of the vectors, the store file is at %d", errIndexStale, fileChanges, changes)
	case fileDim != dim:
		return nil, nil, fmt.Errorf("%w: of dimension %d, the store's is %d", errIndexStale, fileDim, dim)
	case count > uint64(st.Size()):
		return nil, nil, fmt.Errorf("%d bytes, too few for %d vectors", st.Size(), count)
	}
	v := newVectorIndex(dim)
	n := int(count)
	l := v.layout(token, n)
	if st.Size() != l.blocksEnd+4 {
		return nil, nil, fmt.Errorf("%d bytes, want %d for %d vectors", st.Size(), l.blocksEnd+4, count)
	}
	// The small parts and the padding are read; the codes and blocks mapped, or read where they cannot be.
	front := make([]byte, l.codesAt)
	if _, err := f.ReadAt(front, 0); err != nil {
		return nil, nil, err
	}
	var unmaps []func()
	defer func() {
		if err != nil {
			for _, u := range unmaps {
				u()
			}
		}
	}()
	region := func(at, end int64) ([]byte, error) {
		b, u, err := mapRegion(f, at, int(end-at))
		if u != nil {
			unmaps = append(unmaps, u)
		}
		return b, err
	}
	codes, err := region(l.codesAt, l.codesEnd)
	if err != nil {
		return nil, nil, fmt.Errorf("codes: %w", err)
	}
	gap := make([]byte, l.blocksAt-l.codesEnd+4)
	if _, err := f.ReadAt(gap[:len(gap)-4], l.codesEnd); err != nil {
		return nil, nil, err
	}
	blocks, err := region(l.blocksAt, l.blocksEnd)
	if err != nil {
		return nil, nil, fmt.Errorf("blocks: %w", err)
	}
	tail := gap[len(gap)-4:]
	if _, err := f.ReadAt(tail, l.blocksEnd); err != nil {
		return nil, nil, err
	}
	sum := crc32.Update(0, castagnoli, front)
	sum = crc32.Update(sum, castagnoli, codes)
	sum = crc32.Update(sum, castagnoli, gap[:len(gap)-4])
	sum = crc32.Update(sum, castagnoli, blocks)
	if binary.LittleEndian.Uint32(tail) != sum {
		return nil, nil, fmt.Errorf("checksum mismatch")
	}
	v.meanOf, v.changes = int(meanOf), changes
	v.seqs, v.scale, v.factor = make([]int64, n), make([]float32, n), make([]float32, n)
	v.codes, v.blocks = codes, blocks
	at := int(vectorIndexHeadSize) + len(fileToken)
	for i := range v.mean {
		v.mean[i] = math.Float32frombits(binary.LittleEndian.Uint32(front[at+4*i:]))
	}
	at += 4 * dim
	for i := range n {
		v.seqs[i] = int64(binary.LittleEndian.Uint64(front[at+8*i:]))
	}
	at += 8 * n
	for i := range n {
		v.scale[i] = math.Float32frombits(binary.LittleEndian.Uint32(front[at+4*i:]))
		v.factor[i] = math.Float32frombits(binary.LittleEndian.Uint32(front[at+4*n+4*i:]))
	}
	for i, seq := range v.seqs {
		v.slot.set(seq, int32(i))
	}
	if v.slot.len() != n {
		return nil, nil, fmt.Errorf("a chunk appears twice")
	}
	if len(unmaps) > 0 {
		unmap = func() {
			for _, u := range unmaps {
				u()
			}
		}
	}
	return v, unmap, nil
}

// loadVectors fills the vector index from its file when that is current, else from the store file's
// vectors (logging why and how far it got), and remembers the token for Close. Once begun it runs to its
// end whatever becomes of ctx: an index left half loaded would answer searches without the rest.
func (s *Store) loadVectors(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	start := time.Now()
	token, changes, err := vectorChanges(ctx, s.reader)
	if err != nil {
		return err
	}
	path := vectorIndexPath(s.path)
	idx, unmap, err := loadVectorIndex(path, s.embedDim(), token, changes)
	if err == nil {
		if unmap != nil {
			s.vectorMaps = append(s.vectorMaps, unmap)
		}
		idx.origin = "file"
		s.vectors.replaceWith(idx)
		s.vectors.changes, s.vectors.origin = idx.changes, idx.origin
		s.vectors.saved = changes
		s.logger.Debug("sqlite vector index read", "path", path, "vectors", len(idx.seqs), "took", time.Since(start).Round(time.Millisecond))
		return nil
	}
	why := err.Error()
	if errors.Is(err, os.ErrNotExist) {
		why = "no index file"
	}
	s.vectors.saved = -1
	s.vectors.origin = "rebuilt: " + why
	return s.rebuildVectors(ctx, why)
}

// rebuildVectors fills the vector index from the store file's vectors, in one read transaction with the
// change count it then holds.
func (s *Store) rebuildVectors(ctx context.Context, why string) error {
	start := time.Now()
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, changes, err := vectorChanges(ctx, tx)
	if err != nil {
		return err
	}
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE embedding IS NOT NULL`).Scan(&total); err != nil {
		return err
	}
	if total > 0 {
		s.logger.Info("sqlite vector index: building from the store file", "path", s.path, "why", why, "vectors", total)
	}
	rows, err := tx.QueryContext(ctx, `SELECT c.seq, c.embedding FROM chunks c JOIN documents d ON d.id = c.doc_id
		WHERE c.embedding IS NOT NULL AND d.replaces = ''`)
	if err != nil {
		return err
	}
	done, next := 0, time.Now().Add(5*time.Second)
	err = scanVectors(rows, s.embedDim(), func(seq int64, vec []float32) {
		s.vectors.put(seq, vec)
		if done++; time.Now().After(next) {
			s.logger.Info("sqlite vector index: building", "path", s.path, "done", done, "of", total)
			next = time.Now().Add(5 * time.Second)
		}
	})
	if err != nil {
		return err
	}
	s.vectors.changes = changes
	if total > 0 {
		s.logger.Info("sqlite vector index built", "path", s.path, "vectors", s.vectors.len(), "took", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// saveVectors writes the vector index file when the index followed every change of the store file and the
// file on disk is older; when it did not follow, it removes the file, which would be stale.
func (s *Store) saveVectors(ctx context.Context) {
	s.vecMu.Lock()
	defer s.vecMu.Unlock()
	if s.vectors.origin == "" {
		return // never loaded: Open failed before
	}
	path := vectorIndexPath(s.path)
	token, changes, err := vectorChanges(ctx, s.reader)
	if err != nil {
		s.logger.Warn("sqlite vector index not saved", "path", path, "err", err)
		return
	}
	s.vectors.mu.RLock()
	known := s.vectors.changes
	s.vectors.mu.RUnlock()
	if known != changes {
		// Another process or a path this index does not follow changed the vectors: unless the file holds
		// them as they are now (another Store on this file wrote it), the next Open rebuilds.
		if fileToken, fileChanges, err := indexFileHeader(path); err == nil && fileToken == token && fileChanges == changes {
			return
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.logger.Warn("sqlite vector index: remove the stale file", "path", path, "err", err)
		}
		s.logger.Info("sqlite vector index not saved: the store file changed without it", "path", path)
		return
	}
	if s.vectors.saved == changes {
		return
	}
	start := time.Now()
	if err := s.vectors.save(path, token); err != nil {
		s.logger.Warn("sqlite vector index not saved", "path", path, "err", err)
		return
	}
	s.vectors.saved = changes
	s.logger.Debug("sqlite vector index saved", "path", path, "took", time.Since(start).Round(time.Millisecond))
}

// readRegion reads n bytes of f from offset at.
func readRegion(f *os.File, at int64, n int) ([]byte, func(), error) {
	b := make([]byte, n)
	if _, err := f.ReadAt(b, at); err != nil {
		return nil, nil, err
	}
	return b, nil, nil
}

// releaseVectors empties the vector index and the one a re-embedding replaced, with no search running
// (swapMu), and then unmaps the index file's codes and blocks they were read from: a search after Close
// finds nothing instead of reading unmapped memory.
func (s *Store) releaseVectors() {
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	s.vectors.replaceWith(newVectorIndex(s.vectors.dim))
	s.previous = nil
	for _, unmap := range s.vectorMaps {
		unmap()
	}
	s.vectorMaps = nil
}
