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

// Bytes is a size people read: 980 B, 12.4 KB, 3.1 MB.
func Bytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
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
