package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/apiv1"
	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/mcpserver"
)

func (c *cli) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "serve the MCP tools (search, ask, list_documents, get_passage, graph_neighbourhood) on stdin and stdout",
		Long: `Serve Hopwise as a Model Context Protocol server over stdio, for an MCP client that starts it (Claude
Desktop, an IDE assistant): JSON-RPC on stdin and stdout, logs on stderr. The tools read the same store as
'hopwise serve', which may run beside it; nothing is ingested here. A question asked here is stored as it
is answered: the web page lists it and streams its answer. The web server offers the same tools over
streamable HTTP at /mcp.`,
		Example: `  {"mcpServers": {"hopwise": {"command": "hopwise", "args": ["mcp"], "env": {"HOPWISE_DATA_DIR": "/home/me/hopwise"}}}}`,
		Args:    cobra.NoArgs,
	}
	cfg := c.settings(cmd, storeFlags, modelFlags, agentFlags)
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, _ []string) error {
		a, ag, err := openAgent(ctx, cfg, logger)
		if err != nil {
			return err
		}
		defer a.Close()
		chat := agent.NewChat(ag, a.store).WithLease(cfg.Lease)
		srv := mcpserver.New(mcpserver.Options{
			Service: apiv1.Service{Store: a.store, Retriever: a.retriever}, Chat: chat,
			Runs:   mcpserver.StoreRuns{Chat: chat, Store: a.store, Logger: logger},
			Logger: logger, Version: buildVersion(), MaxQuestionChars: cfg.MaxQuestionChars,
		})
		err = mcpserver.ServeIO(ctx, srv, c.e.stdin, c.e.stdout)
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return nil // stopped by a signal: a normal end for a server
		}
		return err
	})
	return cmd
}
