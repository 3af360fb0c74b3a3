package web

import (
	"bytes"
	"html/template"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// markdown renders notes and bodies. goldmark leaves raw HTML out unless
// told otherwise (html.WithUnsafe, never used here): "<script>" in a note
// is shown as "<!-- raw HTML omitted -->", and links with javascript:,
// vbscript:, file: or data: (other than images) URLs lose their target.
// Built on first use, off the cold start.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(html.WithHardWraps()),
	)
})

// renderMarkdown is HTML that is safe to insert as is.
func renderMarkdown(src string) template.HTML {
	var buf bytes.Buffer
	if err := markdown().Convert([]byte(src), &buf); err != nil {
		return template.HTML(template.HTMLEscapeString(src))
	}
	return template.HTML(buf.String()) // #nosec: raw HTML is off, see markdown
}
