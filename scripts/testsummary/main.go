// Command testsummary reads `go test -json` on stdin, prints what `go test` would (each package's result,
// the output of failing tests, build errors), then a summary: how many tests passed, failed and were
// skipped, and every skipped test grouped by the reason it gave, which says how to run it. It exits 1 when
// a test or a package failed. `make test` pipes its test run through it; with -summary FILE the summary
// goes to FILE instead, for the caller to print after what runs next (the fuzz targets).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
}

type key struct{ pkg, test string }

type summary struct {
	out                     io.Writer
	logs                    map[key][]string
	passed, failed, skipped int
	failedPkgs              int
	skips                   map[string][]string // reason -> "pkg TestName"
}

func main() { os.Exit(run()) }

func run() int {
	path := flag.String("summary", "", "write the summary to this file instead of stdout")
	flag.Parse()
	s := &summary{out: os.Stdout, logs: map[key][]string{}, skips: map[string][]string{}}
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 1
	}
	if *path != "" {
		f, err := os.Create(*path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			return 1
		}
		defer f.Close()
		s.out = f
	}
	s.print()
	if s.failed > 0 || s.failedPkgs > 0 {
		return 1
	}
	return 0
}

func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(s.out, sc.Text()) // not an event: go's own message, such as a setup failure
			continue
		}
		s.handle(e)
	}
	return sc.Err()
}

func (s *summary) handle(e event) {
	k := key{e.Package, e.Test}
	switch {
	case e.Action == "build-output":
		fmt.Fprint(s.out, e.Output)
	case e.Action == "output" && e.Test == "":
		if !strings.HasPrefix(e.Output, "=== ") && e.Output != "PASS\n" && e.Output != "FAIL\n" {
			fmt.Fprint(s.out, e.Output) // the package's line (ok, FAIL, no test files) and output outside tests
		}
	case e.Action == "output":
		s.logs[k] = append(s.logs[k], e.Output)
	case e.Action == "pass" && e.Test != "":
		s.passed++
		delete(s.logs, k)
	case e.Action == "fail" && e.Test != "":
		s.failed++
		fmt.Fprint(s.out, strings.Join(s.logs[k], ""))
		delete(s.logs, k)
	case e.Action == "skip" && e.Test != "":
		s.skipped++
		reason := skipReason(s.logs[k])
		s.skips[reason] = append(s.skips[reason], strings.TrimPrefix(e.Package, module(e.Package))+" "+e.Test)
		delete(s.logs, k)
	case e.Action == "fail" && e.Test == "":
		s.failedPkgs++
	}
}

// skipReason is what a skipped test said, without the file:line prefix.
func skipReason(lines []string) string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		if i := strings.Index(t, ": "); i > 0 && strings.Contains(t[:i], ".go:") {
			t = t[i+2:]
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return "(no reason given)"
	}
	return strings.Join(out, " ")
}

// module is the module path prefix to drop from package names in the summary.
func module(pkg string) string {
	const m = "github.com/hopwise/hopwise/"
	if strings.HasPrefix(pkg, m) {
		return m
	}
	return ""
}

func (s *summary) print() {
	fmt.Fprintln(s.out)
	if len(s.skips) > 0 {
		fmt.Fprintf(s.out, "Skipped tests, by the reason they gave (it says how to run them):\n")
		reasons := make([]string, 0, len(s.skips))
		for r := range s.skips {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		for _, r := range reasons {
			tests := s.skips[r]
			sort.Strings(tests)
			fmt.Fprintf(s.out, "- %s\n    %d: %s\n", r, len(tests), strings.Join(tests, ", "))
		}
		fmt.Fprintln(s.out)
	}
	if s.failedPkgs > 0 {
		fmt.Fprintf(s.out, "%d package(s) failed\n", s.failedPkgs)
	}
	fmt.Fprintf(s.out, "tests: %d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped)
}
