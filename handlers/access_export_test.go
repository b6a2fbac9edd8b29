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

// RuleKeys lists the routes routeRules names.
func RuleKeys() []string {
	keys := make([]string, 0, len(routeRules))
	for k := range routeRules {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
