package handlers

import (
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/labstack/echo/v4"
)

// conversationScope is whose conversations the request may list, open, continue, rename and delete: on a
// laptop install without accounts every conversation (the local user); a signed-in account (session or
// token) its own, and an admin also those without an owner, started before sign-in was on. Nobody known
// sees none. Every route that reads or changes a conversation goes through it, and a conversation outside
// it answers 404 as a missing one does, so an ID never tells that it exists.
func conversationScope(c echo.Context) graphrag.ConversationScope {
	p, ok := principalOf(c)
	switch {
	case !ok:
		return graphrag.ConversationScope{}
	case p.Local:
		return graphrag.AllConversations
	}
	return graphrag.ConversationScope{Owner: p.Account.ID, Unowned: p.RoleIn(workspaceOf(c)).Allows(auth.Admin)}
}
