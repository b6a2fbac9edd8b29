package handlers

import (
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/hopwise/hopwise/graphrag/parse"
	"github.com/labstack/echo/v4"
)

// partFile is one file of an upload, spooled to a temporary file, or the reason it cannot be taken.
type partFile struct {
	name     string
	path     string // the spooled bytes; empty when refused
	size     int64  // bytes received, up to one past the per-file limit
	badName  bool   // the name held a NUL or another control character
	tooLarge bool
}

// readParts spools every file of a multipart upload ("files" or "file" fields) to temporary files, one
// part at a time, so that a part whose headers cannot be read (a NUL in its file name is refused by the
// MIME header parser) fails alone instead of failing the whole upload. Each file is read at most one
// byte past maxFile. The request limit still refuses the whole upload with 413. remove deletes the
// spooled files.
func readParts(r *http.Request, maxFile int64) (files []partFile, remove func(), err error) {
	remove = func() {
		for _, f := range files {
			if f.path != "" {
				os.Remove(f.path)
			}
		}
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, remove, echo.NewHTTPError(http.StatusBadRequest, "Send the files as a multipart form (field “files”).")
	}
	resyncing := false // after a part with unreadable headers, until the next readable part
	for {
		p, err := mr.NextPart()
		switch {
		case err == io.EOF:
			return files, remove, nil
		case isBodyError(err):
			return files, remove, err
		case err != nil:
			// The parser skips the rest of the bad part line by line, one error each: one file.
			if !resyncing {
				files = append(files, partFile{name: partNameOf(err), badName: true})
			}
			resyncing = true
			continue
		}
		resyncing = false
		if (p.FormName() != "files" && p.FormName() != "file") || p.FileName() == "" {
			if _, err := io.Copy(io.Discard, p); isBodyError(err) {
				return files, remove, err
			}
			continue
		}
		f, err := spool(p, maxFile)
		files = append(files, f)
		if err != nil {
			return files, remove, err
		}
	}
}

func spool(p *multipart.Part, maxFile int64) (partFile, error) {
	f := partFile{name: p.FileName()}
	tmp, err := os.CreateTemp("", "hopwise-upload-*")
	if err != nil {
		return f, err
	}
	f.path = tmp.Name()
	f.size, err = io.Copy(tmp, io.LimitReader(p, maxFile+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return f, err
	}
	if f.size > maxFile {
		f.tooLarge = true
		// The rest of the part is skipped by the next NextPart, still within the request limit.
	}
	return f, nil
}

// isBodyError reports an error of the request body itself (too large, too slow, cut off), which ends
// the whole upload, as opposed to a malformed part.
func isBodyError(err error) bool {
	var tooBig *http.MaxBytesError
	return errors.As(err, &tooBig) || errors.Is(err, errSlowBody) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, multipart.ErrMessageTooLarge)
}

var headerFileName = regexp.MustCompile(`filename="([^"]*)"`)

// partNameOf is the file name quoted in the header parser's error, with control characters dropped,
// so the person sees which file was refused.
func partNameOf(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '"'); i >= 0 { // the parser quotes the header line with %q
		if line, uerr := strconv.Unquote(msg[i:]); uerr == nil {
			msg = line
		}
	}
	if m := headerFileName.FindStringSubmatch(msg); m != nil {
		if n := parse.DisplayName(m[1]); n != "" {
			return n
		}
	}
	return "a file"
}
