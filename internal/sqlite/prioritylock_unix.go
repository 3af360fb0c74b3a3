//go:build unix

package sqlite

import (
	"os"
	"syscall"
)

func openPriorityLock(dbPath string) (*priorityLock, error) {
	path := dbPath + "-turn"
	if err := createPrivateFile(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	// The descriptor is the lock's owner: keep it, without the *os.File
	// whose finalizer would close it.
	fd, err := syscall.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(fd)
	return &priorityLock{path: path, fd: fd}, nil
}

// try takes the lock, shared or exclusive, without waiting.
func (t *priorityLock) try(exclusive bool) bool {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(t.fd, how|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err == nil
		}
	}
}

func (t *priorityLock) unlock() { syscall.Flock(t.fd, syscall.LOCK_UN) }

func (t *priorityLock) close() error {
	if t == nil {
		return nil
	}
	return syscall.Close(t.fd)
}
