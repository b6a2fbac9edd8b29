// Package deploy holds what runs Hopwise outside `go run`: the dev Neo4j launcher, the local model scripts,
// and (at the repository root) the Dockerfile and docker-compose.yml validated here, since no Docker engine
// is at hand in tests.
package deploy

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

func loadCompose(t *testing.T, env map[string]string) *types.Project {
	t.Helper()
	var envs []string
	for k, v := range env {
		envs = append(envs, k+"="+v)
	}
	opts, err := cli.NewProjectOptions([]string{"../docker-compose.yml"},
		cli.WithWorkingDirectory(".."), cli.WithName("hopwise"), cli.WithEnv(envs))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("docker-compose.yml does not load: %v", err)
	}
	return p
}

// TestComposeFile checks the file the way `docker compose config` would, and the promises it makes: Neo4j 5
// with a named volume and a health check, the app built from the Dockerfile and started only once Neo4j is
// healthy, pointed at Neo4j, with the model endpoint from the environment, published on loopback only.
func TestComposeFile(t *testing.T) {
	p := loadCompose(t, map[string]string{"NEO4J_PASSWORD": "s3cret-pass", "OPENAI_API_KEY": "sk-test", "HOPWISE_ADMIN_PASSWORD": "a long admin password"})
	neo, err := p.GetService("neo4j")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(neo.Image, "neo4j:5") {
		t.Errorf("neo4j image %q, want neo4j:5", neo.Image)
	}
	if neo.HealthCheck == nil || len(neo.HealthCheck.Test) == 0 {
		t.Error("neo4j has no health check")
	}
	var named bool
	for _, v := range neo.Volumes {
		if v.Type == types.VolumeTypeVolume && v.Target == "/data" {
			named = true
		}
	}
	if !named {
		t.Error("neo4j data is not on a named volume")
	}
	app, err := p.GetService("hopwise")
	if err != nil {
		t.Fatal(err)
	}
	if app.Build == nil || app.Build.Dockerfile != "Dockerfile" {
		t.Errorf("hopwise is not built from the Dockerfile: %+v", app.Build)
	}
	if dep, ok := app.DependsOn["neo4j"]; !ok || dep.Condition != types.ServiceConditionHealthy {
		t.Errorf("hopwise does not wait for a healthy neo4j: %+v", app.DependsOn)
	}
	env := app.Environment
	for k, want := range map[string]string{"NEO4J_URI": "bolt://neo4j:7687", "NEO4J_PASSWORD": "s3cret-pass", "OPENAI_API_KEY": "sk-test",
		"HOPWISE_ADMIN_USER": "admin", "HOPWISE_ADMIN_PASSWORD": "a long admin password"} {
		if got := env[k]; got == nil || *got != want {
			t.Errorf("hopwise %s = %v, want %q", k, got, want)
		}
	}
	for _, s := range []types.ServiceConfig{neo, app} {
		for _, port := range s.Ports {
			if port.HostIP != "127.0.0.1" {
				t.Errorf("%s publishes %s on %q: want loopback only", s.Name, port.Published, port.HostIP)
			}
		}
	}
}

// The compose file starts nothing without Neo4j's password or the first admin's: there is no default
// password (the app listens on 0.0.0.0 inside its container, so it would refuse to start open anyway).
func TestComposeNeedsThePasswords(t *testing.T) {
	for _, tc := range []struct{ missing, other string }{
		{"NEO4J_PASSWORD", "HOPWISE_ADMIN_PASSWORD=a long admin password"},
		{"HOPWISE_ADMIN_PASSWORD", "NEO4J_PASSWORD=s3cret-pass"},
	} {
		opts, err := cli.NewProjectOptions([]string{"../docker-compose.yml"}, cli.WithWorkingDirectory(".."), cli.WithName("hopwise"),
			cli.WithEnv([]string{tc.missing + "=", tc.other}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := opts.LoadProject(context.Background()); err == nil || !strings.Contains(err.Error(), tc.missing) {
			t.Errorf("loading without %s: %v, want an error naming it", tc.missing, err)
		}
	}
}

// .env.example names every variable the compose file asks for, and holds no password.
func TestEnvExample(t *testing.T) {
	b, err := os.ReadFile("../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			set[k] = v
		}
	}
	for _, k := range []string{"NEO4J_PASSWORD", "HOPWISE_ADMIN_USER", "HOPWISE_ADMIN_PASSWORD", "OPENAI_API_KEY", "HOPWISE_TRUSTED_PROXIES"} {
		if _, ok := set[k]; !ok {
			t.Errorf(".env.example does not name %s", k)
		}
	}
	for _, k := range []string{"NEO4J_PASSWORD", "HOPWISE_ADMIN_PASSWORD", "OPENAI_API_KEY", "HOPWISE_SECRET"} {
		if set[k] != "" {
			t.Errorf(".env.example sets %s: it must stay empty", k)
		}
	}
	ignore, err := os.ReadFile("../.gitignore")
	if err != nil || !strings.Contains(string(ignore), "\n/.env\n") {
		t.Errorf(".gitignore does not ignore .env: %v", err)
	}
}

// TestDockerfile checks the promises of the Dockerfile: a multi-stage build of a static binary that runs as
// a non-root user.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"AS build", "CGO_ENABLED=0", "COPY --from=build", "USER nonroot", "./cmd/hopwise"} {
		if !strings.Contains(s, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if strings.Count(s, "\nFROM ") < 1 || !strings.HasPrefix(strings.TrimLeft(s, "# \n"), "Hopwise") && !strings.Contains(s, "FROM golang") {
		t.Error("Dockerfile is not a multi-stage build from golang")
	}
}
