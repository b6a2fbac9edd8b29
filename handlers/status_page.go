package handlers

import (
	"context"
	"net/http"
	"sort"
	"time"

	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

func (s *server) statusPage(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
	defer cancel()
	st := s.Status(ctx)
	p := web.StatusPage{Meta: meta(c, "Status", web.NavStatus)}
	for _, ch := range st.Checks {
		p.Checks = append(p.Checks, web.StatusCheck{Name: ch.Name, Configured: ch.Configured, OK: ch.OK, Detail: ch.Detail})
	}
	for k, v := range st.Settings {
		p.Settings = append(p.Settings, web.Setting{Name: k, Value: v})
	}
	sort.Slice(p.Settings, func(i, j int) bool { return p.Settings[i].Name < p.Settings[j].Name })
	p.Reindex = s.reindexView(ctx)
	return render(c, http.StatusOK, web.StatusView(p))
}
