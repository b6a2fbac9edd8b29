package handlers

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/hopwise/hopwise/web"
)

// perPage is how many conversations or documents one page lists: a collection of thousands stays a page
// of a few tens of kilobytes.
const perPage = 50

// pageNumber reads a 1-based page number; anything else is the first page.
func pageNumber(raw string) int {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// pageOf returns the items of page (1-based; past the end: the last page) and the pager that leads to
// its neighbours, whose links set param in base's query.
func pageOf[T any](items []T, page int, base url.Values, path, param, noun string) ([]T, web.Pager) {
	pages := max(1, (len(items)+perPage-1)/perPage)
	page = min(page, pages)
	lo, hi := (page-1)*perPage, min(page*perPage, len(items))
	p := web.Pager{}
	if pages > 1 {
		p.Label = fmt.Sprintf("%s %d–%d of %s", noun, lo+1, hi, web.Count(len(items)))
	}
	link := func(n int) string {
		q := url.Values{}
		for k, v := range base {
			q[k] = v
		}
		q.Del(param)
		q.Del("_csrf") // an upload sent without JavaScript carries it; it has no place in a link
		if n > 1 {
			q.Set(param, strconv.Itoa(n))
		}
		if len(q) == 0 {
			return path
		}
		return path + "?" + q.Encode()
	}
	if page > 1 {
		p.Prev = link(page - 1)
	}
	if page < pages {
		p.Next = link(page + 1)
	}
	return items[lo:hi], p
}
