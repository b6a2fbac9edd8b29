// Command hopwise answers questions from your own documents. Run `hopwise --help` for its subcommands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hopwise/hopwise/graphrag/parse"
)

// Exit codes, documented in README.md.
const (
	exitOK          = 0
	exitFailed      = 1   // the command ran and failed
	exitUsage       = 2   // the command line or the configuration is wrong: nothing was done
	exitInterrupted = 130 // stopped by Ctrl-C or SIGTERM before it finished
)

func main() {
	parse.ServePDFChild() // when started to read one PDF, this process does only that, then exits
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process exit code. With no command it serves the web app.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || servesByDefault(args[0]) {
		args = append([]string{"serve"}, args...)
	}
	c := &cli{e: &env{stdin: stdin, stdout: stdout, stderr: stderr}, lookup: settingsLookup(args, os.LookupEnv)}
	root := c.root()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	switch {
	case err == nil:
		return exitOK
	case !c.ran || errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", cmd.CommandPath(), err, cmd.CommandPath())
		return exitUsage
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "%s: interrupted: %v\n", cmd.CommandPath(), err)
		return exitInterrupted
	default:
		fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
		return exitFailed
	}
}

// servesByDefault: `hopwise --addr :9090` is `hopwise serve --addr :9090`, as a bare `hopwise` is; help and
// version flags stay the root's.
func servesByDefault(arg string) bool {
	switch arg {
	case "-h", "--help", "--version", "-v":
		return false
	}
	return len(arg) > 1 && arg[0] == '-'
}
