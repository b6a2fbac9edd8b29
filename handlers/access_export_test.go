package handlers

import (
	"sort"

	"github.com/hopwise/hopwise/auth"
)

// RouteNeed is the role a route ("METHOD /path") requires ("" for a public one), for the tests of
// package handlers_test.
func RouteNeed(key string) (auth.Role, bool) {
	r, ok := routeRules[key]
	return r.need, ok
}

// RouteOfAccount reports whether a route acts on the account (sign-in, settings, admin, the workspace
// switch) rather than in a workspace.
func RouteOfAccount(key string) bool { return routeRules[key].account }

// RuleKeys lists the routes routeRules names.
func RuleKeys() []string {
	keys := make([]string, 0, len(routeRules))
	for k := range routeRules {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
