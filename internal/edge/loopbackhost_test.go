package edge

import "testing"

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:8080": true, "127.9.9.9:1": true, "localhost": true, "LocalHost:80": true,
		"localhost.:80": true, "[::1]:8080": true, "::1": true, "[::ffff:127.0.0.1]:80": true,
		"evil.example": false, "evil.example:8080": false, "127.0.0.1.evil.example": false, "localhost.evil.example": false,
		"[fe80::1%25lo]:80": false, "10.0.0.1": false, "0.0.0.0:8080": false, "[::]:80": false, "": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
