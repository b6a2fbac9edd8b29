package web

// StatusPage is the view of /status.
type StatusPage struct {
	Meta     Meta
	Checks   []StatusCheck
	Settings []Setting
	Reindex  *StatusReindex // nil when the process cannot re-index (no store yet)
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

// StatusReindex is the search index's part of the status page: whose vectors searches use, whether the
// configured embedding model is another (a re-index is needed), and the re-index running or last run.
type StatusReindex struct {
	ActiveModel, ConfiguredModel string
	ActiveDim, ConfiguredDim     int
	Needed                       bool // the store's vectors are not the configured model's
	Running                      bool
	Done, Total                  int    // passages and facts embedded again, of all
	Staged                       bool   // a re-embedding to the configured model is under way or was interrupted
	Finished                     bool   // the last re-index of this process ended
	Error                        string // why it stopped
	Unavailable                  string // why it cannot be started here (the configured model's dimension is unknown)
	// Step is the re-index's step running or last run (graphrag.StepEmbeddings, StepGraph); Done and Total
	// count passages extracted again in the graph step, and Kept those whose extraction failed again.
	Step string
	Kept int
	// CanReextract: the graph can be extracted again here, with GraphModel; GraphStaged: a re-extraction
	// is under way or was interrupted, GraphDone of GraphTotal passages extracted again.
	CanReextract          bool
	GraphModel            string
	GraphStaged           bool
	GraphDone, GraphTotal int
	// Elsewhere names the process that runs a re-index of the store now (it holds the store's re-index
	// lease): none can start here until it ends. Empty when none runs elsewhere.
	Elsewhere string
}

// Polling reports whether the section follows a re-index running here or elsewhere.
func (r StatusReindex) Polling() bool { return r.Running || r.Elsewhere != "" }

// GraphStep reports whether the step running or last run is the graph's.
func (r StatusReindex) GraphStep() bool { return r.Step == "graph" }

// Percent is how far the re-index is, 0 to 100.
func (r StatusReindex) Percent() int {
	if r.Total <= 0 {
		return 0
	}
	return min(100, 100*r.Done/r.Total)
}
