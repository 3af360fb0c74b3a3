package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

//go:embed static
var staticFS embed.FS

// HTMXVersion and HTMXSHA256 pin the vendored htmx (scripts/vendor-htmx.sh
// checks the npm tarball's integrity; TestVendoredHTMX checks this file).
const (
	HTMXVersion = "2.0.11"
	HTMXSHA256  = "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717"
)

// SortableVersion and SortableSHA256 pin the vendored SortableJS, which the
// board's drag and drop uses (scripts/vendor-sortable.sh checks the npm
// tarball's integrity; TestVendoredSortable checks this file).
const (
	SortableVersion = "1.15.7"
	SortableSHA256  = "bf4241bc73fef7f11c59a283a69fe8051cdd31c6d8ff5a2b9ba219e7831fcf76"
)

// assets are the static files with a content hash in their URL
// (/static/<hash>/<name>), so they can be cached for a year: a new build
// with other content has other URLs. Hashed on first use, not at start.
var assets = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	entries, _ := fs.ReadDir(staticFS, "static")
	for _, e := range entries {
		b, _ := staticFS.ReadFile("static/" + e.Name())
		sum := sha256.Sum256(b)
		out[e.Name()] = "/static/" + hex.EncodeToString(sum[:6]) + "/" + e.Name()
	}
	return out
})

// assetURL is the cacheable URL of a static file.
func assetURL(name string) string { return assets()[name] }

// serveStatic answers /static/<hash>/<name> with a year of caching when the
// hash is current, and 404 otherwise (an old page asking for an old file
// gets no stale content under a new name).
func serveStatic(w http.ResponseWriter, r *http.Request) {
	name := path.Base(r.URL.Path)
	url, ok := assets()[name]
	if !ok || url != r.URL.Path {
		http.NotFound(w, r)
		return
	}
	b, err := staticFS.ReadFile("static/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	switch {
	case strings.HasSuffix(name, ".js"):
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	case strings.HasSuffix(name, ".css"):
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
	case strings.HasSuffix(name, ".svg"):
		w.Header().Set("Content-Type", "image/svg+xml")
	default:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	http.ServeContent(w, r, name, time.Time{}, strings.NewReader(string(b)))
}
