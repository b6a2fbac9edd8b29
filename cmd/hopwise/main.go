// Command hopwise answers questions from your own documents. Run `hopwise --help` for its subcommands.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	name := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		name, args = args[0], args[1:]
	} else if len(args) > 0 && isHelp(args[0]) {
		usage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == name {
			env := &env{stdin: stdin, stdout: stdout, stderr: stderr}
			return c.run(ctx, env, args)
		}
	}
	fmt.Fprintf(stderr, "hopwise: unknown command %q\n\n", name)
	usage(stderr)
	return 2
}

func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "-help" || a == "help" }

func usage(w io.Writer) {
	fmt.Fprint(w, "Hopwise answers questions from your own documents, with sources.\n\nUsage: hopwise <command> [flags]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nWith no command, hopwise serves the web app. `hopwise <command> --help` lists a command's flags;\nevery flag can also be set by the environment variable named in its help.\n")
}
