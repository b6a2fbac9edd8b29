package apiv1_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hopwise/hopwise/apiv1"
	"github.com/hopwise/hopwise/graphrag"
)

func TestPage(t *testing.T) {
	items := make([]int, 120)
	for i := range items {
		items[i] = i
	}
	three := 3
	cases := []struct {
		name          string
		offset, limit int
		first, n      int
		next          *int
		bad           bool
	}{
		{name: "default size", offset: 0, limit: 0, first: 0, n: apiv1.DefaultPageSize, next: ptr(apiv1.DefaultPageSize)},
		{name: "middle", offset: 1, limit: 2, first: 1, n: 2, next: &three},
		{name: "last page", offset: 100, limit: 50, first: 100, n: 20},
		{name: "exactly to the end", offset: 60, limit: 60, first: 60, n: 60},
		{name: "past the end", offset: 500, limit: 10, n: 0},
		{name: "limit capped", offset: 0, limit: 10_000, first: 0, n: 120},
		{name: "negative offset", offset: -1, bad: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page, next, err := apiv1.Page(items, tc.offset, tc.limit)
			if tc.bad {
				if !errors.Is(err, apiv1.ErrBadInput) {
					t.Fatalf("err %v, want ErrBadInput", err)
				}
				return
			}
			if err != nil || len(page) != tc.n || (tc.n > 0 && page[0] != tc.first) || (next == nil) != (tc.next == nil) ||
				(next != nil && *next != *tc.next) {
				t.Errorf("page %v (%d items), next %v, err %v; want %d items from %d, next %v", page[:min(3, len(page))], len(page), next, err, tc.n, tc.first, tc.next)
			}
		})
	}
}

func ptr(n int) *int { return &n }

// entityStore knows two entities and finds "Deutsche Lufthansa AG" by search only.
type entityStore struct{ apiv1.Store }

func (entityStore) Entities(_ context.Context, keys []string) ([]graphrag.Entity, error) {
	var out []graphrag.Entity
	for _, k := range keys {
		if k == "munich" {
			out = append(out, graphrag.Entity{Key: "munich", Name: "Munich", Type: "city"})
		}
	}
	return out, nil
}

func (entityStore) SearchEntities(_ context.Context, q string, _ int) ([]graphrag.Entity, error) {
	if q == "Lufthansa" {
		return []graphrag.Entity{{Key: "deutsche lufthansa", Name: "Deutsche Lufthansa AG", Type: "organization"}}, nil
	}
	return nil, nil
}

func TestEntityByKeyNameOrSearch(t *testing.T) {
	svc := apiv1.Service{Store: entityStore{}}
	cases := []struct{ in, key string }{{"munich", "munich"}, {" Munich ", "munich"}, {"Lufthansa", "deutsche lufthansa"}}
	for _, tc := range cases {
		e, err := svc.Entity(context.Background(), tc.in)
		if err != nil || e.Key != tc.key {
			t.Errorf("Entity(%q) = %+v, %v; want key %q", tc.in, e, err, tc.key)
		}
	}
	if _, err := svc.Entity(context.Background(), "Atlantis"); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("unknown entity: %v", err)
	}
	if _, err := svc.Entity(context.Background(), "  "); !errors.Is(err, apiv1.ErrBadInput) {
		t.Errorf("empty name: %v", err)
	}
}
