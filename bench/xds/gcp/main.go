// The go-control-plane peer for bench/xds: server.NewServer over LinearCaches
// (one for clusters, one for assignments, muxed by type), serving the same S
// clusters and S one-endpoint assignments the hub serves in the bench, to the
// same Delta ADS clients. Driven by bench/xds/gcp-server.ts over stdin/stdout,
// one JSON object per line:
//
//	{"cmd":"setup","services":S}        -> {"kind":"setup-done"}
//	{"cmd":"change","service":i,"round":r} -> {"kind":"changed","t0":ms,"round":r,"name":"svc-i"}
//	{"cmd":"stats"}                      -> {"kind":"stats", rss, heapUsed, cpuUserUs, cpuSystemUs, streams}
//	{"cmd":"cpu-mark","id":n}            -> {"kind":"cpu-mark","id":n,"cpuUs":µs}
//	{"cmd":"exit"}
//
// CPU is the process's own getrusage (microseconds), as the Node servers report
// process.cpuUsage(). Not a test dependency: scripts/ensure-go-control-plane.sh builds it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	cluster "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	core "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpoint "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	"github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	"github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"github.com/envoyproxy/go-control-plane/pkg/server/v3"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

var out = json.NewEncoder(os.Stdout)

func reply(v map[string]any) { _ = out.Encode(v) }

func nowMs() float64 { return float64(time.Now().UnixNano()) / 1e6 }

func clusterOf(name string) types.Resource {
	return &cluster.Cluster{
		Name:                 name,
		ClusterDiscoveryType: &cluster.Cluster_Type{Type: cluster.Cluster_EDS},
		EdsClusterConfig: &cluster.Cluster_EdsClusterConfig{
			EdsConfig: &core.ConfigSource{
				ConfigSourceSpecifier: &core.ConfigSource_Ads{Ads: &core.AggregatedConfigSource{}},
				ResourceApiVersion:    core.ApiVersion_V3,
			},
		},
		ConnectTimeout: durationpb.New(5 * time.Second),
		LbPolicy:       cluster.Cluster_ROUND_ROBIN,
	}
}

// The hub's shape for one instance: locality region dc1, HEALTHY, weight 1.
func assignmentOf(name string, i int, port uint32) types.Resource {
	addr := fmt.Sprintf("10.%d.%d.%d", (i>>16)&255, (i>>8)&255, i&255)
	return &endpoint.ClusterLoadAssignment{
		ClusterName: name,
		Endpoints: []*endpoint.LocalityLbEndpoints{{
			Locality: &core.Locality{Region: "dc1"},
			LbEndpoints: []*endpoint.LbEndpoint{{
				HostIdentifier: &endpoint.LbEndpoint_Endpoint{Endpoint: &endpoint.Endpoint{
					Address: &core.Address{Address: &core.Address_SocketAddress{SocketAddress: &core.SocketAddress{
						Address: addr, PortSpecifier: &core.SocketAddress_PortValue{PortValue: port},
					}}},
				}},
				HealthStatus:        core.HealthStatus_HEALTHY,
				LoadBalancingWeight: wrapperspb.UInt32(1),
			}},
			LoadBalancingWeight: wrapperspb.UInt32(1),
		}},
	}
}

type counter struct{ open atomic.Int64 }

func (c *counter) OnStreamOpen(context.Context, int64, string) error { return nil }
func (c *counter) OnStreamClosed(int64, *core.Node)                  {}
func (c *counter) OnStreamRequest(int64, *discovery.DiscoveryRequest) error {
	return nil
}
func (c *counter) OnStreamResponse(context.Context, int64, *discovery.DiscoveryRequest, *discovery.DiscoveryResponse) {
}
func (c *counter) OnFetchRequest(context.Context, *discovery.DiscoveryRequest) error         { return nil }
func (c *counter) OnFetchResponse(*discovery.DiscoveryRequest, *discovery.DiscoveryResponse) {}
func (c *counter) OnDeltaStreamOpen(context.Context, int64, string) error {
	c.open.Add(1)
	return nil
}
func (c *counter) OnDeltaStreamClosed(int64, *core.Node) { c.open.Add(-1) }
func (c *counter) OnStreamDeltaRequest(int64, *discovery.DeltaDiscoveryRequest) error {
	return nil
}
func (c *counter) OnStreamDeltaResponse(int64, *discovery.DeltaDiscoveryRequest, *discovery.DeltaDiscoveryResponse) {
}

func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

func main() {
	clusters := cache.NewLinearCache(resource.ClusterType)
	assignments := cache.NewLinearCache(resource.EndpointType)
	mux := &cache.MuxCache{
		Classify:      func(r *cache.Request) string { return r.GetTypeUrl() },
		ClassifyDelta: func(r *cache.DeltaRequest) string { return r.GetTypeUrl() },
		Caches:        map[string]cache.Cache{resource.ClusterType: clusters, resource.EndpointType: assignments},
	}
	cb := &counter{}
	srv := server.NewServer(context.Background(), mux, cb)
	g := grpc.NewServer(grpc.MaxConcurrentStreams(1 << 20))
	discovery.RegisterAggregatedDiscoveryServiceServer(g, srv)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() { _ = g.Serve(lis) }()
	reply(map[string]any{"kind": "listening", "port": lis.Addr().(*net.TCPAddr).Port})

	ports := map[int]uint32{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var m struct {
			Cmd      string `json:"cmd"`
			Services int    `json:"services"`
			Service  int    `json:"service"`
			Round    int    `json:"round"`
			ID       int    `json:"id"`
		}
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			panic(err)
		}
		switch m.Cmd {
		case "setup":
			cs := map[string]types.Resource{}
			as := map[string]types.Resource{}
			for i := 0; i < m.Services; i++ {
				name := fmt.Sprintf("svc-%d", i)
				ports[i] = 8080
				cs[name] = clusterOf(name)
				as[name] = assignmentOf(name, i, 8080)
			}
			clusters.SetResources(cs)
			assignments.SetResources(as)
			reply(map[string]any{"kind": "setup-done", "ms": 0})
		case "change":
			ports[m.Service]++
			name := fmt.Sprintf("svc-%d", m.Service)
			res := assignmentOf(name, m.Service, ports[m.Service])
			t0 := nowMs()
			if err := assignments.UpdateResource(name, res); err != nil {
				panic(err)
			}
			reply(map[string]any{"kind": "changed", "t0": t0, "round": m.Round, "name": name})
		case "stats":
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			var ru syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			reply(map[string]any{
				"kind": "stats", "rss": rssBytes(), "heapUsed": ms.HeapAlloc, "external": 0, "arrayBuffers": 0,
				"cpuUserUs": ru.Utime.Sec*1e6 + ru.Utime.Usec, "cpuSystemUs": ru.Stime.Sec*1e6 + ru.Stime.Usec,
				"streams": cb.open.Load(),
			})
		case "cpu-mark":
			var ru syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			reply(map[string]any{"kind": "cpu-mark", "id": m.ID, "cpuUs": ru.Utime.Sec*1e6 + ru.Utime.Usec + ru.Stime.Sec*1e6 + ru.Stime.Usec})
		case "exit":
			g.Stop()
			return
		}
	}
}
