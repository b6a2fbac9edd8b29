package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/parse"
	"github.com/hopwise/hopwise/samples"
	"github.com/hopwise/hopwise/urlfetch"
)

func (c *cli) ingestCommand() *cobra.Command {
	var withSamples, replace bool
	cmd := &cobra.Command{
		Use:   "ingest [--samples] PATH|URL...",
		Short: "ingest files, folders or web pages and wait until they are done",
		Long: `Ingest files, folders (.txt .md .html .pdf .docx .odt .xlsx .pptx .csv .epub below them) or public web pages (http and https URLs,
which pass a guard against private addresses), each parsed, chunked, embedded and its entity graph
extracted, and wait until they are done. Each file is reported on stdout as it ends (done, FAIL with the
reason, skip); one that fails does not stop the others. An interrupted ingest resumes where it stopped.
--samples adds the sample documents this binary carries (six short files about a fictional company, its
travel policy and EU flight compensation), to try Hopwise without files of your own.
--replace reads a file with the name of a stored document as its new version: questions see the old
version until the new one is ingested, then only the new one; passages that did not change are neither
embedded nor extracted again.`,
		Example: `  hopwise ingest --samples
  hopwise ingest ~/notes
  hopwise ingest report.pdf https://example.org/page.html
  hopwise ingest --replace handbook.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !withSamples {
				return errors.New("name at least one file, folder or URL, or --samples")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&withSamples, "samples", false, "also ingest the sample documents carried by the binary")
	cmd.Flags().BoolVar(&replace, "replace", false, "a file named like a stored document replaces it once ingested")
	cfg := c.settings(cmd, storeFlags, modelFlags, ingestFlags)
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, args []string) error {
		if withSamples {
			for _, d := range samples.List() {
				args = append(args, sampleSource+d.Name)
			}
		}
		return ingest(ctx, c.e, cfg, logger, args, replace)
	})
	return cmd
}

func ingest(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, args []string, replace bool) error {
	files, skipped, err := collectFiles(args)
	if err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintf(e.stdout, "skip  %s: not a supported format\n", s)
	}
	a, err := openApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	progress, unsubscribe := a.ingester.Subscribe()
	defer unsubscribe()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.ingester.Run(runCtx) }()
	submitCtx, cancelSubmit := context.WithCancel(ctx)
	submit := a.ingester.Submit
	if replace {
		submit = func(ctx context.Context, name string, r io.Reader) (graphrag.Document, bool, error) {
			return a.ingester.SubmitReplacing(ctx, name, "", r)
		}
	}
	results := submitAll(submitCtx, submit, files, min(urlfetch.DefaultMaxBytes, cfg.MaxUploadBytes))
	failed, err := newIngestWait(e, a.store).await(ctx, results, progress, pollEvery)
	cancelSubmit()
	for range results { // the submitter stops: wait for it before the store closes
	}
	stop()
	<-done
	if err != nil {
		return err
	}
	refreshCommunities(ctx, e, a)
	if failed > 0 {
		return fmt.Errorf("%d of %d file(s) or page(s) failed; the others were ingested", failed, len(files))
	}
	return nil
}

// sampleSource marks a source that names one of the sample documents (package samples).
const sampleSource = "sample:"

// submitFunc hands one file to the ingester: Ingester.Submit, or SubmitReplacing for --replace.
type submitFunc func(ctx context.Context, name string, r io.Reader) (graphrag.Document, bool, error)

// submitSource submits a file, a sample document, or a web page fetched through urlfetch's guard against
// private addresses.
func submitSource(ctx context.Context, submit submitFunc, source string, maxPage int64) (graphrag.Document, bool, error) {
	if name, ok := strings.CutPrefix(source, sampleSource); ok {
		for _, d := range samples.List() {
			if d.Name == name {
				return submit(ctx, d.Name, bytes.NewReader(d.Body))
			}
		}
		return graphrag.Document{}, false, fmt.Errorf("no sample document %q", name)
	}
	if !isURL(source) {
		return submitFile(ctx, submit, source)
	}
	page, err := urlfetch.Fetch(ctx, source, urlfetch.Options{MaxBytes: maxPage})
	if err != nil {
		return graphrag.Document{}, false, err
	}
	return submit(ctx, page.Name, bytes.NewReader(page.Body))
}

// isURL tells an address (any scheme: urlfetch refuses all but http and https) from a path.
func isURL(arg string) bool { return strings.Contains(arg, "://") }

func submitFile(ctx context.Context, submit submitFunc, path string) (graphrag.Document, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return graphrag.Document{}, false, err
	}
	defer f.Close()
	return submit(ctx, path, f)
}

// collectFiles expands folders into the supported files below them, sorted; named files are kept whatever
// their extension so that an unsupported one gets its own clear error. Web addresses and sample documents
// follow the files, in the order given.
func collectFiles(args []string) (files, skipped []string, err error) {
	var urls []string
	for _, a := range args {
		if isURL(a) || strings.HasPrefix(a, sampleSource) {
			urls = append(urls, a)
			continue
		}
		info, err := os.Stat(a)
		if err != nil {
			return nil, nil, err
		}
		if !info.IsDir() {
			files = append(files, a)
			continue
		}
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if parse.Supported(p) {
				files = append(files, p)
			} else {
				skipped = append(skipped, p)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	sort.Strings(files)
	return append(files, urls...), skipped, nil
}
