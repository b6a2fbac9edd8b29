package graphrag

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ReextractState is how far a re-extraction of the graph is: the chat model being staged (empty when no
// re-extraction is under way), the embedding space its facts' vectors were staged in, when it began, and
// the passages to extract again (those of finished documents that were extracted or failed) against
// those with a staged extraction, of which Kept keep what the graph holds for them.
type ReextractState struct {
	Model          string
	Space          EmbeddingSpace
	Since          time.Time
	Chunks, Staged int
	Kept           int
}

// ReextractStore extracts the graph of every passage again beside the graph searches read: each
// passage's new extraction is staged on it, and CommitReextract swaps them all in at once, in one
// transaction, so a reader sees the old graph or the new one, never a mix. The state is kept in the store:
// a re-extraction interrupted at any point goes on where it stopped, keeping what was staged.
//
// While a re-extraction is under way, a passage extracted by an ingest (PutExtraction) is staged as kept:
// it was extracted with the configured model already.
type ReextractStore interface {
	// ReextractState reads the re-extraction under way, with its counts.
	ReextractState(ctx context.Context) (ReextractState, error)
	// BeginReextract stages extractions of model, with fact vectors of space, from now on. Begun again with
	// the same model and space it keeps what was staged; otherwise it drops what was staged first.
	BeginReextract(ctx context.Context, model string, space EmbeddingSpace) error
	// ReextractTodo returns up to limit passages of finished documents, extracted or failed, without a
	// staged extraction, in a stable order, read as Chunks reads them (with their document's name and
	// title).
	ReextractTodo(ctx context.Context, limit int) ([]Chunk, error)
	// StageReextraction records x as the new extraction of its chunk (keys and IDs resolved, fact vectors
	// of the re-extraction's space), or, with keep, that the chunk keeps what the graph holds for it (its
	// extraction failed again). No read sees it before CommitReextract. An unknown chunk is skipped;
	// staging without a re-extraction begun, or vectors of another dimension (ErrDimension), is an error.
	StageReextraction(ctx context.Context, x Extraction, keep bool) error
	// CommitReextract swaps the staged extractions in, in one transaction: each staged chunk's mentions
	// and supports are removed with the entities and relations left without any, then its new extraction
	// is merged as PutExtraction merges, rewritten first by the people's edits applied since the
	// re-extraction began (StagedEditRules); chunks kept keep their part of the graph. Passages still
	// without a staged extraction are ErrReextractIncomplete, and nothing changes.
	CommitReextract(ctx context.Context) error
}

// StagedEditRules are the rules a re-extraction's commit rewrites staged extractions by: the edits
// applied and made at or after since. The edits in force before were applied when each extraction was
// resolved; applying one again changes nothing (a rename's old name is an alias already, a merged key is
// gone). Of the resolver's edits, its merges count (but of a pair another of these edits keeps apart): a
// merge decided on a passage extracted later reaches the passages staged before it, as at ingest the
// resolver merges the entities stored before into the entity kept (resolve.Resolver.StoreResolved), so a
// re-extraction ends with the merges an ingest ends with whichever passage it extracted first, the
// entity kept named as the merge recorded (Edit.Name).
func StagedEditRules(edits []Edit, since time.Time) Rules {
	var later, resolver []Edit
	apart := map[[2]string]bool{}
	for _, e := range edits {
		if e.Status != EditApplied || e.CreatedAt.Before(since) {
			continue
		}
		if (e.Kind == EditDistinct || e.Kind == EditSplit) && len(e.Keys) > 1 {
			apart[[2]string{e.Keys[0], e.Keys[1]}], apart[[2]string{e.Keys[1], e.Keys[0]}] = true, true
		}
		if e.By != ByResolver {
			later = append(later, e)
		} else if e.Kind == EditMerge && len(e.Keys) > 1 {
			resolver = append(resolver, e)
		}
	}
	r := RuleSet(later)
	for _, e := range resolver {
		for _, gone := range e.Keys[1:] {
			if _, ruled := r.redirect[gone]; !ruled && gone != e.Keys[0] && !apart[[2]string{gone, e.Keys[0]}] {
				r.redirect[gone] = e.Keys[0] // a person's rule for the key comes first
			}
		}
		// the entity kept is named as the merge found it (PlanMerge keeps that name at ingest), not by
		// whichever staged passage comes first; a person's rename comes first
		if _, renamed := r.names[e.Keys[0]]; !renamed && e.Name != "" && NormalizeKey(e.Name) == e.Keys[0] {
			r.names[e.Keys[0]] = e.Name
		}
	}
	return r
}

// KeepStaged is the staged record of a passage that keeps its part of the graph.
const KeepStaged = "keep"

// StagedRecord is what a store keeps of a passage's staged extraction: x as JSON, or KeepStaged.
func StagedRecord(x Extraction, keep bool) (string, error) {
	if keep {
		return KeepStaged, nil
	}
	b, err := json.Marshal(x)
	return string(b), err
}

// CheckStaging refuses to stage x when no re-extraction has begun (model is empty) or x does not plan
// with fact vectors of the re-extraction's dimension (ErrDimension, ErrUnresolved).
func CheckStaging(model string, dim int, x Extraction, keep bool) error {
	if model == "" {
		return errors.New("no re-extraction has begun")
	}
	if keep {
		return nil
	}
	_, err := PlanExtraction(x, dim)
	return err
}

// CheckReextractCommit refuses a commit when no re-extraction has begun, or its facts were staged with
// vectors of another dimension than the store's now (re-embedded meanwhile).
func CheckReextractCommit(model string, stagedDim, dim int) error {
	if model == "" {
		return errors.New("no re-extraction has begun")
	}
	if stagedDim != dim {
		return fmt.Errorf("the facts were staged with vectors of %d dimensions and the store's are of %d now "+
			"(re-embedded meanwhile): begin the re-extraction again: %w", stagedDim, dim, ErrDimension)
	}
	return nil
}

// PlanStaged plans the staged record of chunk id (not KeepStaged) for a commit: read, rewritten by rules
// and planned with fact vectors of dim.
func PlanStaged(id, record string, rules Rules, dim int) (ExtractionPlan, error) {
	var x Extraction
	if err := json.Unmarshal([]byte(record), &x); err != nil {
		return ExtractionPlan{}, fmt.Errorf("chunk %s: staged extraction: %w", id, err)
	}
	x.ChunkID = id
	plan, err := PlanExtraction(rules.Apply(x), dim)
	if err != nil {
		return ExtractionPlan{}, fmt.Errorf("chunk %s: %w", id, err)
	}
	return plan, nil
}
