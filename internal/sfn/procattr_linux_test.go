package sfn_test

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel kill moto when the test process dies, even
// by a signal that skips the test's cleanup.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
