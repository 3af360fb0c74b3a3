// Package obs is what an operator sees of the server: one structured log
// line per request (slog) and CloudWatch embedded-metric-format lines
// (EMF), both written from one per-request record that the layers fill in
// as the request passes through them (Request, carried by the context).
//
// It imports nothing of the project and nothing outside the standard
// library, so the domain, the stores and the adapters can all note what
// they did without knowing where it ends up. See docs/operations.md.
package obs
