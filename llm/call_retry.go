package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter is the longest Retry-After the client waits for; a server
// asking for more gets its error returned instead of a call that hangs.
const maxRetryAfter = 5 * time.Minute

// call runs fn in a slot of the chat or (op "embed") the embeddings scheduler with a per-attempt deadline
// and retries retryable failures with backoff. It returns the number of retries. fn builds its go-openai
// client on the exchange it is given.
func (c *Client) call(ctx context.Context, op, purpose string, patch map[string]json.RawMessage, fn func(context.Context, *exchange) error) (int, error) {
	s := c.chat
	if op == "embed" {
		s = c.embed
	}
	for n := 0; ; n++ {
		x := &exchange{hc: c.hc, patch: patch}
		err := c.attempt(ctx, s, x, fn)
		if err == nil {
			return n, nil
		}
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		if p, ok := errors.AsType[permanent](err); ok {
			return n, p.err
		}
		wait, ok := c.retryWait(err, x.retryAfter, n)
		if !ok || n >= c.cfg.MaxRetries {
			return n, err
		}
		c.log.Warn("llm: retrying", "op", op, "purpose", purpose, "retry", n+1, "wait", wait, "err", err)
		if err := sleep(ctx, wait); err != nil {
			return n, err
		}
	}
}

// attempt runs fn once holding a slot of s, with Config.Timeout from the moment the slot is granted (the
// time in line is bounded by ctx), and tells s what the endpoint said.
func (c *Client) attempt(ctx context.Context, s *scheduler, x *exchange, fn func(context.Context, *exchange) error) error {
	sl, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	err = apiError(fn(actx, x))
	s.release(sl, outcomeOf(err, x.retryAfter))
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		timeout := fmt.Errorf("%w after %s", ErrTimeout, c.cfg.Timeout)
		if _, ok := errors.AsType[permanent](err); ok {
			return permanent{timeout}
		}
		return timeout
	}
	return err
}

// outcomeOf reads an attempt's error for the scheduler: a 429 that is not out of quota means the endpoint
// is overloaded, with its Retry-After.
func outcomeOf(err error, retryAfter string) outcome {
	if err == nil {
		return outcome{ok: true}
	}
	ae, ok := errors.AsType[*APIError](err)
	if !ok || ae.Status != http.StatusTooManyRequests || ae.IsQuota() {
		return outcome{}
	}
	ra, _ := parseRetryAfter(retryAfter, time.Now())
	return outcome{overloaded: true, retryAfter: ra}
}

// retryWait decides whether err is worth another attempt and how long to
// wait first: full-jitter exponential backoff, at least Retry-After.
func (c *Client) retryWait(err error, retryAfter string, n int) (time.Duration, bool) {
	if ae, ok := errors.AsType[*APIError](err); ok {
		if !ae.Retryable() {
			return 0, false
		}
	} else if !errors.Is(err, ErrTimeout) && !errors.Is(err, ErrStreamStalled) && !transient(err) {
		return 0, false
	}
	wait := c.backoff(n)
	if ra, ok := parseRetryAfter(retryAfter, time.Now()); ok {
		if ra > maxRetryAfter {
			return 0, false
		}
		wait = max(wait, ra)
	}
	return wait, true
}

// backoff returns a random wait in [0, min(BackoffMax, BackoffBase*2^n)].
func (c *Client) backoff(n int) time.Duration {
	ceiling := c.cfg.BackoffMax
	if n < 30 {
		ceiling = min(ceiling, c.cfg.BackoffBase<<n)
	}
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

// transient reports connection-level failures: refused, reset, cut short, timed out.
func transient(err error) bool {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// parseRetryAfter reads delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		switch {
		case !(secs >= 0): // negative or NaN
			return 0, false
		case secs > maxRetryAfter.Seconds():
			return maxRetryAfter + time.Second, true
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
