package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/obs/obstest"
)

// The Linux build under the Lambda runtime emulator, on moto: a request's
// log line is JSON with a level and API Gateway's request id from the
// event, and its EMF line (on by default in Lambda) is valid and carries the
// same id.
func TestLambdaEmulatorLogsAndMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bootstrap and runs the Lambda emulator and moto; skipped with -short")
	}
	rie, err := lambdatest.RIEPath()
	lambdatest.Need(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	moto, err := lambdatest.StartMoto(ctx)
	lambdatest.Need(t, err)
	defer moto.Stop()
	// /healthz is the agents' function's (template.yaml).
	bootstrap := t.TempDir() + "/bootstrap"
	if err := lambdatest.BuildAgents(ctx, ".", bootstrap, "", ""); err != nil {
		t.Fatal(err)
	}
	emu, err := lambdatest.StartEmulator(ctx, rie, bootstrap, []string{
		envStore + "=dynamodb", envTable + "=" + fmt.Sprintf("obs-%d", time.Now().UnixNano()), envAuth + "=required",
		envEndpoint + "=" + moto.URL, envCreateTable + "=1", envSerializeWrites + "=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer emu.Stop()

	// The store opens in the background (creating the table on a cold
	// moto can take a while on a loaded machine): /healthz answers 503
	// until it is open. Wait for that first, under other request ids.
	open := time.Now().Add(time.Minute)
	for i := 0; ; i++ {
		ev := lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/healthz", nil, nil)
		ev.RequestContext.RequestID = fmt.Sprintf("ObsRieWarm%d=", i)
		resp, err := emu.Invoke(ctx, ev)
		if err == nil && resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(open) {
			t.Fatalf("healthz never answered 200 within a minute: %v %+v", err, resp)
		}
		time.Sleep(200 * time.Millisecond)
	}
	ev := lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/healthz", nil, nil)
	ev.RequestContext.RequestID = "ObsRieReq1="
	resp, err := emu.Invoke(ctx, ev)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %+v", err, resp)
	}
	var line map[string]any
	var metrics obstest.EMF
	deadline := time.Now().Add(10 * time.Second)
	for (line == nil || metrics.Members == nil) && time.Now().Before(deadline) {
		for _, l := range strings.Split(emu.Logs(), "\n") {
			if !strings.Contains(l, `"ObsRieReq1="`) {
				continue
			}
			l = l[strings.Index(l, "{"):] // past anything the emulator puts before a line
			if strings.Contains(l, `"_aws"`) {
				if e, err := obstest.ParseEMF([]byte(l)); err != nil {
					t.Fatalf("invalid EMF (%v): %s", err, l)
				} else {
					metrics = e
				}
				continue
			}
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatalf("the request line is not JSON: %s", l)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if line == nil || metrics.Members == nil {
		t.Fatalf("no request line or no EMF line with the event's request id:\n%s", emu.Logs())
	}
	if line["level"] != "INFO" || line["msg"] != "request" || line["surface"] != "health" || line["status"] != 200.0 {
		t.Errorf("request line: %v", line)
	}
	if metrics.Members[obs.DimSurface] != "health" || metrics.Value(obs.MetricCalls) != 1 {
		t.Errorf("metrics: %v", metrics.Members)
	}
}
