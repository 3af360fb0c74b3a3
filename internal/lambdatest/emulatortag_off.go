//go:build !lambdaemulator

package lambdatest

// emulatorTests: this build leaves the emulator test files out.
const emulatorTests = false
