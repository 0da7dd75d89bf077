package httpapi

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/internal/link"
	"github.com/urikit/urikit/resolver/internal/prettyjson"
)

// The HTML a browser gets from the resolution services: small pages, one
// template each. html/template escapes every value. A location is a link
// only when its scheme navigates (package link: http, ftp, gopher, …); any
// other (javascript:…, data:…) is shown as text, so a registered location
// cannot script the resolver's origin. A successor that is a name links
// to its resolution here.

const (
	pageList    = "list"
	pageNames   = "names"
	pageRecord  = "record"
	pageURCs    = "urcs"
	pageProblem = "problem"
)

type listPage struct {
	Asked, Name string
	Locations   []resolver.Location
	// Next, when not empty, says that more records list the URL asked
	// about than the list covers, and is the page listing the rest.
	Next string
}

type namesPage struct {
	Asked string
	Names []string
	Next  string // as listPage's
}

type recordPage struct {
	Rec  resolver.Record
	Meta string
}

type urcsPage struct {
	Asked    string
	Versions []urcVersion
	History  string // the page of the record's history before Versions, when older versions were left out
}

type problemPage struct{ P *problem }

// pageFuncs: href is a location's link, or "" for none; successor is a
// successor's link, a name's being its resolution on this server;
// describe a name's description here.
var pageFuncs = template.FuncMap{
	"href": link.Href,
	"successor": func(s string) template.URL {
		if len(s) > 4 && strings.EqualFold(s[:4], "urn:") {
			// RFC 2169's form: the name in the query, where a browser
			// removes no dot segments (in the path style's path,
			// "urn:x/../../api" would lead elsewhere).
			return template.URL("/uri-res/I2L?" + s)
		}
		return link.Href(s)
	},
	// describe is the link to a name's description (I2C), in RFC 2169's
	// form, as successor's; names are stored URNs.
	"describe": func(name string) template.URL { return template.URL("/uri-res/I2C?" + name) },
	// predecessors is where every predecessor of the record name is
	// listed.
	"predecessors": func(name string) string { return predecessorsURL(name) },
}

var pages = template.Must(template.New("").Funcs(pageFuncs).Parse(`
{{define "head"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{.}} · urikit</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}code,pre{font-size:.9em}pre{background:#f4f4f4;padding:.5rem;overflow:auto}dt{font-weight:bold}</style>
</head><body>{{end}}
{{define "foot"}}<p><small>urikit URN resolver · <a href="/">home</a> · <a href="/api/v1/openapi.json">API</a></small></p></body></html>
{{end}}

{{define "list"}}{{template "head" .Asked}}
<h1>Locations of <code>{{.Asked}}</code></h1>
{{if and .Name (ne .Name .Asked)}}<p>Registered as <code>{{.Name}}</code>.</p>{{end}}
<UL>
{{range .Locations}}<LI>{{$u := .URL}}{{with href $u}}<A HREF="{{.}}">{{$u}}</A>{{else}}<code>{{$u}}</code>{{end}}{{if .Type}} <small>({{.Type}})</small>{{end}}{{if .Label}} — {{.Label}}{{end}}
{{end}}</UL>
{{with .Next}}{{template "more" .}}{{end}}{{template "foot"}}{{end}}

{{define "names"}}{{template "head" .Asked}}
<h1>Names for <code>{{.Asked}}</code></h1>
<UL>
{{range .Names}}<LI><A HREF="/{{.}}?s=I2C">{{.}}</A>
{{end}}</UL>
{{with .Next}}{{template "more" .}}{{end}}{{template "foot"}}{{end}}

{{define "more"}}<p>The list is cut: more records list this URL than it covers (it covers those registered first). <a href="{{.}}">The rest</a> are listed by <code>GET /api/v1/locations</code>.</p>
{{end}}

{{define "record"}}{{template "head" .Rec.URN}}
<h1><code>{{.Rec.URN}}</code></h1>
<dl>
<dt>Status</dt><dd>{{.Rec.Status}}{{if .Rec.Reason}}: {{.Rec.Reason}}{{end}}</dd>
{{with .Rec.Successor}}{{$s := .}}<dt>Successor</dt><dd>{{with successor $s}}<a href="{{.}}">{{$s}}</a>{{else}}<code>{{$s}}</code>{{end}}</dd>{{end}}
{{if .Rec.Predecessors}}<dt>Replaces</dt><dd>{{range .Rec.Predecessors}}<a href="{{describe .}}">{{.}}</a> {{end}}{{if .Rec.MorePredecessors}}and more (the first {{len .Rec.Predecessors}} are shown; <a href="{{predecessors .Rec.URN}}">all of them</a>, as JSON){{end}}</dd>{{end}}
{{if .Rec.Aliases}}<dt>Aliases</dt><dd>{{range .Rec.Aliases}}<code>{{.}}</code> {{end}}</dd>{{end}}
<dt>Locations</dt><dd><UL>{{range .Rec.Locations}}<LI>{{$u := .URL}}{{with href $u}}<A HREF="{{.}}">{{$u}}</A>{{else}}<code>{{$u}}</code>{{end}}{{if .Type}} <small>({{.Type}})</small>{{end}}{{if .Label}} — {{.Label}}{{end}}
{{end}}</UL></dd>
<dt>Metadata</dt><dd><pre>{{.Meta}}</pre></dd>
<dt>Registered</dt><dd>{{.Rec.Created.UTC.Format "2006-01-02 15:04:05 MST"}}</dd>
<dt>Changed</dt><dd>{{.Rec.Updated.UTC.Format "2006-01-02 15:04:05 MST"}}</dd>
</dl>
{{template "foot"}}{{end}}

{{define "urcs"}}{{template "head" .Asked}}
<h1>Descriptions of <code>{{.Asked}}</code></h1>
{{range .Versions}}<h2>{{.Time.Format "2006-01-02 15:04:05 MST"}} · {{.Action}}</h2>
<p>Status {{.Record.Status}}. Locations:</p><UL>{{range .Record.Locations}}<LI>{{$u := .URL}}{{with href $u}}<A HREF="{{.}}">{{$u}}</A>{{else}}<code>{{$u}}</code>{{end}}
{{end}}</UL>
{{end}}{{with .History}}<p>Older descriptions are left out: the <A HREF="{{.}}">record's history</A> has them, a page at a time back from the newest left out.</p>
{{end}}{{template "foot"}}{{end}}

{{define "problem"}}{{template "head" .P.Title}}
<h1>{{.P.Status}} · {{.P.Title}}</h1>
<p>{{.P.Detail}}</p>
{{with .P.Successor}}{{$s := .}}<p>It was replaced by {{with successor $s}}<a href="{{.}}">{{$s}}</a>{{else}}<code>{{$s}}</code>{{end}}.</p>{{end}}
{{if .P.Services}}<p>The services are: {{range .P.Services}}<code>{{.}}</code> {{end}}</p>{{end}}
{{template "foot"}}{{end}}
`))

// writeHTML renders a page into a buffer first, so that a template error
// never leaves half a page behind.
func (h *handler) writeHTML(w http.ResponseWriter, status int, page string, data any) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, page, data); err != nil {
		if rw, ok := w.(*respWriter); ok {
			rw.err = err
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("internal error: the page could not be rendered\n"))
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(b.Len()))
	hd.Set("X-Content-Type-Options", "nosniff")
	// The pages run no script and load nothing: say so, so that a
	// location that slipped past the escaping still cannot run.
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// prettyJSON returns metadata indented for a page. prettyjson bounds the
// indented text: a record stored before writes limited the depth may be
// nested thousands deep.
func prettyJSON(m json.RawMessage) string {
	s, err := prettyjson.Indent(m)
	if err != nil {
		return "{}"
	}
	return s
}
