package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/graphrag"
)

// errOpenToOthers stops a server that others could reach without any account to sign in with.
var errOpenToOthers = errors.New("no accounts")

// openAccounts builds the accounts of the store for serve. On a store without accounts it creates the
// first admin from HOPWISE_ADMIN_USER and HOPWISE_ADMIN_PASSWORD, or with the name alone returns the token
// of a one-time setup link; listening beyond loopback with neither configured is refused, since everyone
// who reaches the port could read and delete everything. Sign-in is required once any account exists,
// and also before, while a setup link waits or the address is not loopback.
func openAccounts(ctx context.Context, store graphrag.Store, cfg *config.Config, logger *slog.Logger) (*auth.Service, string, error) {
	accounts, ok := store.(auth.Store)
	if !ok {
		return nil, "", fmt.Errorf("the %s store keeps no accounts", store.Kind())
	}
	open := !loopbackAddr(cfg.Addr)
	svc, err := auth.New(ctx, accounts, auth.Options{
		Idle: cfg.SessionIdle, Absolute: cfg.SessionMax, Required: open || cfg.AdminUser != "", Logger: logger,
	})
	if err != nil {
		return nil, "", err
	}
	setup, err := svc.Bootstrap(ctx, cfg.AdminUser, cfg.AdminPassword)
	if err != nil {
		return nil, "", usageError(err)
	}
	if open && !svc.HasAccounts() && setup == "" {
		return nil, "", usageError(fmt.Errorf("%w: Hopwise would listen on %s, which other machines can reach, but no account exists, "+
			"so anyone reaching it could read, ask and delete everything. Set HOPWISE_ADMIN_USER and HOPWISE_ADMIN_PASSWORD "+
			"(the first admin's name and a password of 12 or more characters) to require signing in, or HOPWISE_ADMIN_USER "+
			"alone to get a one-time setup link in the log; or listen on 127.0.0.1 (HOPWISE_ADDR=127.0.0.1:8080) for use on "+
			"this computer only", errOpenToOthers, cfg.Addr))
	}
	return svc, setup, nil
}

// loopbackAddr reports whether a listen address (host:port) accepts connections from this machine only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// setupURL is the link printed for the first admin: on the public name when one is configured.
func setupURL(cfg *config.Config, listening, token string) string {
	host := listening
	if names := strings.Split(cfg.PublicHost, ","); strings.TrimSpace(names[0]) != "" {
		host = strings.TrimSpace(names[0])
	}
	return "http://" + host + "/setup?token=" + token
}
