// Package house holds checks on the repository itself: tests that keep what
// the documentation says about the code equal to the code. It has no code
// of its own for other packages to import.
package house
