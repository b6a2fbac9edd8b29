package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

func statusText(code int) string { return strconv.Itoa(code) + " " + http.StatusText(code) }

// Bytes is a size people read, in binary units as file managers show them: 980 B, 12.4 KB, 25 MB.
func Bytes(n int64) string {
	const k = 1024
	trim := func(f float64, unit string) string {
		s := strconv.FormatFloat(f, 'f', 1, 64)
		return strings.TrimSuffix(s, ".0") + " " + unit
	}
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return trim(float64(n)/k, "KB")
	case n < k*k*k:
		return trim(float64(n)/(k*k), "MB")
	default:
		return trim(float64(n)/(k*k*k), "GB")
	}
}

// Duration is an elapsed time people read: 850 ms, 4.2 s, 1 min 5 s.
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	default:
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
	}
}

// When is a timestamp people read.
func When(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2 Jan 2006, 15:04")
}

func itoa(n int) string { return strconv.Itoa(n) }

// humanType turns DISTANCE_FROM into "distance from".
func humanType(t string) string { return strings.ToLower(strings.ReplaceAll(t, "_", " ")) }

func urlQuery(s string) string { return url.QueryEscape(s) }

// Count is a number with thousands separated: 12,345.
func Count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + Count(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
