// Package house holds checks on the repository itself: tests that keep what
// the documentation says about the code equal to the code (the package
// table of docs/architecture.md, a doc comment on every package and every
// exported name, every tool and REST path a message or page sends callers
// to). It has no code of its own for other packages to import.
package house
