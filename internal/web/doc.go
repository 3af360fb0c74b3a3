// Package web is the people's board: server-rendered pages (html/template)
// and plain HTML forms that work without JavaScript, made to swap in place
// by htmx, which is vendored into the binary (static/). Every write goes
// through the same board.Service use cases as MCP, with source web, and
// every write form carries a fresh request_id rendered into it, so a double
// click, a resubmitted form or a back-button repost writes once.
//
// Who is calling comes from auth.Resolver: in loopback mode the local
// person (an admin), in required mode the signed-in person's session.
package web
