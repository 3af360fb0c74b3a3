// Command restrouting measures what the REST API's router costs a cold
// start: ticket-ledger's own (internal/rest on the standard library's
// ServeMux, schemas inferred on first use, the OpenAPI document built on its
// first request) against the same routes, inputs and results on huma v2
// (which infers every schema and builds the document when routes are
// registered). Each variant is a small program that builds the API, answers
// one list request (query checked against its schema) and then the OpenAPI
// document; they run alternately, and the medians are printed side by side
// with the binaries' sizes (linux/arm64, as deployed).
//
// It is its own module so huma never enters the product's go.mod:
//
//	make bench-restrouting      # or: cd bench/restrouting && go run . -runs 31
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sample: process is exec to exit of a run that stops after the first
// answer (runtime and package initialisation, building the API, the first
// request); built, first and doc are from the start of main.
type sample struct{ process, built, first, doc time.Duration }

func main() {
	runs := flag.Int("runs", 21, "runs of each variant")
	flag.Parse()
	if err := run(*runs); err != nil {
		fmt.Fprintln(os.Stderr, "restrouting:", err)
		os.Exit(1)
	}
}

func run(runs int) error {
	dir, err := os.MkdirTemp("", "restrouting")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	variants := []string{"nethttp", "huma"}
	size := map[string]int64{}
	for _, v := range variants {
		for _, arch := range []string{runtime.GOARCH, "arm64"} {
			out := filepath.Join(dir, v+"-"+arch)
			cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, "./"+v)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
			if b, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("building %s for %s: %v\n%s", v, arch, err, b)
			}
			if arch == "arm64" {
				fi, err := os.Stat(out)
				if err != nil {
					return err
				}
				size[v] = fi.Size()
			}
		}
	}
	samples := map[string][]sample{}
	for i := range runs {
		for k := range variants {
			v := variants[(i+k)%len(variants)] // rotate which goes first
			bin := filepath.Join(dir, v+"-"+runtime.GOARCH)
			first, err := once(bin, "first")
			if err != nil {
				return fmt.Errorf("%s: %w", v, err)
			}
			s, err := once(bin)
			if err != nil {
				return fmt.Errorf("%s: %w", v, err)
			}
			s.process = first.process
			samples[v] = append(samples[v], s)
		}
	}
	fmt.Printf("REST routing, %d runs each, medians (%s/%s); the first column from exec to the exit of a run that stops\nafter the first answer, the others from the start of main\n\n", runs, runtime.GOOS, runtime.GOARCH)
	fmt.Printf("%-8s %18s %14s %22s %18s %14s\n", "router", "exec→first answer", "API built", "first list answered", "document served", "arm64 binary")
	med := map[string]sample{}
	for _, v := range variants {
		ss := samples[v]
		m := sample{
			process: median(ss, func(s sample) time.Duration { return s.process }),
			built:   median(ss, func(s sample) time.Duration { return s.built }),
			first:   median(ss, func(s sample) time.Duration { return s.first }),
			doc:     median(ss, func(s sample) time.Duration { return s.doc }),
		}
		med[v] = m
		fmt.Printf("%-8s %18s %14s %22s %18s %11.2f MB\n", v, ms(m.process), ms(m.built), ms(m.first), ms(m.doc), float64(size[v])/(1<<20))
	}
	n, h := med["nethttp"], med["huma"]
	fmt.Printf("\nhuma / net/http: exec→first answer %.2f×, first list answered %.2f×, document %.2f×, binary +%.2f MB\n",
		ratio(h.process, n.process), ratio(h.first, n.first), ratio(h.doc, n.doc), float64(size["huma"]-size["nethttp"])/(1<<20))
	return nil
}

// once runs a variant and reads the three times it prints (ns from the
// start of main).
func once(bin string, args ...string) (sample, error) {
	start := time.Now()
	out, err := exec.Command(bin, args...).Output()
	s := sample{process: time.Since(start)}
	if err != nil {
		return s, err
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return s, fmt.Errorf("unexpected output %q", out)
	}
	var d [3]time.Duration
	for i := range f {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return s, err
		}
		d[i] = time.Duration(n)
	}
	s.built, s.first, s.doc = d[0], d[1], d[2]
	return s, nil
}

func median(ss []sample, f func(sample) time.Duration) time.Duration {
	v := make([]time.Duration, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
