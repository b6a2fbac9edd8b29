package neo4j

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The driver retries a transaction function for up to MaxTransactionRetryTime when the server cannot be
// reached, which would keep a request hanging for half a minute while Neo4j is down. guard makes calls
// fail fast instead: a call made while the store is known to be down probes the server first, and a call
// that runs longer than probeAfter probes it in the background and is cancelled when the probe fails.
// Deadlocks and other transient errors are still retried by the driver, since the server keeps answering.

// guard runs fn with a context that is cancelled with an ErrUnavailable cause when the server stops
// answering, and turns connectivity failures into errors wrapping graphrag.ErrUnavailable and transient
// ones into errors wrapping graphrag.ErrTransient (WrapError).
func (s *Store) guard(ctx context.Context, fn func(ctx context.Context) error) error {
	if s.down.Load() {
		if err := s.probe(ctx); err != nil {
			return err
		}
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	defer close(done)
	go s.watch(callCtx, cancel, done)

	err := fn(callCtx)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		// The caller gave up; whether the server answers is not known.
		return fmt.Errorf("%w: %v", ctx.Err(), err)
	}
	if cause := context.Cause(callCtx); errors.Is(cause, graphrag.ErrUnavailable) {
		return cause
	}
	if isUnavailable(err) {
		s.down.Store(true)
		return fmt.Errorf("%w: %s does not answer: %v", graphrag.ErrUnavailable, s.uri, err)
	}
	return WrapError(err)
}

// watch probes the server every probeAfter until done, cancelling the call when a probe fails.
func (s *Store) watch(ctx context.Context, cancel context.CancelCauseFunc, done <-chan struct{}) {
	ticker := time.NewTicker(s.probeAfter)
	defer ticker.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-ticker.C:
			if err := s.probe(ctx); err != nil && errors.Is(err, graphrag.ErrUnavailable) {
				cancel(err)
				return
			}
		}
	}
}

// probe checks that the server answers on a fresh or verified connection, recording the result.
func (s *Store) probe(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	err := s.driver.VerifyConnectivity(pctx)
	if err == nil {
		if s.down.Swap(false) {
			s.logger.Info("neo4j answers again", "uri", s.uri)
		}
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !s.down.Swap(true) {
		s.logger.Warn("neo4j does not answer", "uri", s.uri, "err", err)
	}
	return fmt.Errorf("%w: cannot reach %s (check that Neo4j is running): %v", graphrag.ErrUnavailable, s.uri, err)
}

// isUnavailable reports whether err means the server could not be reached or is not serving the database.
func isUnavailable(err error) bool {
	var connErr *neo4j.ConnectivityError
	if errors.As(err, &connErr) {
		return true
	}
	var limit *neo4j.TransactionExecutionLimit
	if errors.As(err, &limit) {
		for _, e := range limit.Errors {
			if isUnavailable(e) {
				return true
			}
		}
		return false
	}
	var dbErr *neo4j.Neo4jError
	if errors.As(err, &dbErr) {
		return dbErr.Code == "Neo.TransientError.General.DatabaseUnavailable"
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF)
}

// isSecurityCode reports whether a Neo4j status code is an authentication or authorization failure.
func isSecurityCode(code string) bool {
	return strings.HasPrefix(code, "Neo.ClientError.Security.")
}
