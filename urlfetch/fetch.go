// Package urlfetch downloads one public web page for ingestion, guarded against server-side request
// forgery: only http and https, no credentials in the address, and no connection to a loopback, private,
// link-local (cloud metadata), multicast or otherwise non-public address. The address check runs when the
// connection is dialled, so it also covers redirects and names whose DNS answer changes between lookups.
package urlfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Defaults for the Options fields left zero.
const (
	DefaultMaxBytes     int64 = 10 << 20
	DefaultTimeout            = 20 * time.Second
	DefaultMaxRedirects       = 5
)

// Options bound one fetch. Zero fields take the defaults; MaxRedirects < 0 follows no redirect.
type Options struct {
	MaxBytes     int64         // largest body, counted after decompression
	Timeout      time.Duration // the whole fetch: dial, redirects, headers and body
	MaxRedirects int
	// Allow lists networks that may be dialled although they are not public. Tests use it to reach a
	// server on 127.0.0.1; in production it stays empty.
	Allow []netip.Prefix
}

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	switch {
	case o.MaxRedirects == 0:
		o.MaxRedirects = DefaultMaxRedirects
	case o.MaxRedirects < 0:
		o.MaxRedirects = 0
	}
	return o
}

// Page is a fetched page.
type Page struct {
	URL         string // after redirects
	Name        string // a file name whose extension (.html, .txt, .md, .pdf) says how to parse Body
	ContentType string // media type without parameters
	Body        []byte
}

// Fetch downloads rawURL within opt's limits. Its errors wrap the sentinels of this package (or a
// *StatusError); Reason turns them into a sentence for people.
func Fetch(ctx context.Context, rawURL string, opt Options) (Page, error) {
	opt = opt.withDefaults()
	g := guard{allow: opt.Allow}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return Page{}, fmt.Errorf("urlfetch: parse %q: %w", rawURL, ErrInvalidURL)
	}
	shown := u.Redacted()
	if err := g.checkURL(u); err != nil {
		return Page{}, wrap(shown, err)
	}
	tctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	client := newClient(g, opt)
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, wrap(shown, fmt.Errorf("%w: %w", ErrInvalidURL, err))
	}
	req.Header.Set("Accept", "text/html, text/markdown;q=0.9, text/plain;q=0.8, application/pdf;q=0.7")
	req.Header.Set("User-Agent", "Hopwise/1 (+https://github.com/hopwise/hopwise)")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error // it repeats the method and address that wrap adds
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return Page{}, wrap(shown, transportError(ctx, tctx, err))
	}
	defer resp.Body.Close()
	p, err := readPage(resp, opt.MaxBytes)
	if err != nil {
		return Page{}, wrap(shown, transportError(ctx, tctx, err))
	}
	return p, nil
}

// checkURL refuses what may not be fetched before any connection: other schemes, credentials, hosts
// written as unusual numbers. The address the host leads to is checked when dialling.
func (g guard) checkURL(u *url.URL) error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		if u.Scheme == "" {
			return fmt.Errorf("%w: no scheme", ErrInvalidURL)
		}
		return fmt.Errorf("%w: %s://", ErrScheme, u.Scheme)
	case u.User != nil:
		return ErrUserinfo
	case u.Hostname() == "":
		return fmt.Errorf("%w: no host", ErrInvalidURL)
	}
	return g.checkNumericHost(u.Hostname())
}

func newClient(g guard, opt Options) *http.Client {
	dialer := &net.Dialer{
		Timeout: opt.Timeout,
		Control: g.control,
		// The Go resolver, not the C library's: getaddrinfo reads hosts such as "2130706433" as addresses.
		Resolver: &net.Resolver{PreferGo: true},
	}
	transport := &http.Transport{
		Proxy:                  nil, // never HTTP(S)_PROXY: a proxy would dial on our behalf, past the guard
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		DisableKeepAlives:      true,
	}
	return &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > opt.MaxRedirects {
				return fmt.Errorf("%w: more than %d", ErrTooManyRedirects, opt.MaxRedirects)
			}
			return g.checkURL(req.URL)
		},
	}
}

// readPage checks the answer and reads its body within the size cap.
func readPage(resp *http.Response, maxBytes int64) (Page, error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Page{}, &StatusError{Code: resp.StatusCode, Status: resp.Status}
	}
	mediaType, ext, err := pageType(resp.Header.Get("Content-Type"))
	if err != nil {
		return Page{}, err
	}
	if resp.ContentLength > maxBytes {
		return Page{}, fmt.Errorf("%w: %d bytes announced, limit %d", ErrTooLarge, resp.ContentLength, maxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return Page{}, fmt.Errorf("read body: %w", err)
	}
	if int64(len(body)) > maxBytes {
		return Page{}, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, maxBytes)
	}
	if len(body) == 0 {
		return Page{}, ErrEmpty
	}
	final := resp.Request.URL
	return Page{URL: final.Redacted(), Name: pageName(final, ext), ContentType: mediaType, Body: body}, nil
}

// extensions maps the media types Hopwise reads to the extension that selects their parser.
var extensions = map[string]string{
	"text/html":       ".html",
	"text/plain":      ".txt",
	"text/markdown":   ".md",
	"text/x-markdown": ".md",
	"application/pdf": ".pdf",
}

func pageType(contentType string) (mediaType, ext string, err error) {
	if contentType == "" {
		return "", "", fmt.Errorf("%w: no Content-Type", ErrContentType)
	}
	mediaType, _, err = mime.ParseMediaType(contentType)
	if err != nil {
		return "", "", fmt.Errorf("%w: unreadable Content-Type %q", ErrContentType, contentType)
	}
	ext, ok := extensions[mediaType]
	if !ok {
		return "", "", fmt.Errorf("%w: %s", ErrContentType, mediaType)
	}
	return mediaType, ext, nil
}

// transportError names what went wrong in terms of this package's sentinels, keeping the cause.
func transportError(parent, tctx context.Context, err error) error {
	var dnsErr *net.DNSError
	var se *StatusError
	for _, r := range reasons {
		if errors.Is(err, r) {
			return err
		}
	}
	switch {
	case errors.As(err, &se):
		return err
	case parent.Err() != nil:
		return fmt.Errorf("%w: %w", parent.Err(), err)
	case tctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return fmt.Errorf("%w: %w", ErrUnknownHost, err)
	default:
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
}
