package web

// StatusPage is the view of /status.
type StatusPage struct {
	Meta     Meta
	Checks   []StatusCheck
	Settings []Setting
}

// StatusCheck is one dependency: what is configured and whether it answers.
type StatusCheck struct {
	Name       string
	Configured string
	OK         bool
	Detail     string
}

// Setting is one configuration value, secrets already masked.
type Setting struct{ Name, Value string }
