package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestReplace: `ingest --replace` reads an edited file as the new version of the stored one, which
// it then replaces; without --replace the edited file is a second document.
func TestIngestReplace(t *testing.T) {
	bin := versionedHopwise(t)
	model, data, env := scriptedEnv(t)
	path := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(path, []byte("Lena Vogt met Arjun Mehta in Munich.\n\nPriya Raman works in Lisbon.\n"), 0o644)
	mustRun(t, bin, env, "ingest", path)
	first := docsOf(t, bin, data, model.URL())

	os.WriteFile(path, []byte("Lena Vogt met Arjun Mehta in Munich.\n\nSofia Duarte works in Porto.\n"), 0o644)
	out := mustRun(t, bin, env, "ingest", "--replace", path)
	if !strings.HasPrefix(out, "done  "+path+": d") {
		t.Errorf("ingest --replace: %q", out)
	}
	docs := docsOf(t, bin, data, model.URL())
	if len(docs) != 1 || docs[0].ID == first[0].ID || docs[0].Name != "notes.txt" {
		t.Fatalf("after ingest --replace: %+v, before %+v; want one notes.txt, the new version", docs, first)
	}

	os.WriteFile(path, []byte("Lena Vogt met Arjun Mehta in Munich.\n\nTomas Novak works in Brno.\n"), 0o644)
	mustRun(t, bin, env, "ingest", path)
	if docs := docsOf(t, bin, data, model.URL()); len(docs) != 2 {
		t.Errorf("plain ingest of an edited file: %d documents, want 2", len(docs))
	}
}
