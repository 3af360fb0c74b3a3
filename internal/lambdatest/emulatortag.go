//go:build lambdaemulator

package lambdatest

// emulatorTests: this build has the emulator test files (-tags lambdaemulator).
const emulatorTests = true
