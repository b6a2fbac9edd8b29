package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// settingsLookup reads a setting from the environment (getenv, normally os.LookupEnv), then from the local
// models' env file that `make models` writes, <data dir>/models/env, when it exists: a second terminal
// beside `make run` talks to the same local models. The data directory is the one the command line
// (--data-dir) or HOPWISE_DATA_DIR names, else "data".
func settingsLookup(args []string, getenv func(string) (string, bool)) func(string) (string, bool) {
	dir, _ := getenv("HOPWISE_DATA_DIR")
	if d, ok := flagValue(args, "data-dir"); ok {
		dir = d
	}
	if dir == "" {
		dir = "data"
	}
	file := readEnvFile(filepath.Join(dir, "models", "env"))
	return func(name string) (string, bool) {
		if v, ok := getenv(name); ok {
			return v, true
		}
		v, ok := file[name]
		return v, ok
	}
}

// flagValue finds --name VALUE or --name=VALUE among args, before a "--".
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		switch {
		case a == "--":
			return "", false
		case a == "--"+name && i+1 < len(args):
			return args[i+1], true
		case strings.HasPrefix(a, "--"+name+"="):
			return strings.TrimPrefix(a, "--"+name+"="), true
		}
	}
	return "", false
}

// readEnvFile reads NAME=VALUE lines (blank lines and # comments skipped, quotes around a value removed);
// a missing or unreadable file holds nothing.
func readEnvFile(path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		name, value, ok := strings.Cut(line, "=")
		if !ok || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		out[strings.TrimSpace(strings.TrimPrefix(name, "export "))] = value
	}
	return out
}
