package sqlite

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// The store's files hold password, session and token hashes beside every
// ticket: they are its owner's alone, whatever the process's umask (which
// is often 022, and would leave them readable by every user of the
// machine).
const (
	privateDirMode  fs.FileMode = 0o700
	privateFileMode fs.FileMode = 0o600
)

// makePrivateDir creates dir, with its missing parents, each 0700. A
// directory that exists already is left as its owner made it (a shared
// folder, a systemd StateDirectory with its own mode).
func makePrivateDir(dir string) error {
	_, err := os.Stat(dir)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := makePrivateDir(parent); err != nil {
			return err
		}
	}
	switch err := os.Mkdir(dir, privateDirMode); {
	case errors.Is(err, fs.ErrExist):
		return nil // made meanwhile by someone else: theirs
	case err != nil:
		return err
	}
	// Mkdir's mode passed through the umask; the directory is ours.
	return os.Chmod(dir, privateDirMode)
}

// createPrivateFile creates path as an empty 0600 file unless it exists
// (an existing file keeps its mode). An empty file is an empty SQLite
// database, and SQLite gives the WAL, shared-memory and journal files it
// makes beside a database the database file's mode, so they are 0600 too.
func createPrivateFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, privateFileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// The mode given to OpenFile passed through the umask.
	return errors.Join(f.Chmod(privateFileMode), f.Close())
}
