package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// TestBrowserSignsInAndManagesAccounts: with sign-in required, a page asked for leads to the sign-in form
// and back after signing in; the settings page creates an API token and shows it once; the admin page
// creates an account and lists it with the audit log; signing out leads back to the form, and the pages
// are closed again. Screenshots 20-sign-in, 21-settings-new-token and 22-admin.
func TestBrowserSignsInAndManagesAccounts(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("end-to-end tests need chromium at %s (apt-get install -y chromium, or set HOPWISE_CHROMIUM): %v", chromium, err)
	}
	app := webtest.New(t, webtest.Options{Auth: auth.Options{Required: true}})
	if _, err := app.Auth.Bootstrap(t.Context(), "ana", "correct horse battery staple"); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, startServer(t, app))

	s.do("open documents", chromedp.Navigate(s.base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#login-name")))
	if got := eval[string](s, "location.pathname + location.search"); got != "/login?next=%2Fdocuments" {
		t.Errorf("a page asked for unsigned leads to %q, want the sign-in form coming back to it", got)
	}
	s.do("a wrong password", chromedp.SendKeys(chromedp.CSS("#login-name"), "ana"),
		chromedp.SendKeys(chromedp.CSS("#login-password"), "not the password"), chromedp.Submit(chromedp.CSS("#login")))
	s.waitFor("the refusal", "!!document.querySelector('#login-error')", 10*time.Second)
	s.do("sign in", chromedp.SendKeys(chromedp.CSS("#login-password"), "correct horse battery staple"))
	s.screenshot("20-sign-in")
	s.do("submit", chromedp.Submit(chromedp.CSS("#login")))
	s.waitFor("the documents page", "location.pathname === '/documents' && !!document.querySelector('#files')", 10*time.Second)
	if got := eval[string](s, "document.querySelector('#signed-in-as').innerText"); got != "ana" {
		t.Errorf("the header says signed in as %q", got)
	}
	if eval[bool](s, "document.cookie.includes('hopwise_auth')") {
		t.Error("the session cookie is readable by script")
	}
	s.checkPage("sign-in")

	s.do("open settings", chromedp.Navigate(s.base+"/settings"), chromedp.WaitVisible(chromedp.CSS("#token-name")))
	s.do("name a token", chromedp.SendKeys(chromedp.CSS("#token-name"), "nightly import"))
	eval[string](s, "document.querySelector('#token-role').value = 'editor'")
	s.do("create it", chromedp.Submit(chromedp.CSS("#token-create")))
	s.waitFor("the new token", "!!document.querySelector('#new-token-value')", 10*time.Second)
	token := eval[string](s, "document.querySelector('#new-token-value').value")
	if !strings.HasPrefix(token, "hwt_") {
		t.Errorf("the new token is %q", token)
	}
	s.screenshot("21-settings-new-token")
	s.checkPage("settings")
	if p, err := app.Auth.TokenPrincipal(t.Context(), token); err != nil || p.Role != auth.Editor {
		t.Errorf("the token shown opens %+v, %v; want ana as editor", p, err)
	}
	s.do("reload settings", chromedp.Navigate(s.base+"/settings"), chromedp.WaitVisible(chromedp.CSS("#tokens")))
	if eval[bool](s, "document.body.innerText.includes("+jsString(token)+")") {
		t.Error("the settings page shows the token again")
	}

	s.do("open admin", chromedp.Navigate(s.base+"/admin"), chromedp.WaitVisible(chromedp.CSS("#user-name")))
	s.do("fill an account", chromedp.SendKeys(chromedp.CSS("#user-name"), "zoe"),
		chromedp.SendKeys(chromedp.CSS("#user-password"), "zoe's long password"))
	eval[string](s, "document.querySelector('#user-role').value = 'editor'")
	s.do("create it", chromedp.Submit(chromedp.CSS("#user-create")))
	s.waitFor("zoe listed", "!!document.querySelector('#users tr[data-user=zoe]')", 10*time.Second)
	for _, action := range []string{"sign-in", "sign-in failed", "token created", "account created"} {
		if !eval[bool](s, "!!document.querySelector('#audit tr[data-action=\""+action+"\"]')") {
			t.Errorf("the audit log shows no %q", action)
		}
	}
	s.screenshot("22-admin")
	s.checkPage("admin")

	s.do("sign out", chromedp.Click(chromedp.CSS("form.signout button")))
	s.waitFor("the sign-in form", "location.pathname === '/login' && !!document.querySelector('#login-name')", 10*time.Second)
	s.do("documents again", chromedp.Navigate(s.base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#login-name")))
	s.checkPage("signed out")
}
