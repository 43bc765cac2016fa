// A second, independent Consul client against the hub: HashiCorp's own Go API
// (github.com/hashicorp/consul/api), unchanged. It runs one scenario against the
// hub at -addr and prints "ok <step>" per step; the first failure exits 1.
// Run by test/clients/go-api.int.test.ts.
package main

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/consul/api"
)

var step string

func must(cond bool, format string, args ...any) {
	if !cond {
		fmt.Printf("FAIL %s: %s\n", step, fmt.Sprintf(format, args...))
		os.Exit(1)
	}
}

func check(err error) {
	if err != nil {
		fmt.Printf("FAIL %s: %v\n", step, err)
		os.Exit(1)
	}
}

func begin(name string) { step = name }
func done()             { fmt.Printf("ok %s\n", step) }

func ids(entries []*api.ServiceEntry) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e.Service.ID)
	}
	sort.Strings(out)
	return out
}

func main() {
	addr := flag.String("addr", "", "hub HTTP address (host:port)")
	dc := flag.String("dc", "", "the hub's datacenter")
	node := flag.String("node", "", "the hub's node name")
	flag.Parse()
	client, err := api.NewClient(&api.Config{Address: *addr, Scheme: "http"})
	check(err)
	agent, catalog, health := client.Agent(), client.Catalog(), client.Health()

	begin("catalog datacenters")
	dcs, err := catalog.Datacenters()
	check(err)
	must(reflect.DeepEqual(dcs, []string{*dc}), "datacenters %v", dcs)
	done()

	begin("agent service register with TTL checks")
	for i, port := range []int{8080, 8081} {
		check(agent.ServiceRegister(&api.AgentServiceRegistration{
			ID: fmt.Sprintf("goweb-%d", i+1), Name: "goweb", Port: port, Tags: []string{fmt.Sprintf("v%d", i+1)},
			Meta:  map[string]string{"lang": "go"},
			Check: &api.AgentServiceCheck{CheckID: fmt.Sprintf("goweb-%d-ttl", i+1), TTL: "10m"},
		}))
	}
	services, err := agent.Services()
	check(err)
	must(services["goweb-1"] != nil && services["goweb-1"].Port == 8080 && services["goweb-1"].Meta["lang"] == "go", "agent services %v", services)
	done()

	begin("TTL checks: new checks are critical, UpdateTTL passes them")
	entries, _, err := health.Service("goweb", "", true, nil)
	check(err)
	must(len(entries) == 0, "passing before any TTL update: %v", ids(entries))
	check(agent.UpdateTTL("goweb-1-ttl", "all good", api.HealthPassing))
	check(agent.PassTTL("goweb-2-ttl", ""))
	entries, meta, err := health.Service("goweb", "", true, nil)
	check(err)
	must(reflect.DeepEqual(ids(entries), []string{"goweb-1", "goweb-2"}), "passing %v", ids(entries))
	must(entries[0].Checks[0].Output == "all good" || entries[1].Checks[0].Output == "all good", "output kept")
	must(meta.LastIndex > 0, "X-Consul-Index %d", meta.LastIndex)
	done()

	begin("blocking health query returns on a TTL failure")
	type result struct {
		entries []*api.ServiceEntry
		meta    *api.QueryMeta
		err     error
	}
	ch := make(chan result, 1)
	go func() {
		e, m, err := health.Service("goweb", "", false, &api.QueryOptions{WaitIndex: meta.LastIndex, WaitTime: 30 * time.Second})
		ch <- result{e, m, err}
	}()
	time.Sleep(100 * time.Millisecond)
	started := time.Now()
	check(agent.FailTTL("goweb-2-ttl", "down"))
	r := <-ch
	check(r.err)
	must(r.meta.LastIndex > meta.LastIndex, "index moved %d -> %d", meta.LastIndex, r.meta.LastIndex)
	must(time.Since(started) < 20*time.Second, "returned on the change, not the wait")
	critical := 0
	for _, e := range r.entries {
		for _, c := range e.Checks {
			if c.Status == api.HealthCritical {
				critical++
			}
		}
	}
	must(critical == 1, "one critical check after FailTTL, got %d", critical)
	done()

	begin("filtered health query; a bad filter is an error")
	entries, _, err = health.Service("goweb", "", false, &api.QueryOptions{Filter: `Service.Port == 8081 and "v2" in Service.Tags`})
	check(err)
	must(reflect.DeepEqual(ids(entries), []string{"goweb-2"}), "filtered %v", ids(entries))
	_, _, err = health.Service("goweb", "", false, &api.QueryOptions{Filter: "Service.Prot == 1"})
	must(err != nil && strings.Contains(err.Error(), "400") && strings.Contains(err.Error(), `Selector "Service.Prot" is not valid`), "bad filter error %v", err)
	done()

	begin("catalog reads: services, service, nodes, node, node services")
	check2(catalog.Register(&api.CatalogRegistration{
		Node: "go-node", Address: "10.7.0.1", NodeMeta: map[string]string{"rack": "r9"},
		Service: &api.AgentService{ID: "gocache-1", Service: "gocache", Port: 6379, Tags: []string{"primary"}},
	}, nil))
	svcs, _, err := catalog.Services(nil)
	check(err)
	must(reflect.DeepEqual(svcs["gocache"], []string{"primary"}) && len(svcs["goweb"]) == 2, "services %v", svcs)
	nodesOf, _, err := catalog.Service("gocache", "", nil)
	check(err)
	must(len(nodesOf) == 1 && nodesOf[0].Node == "go-node" && nodesOf[0].ServicePort == 6379 && nodesOf[0].NodeMeta["rack"] == "r9", "service nodes %+v", nodesOf)
	nodes, _, err := catalog.Nodes(&api.QueryOptions{NodeMeta: map[string]string{"rack": "r9"}})
	check(err)
	must(len(nodes) == 1 && nodes[0].Node == "go-node", "nodes by meta %v", nodes)
	near, _, err := catalog.Nodes(&api.QueryOptions{Near: "_agent"})
	check(err)
	must(len(near) >= 2 && near[0].Node == *node, "near=_agent first %v", near[0].Node)
	one, _, err := catalog.Node("go-node", nil)
	check(err)
	must(one != nil && one.Services["gocache-1"] != nil, "node %+v", one)
	list, _, err := catalog.NodeServiceList(*node, &api.QueryOptions{Filter: "Service == goweb"})
	check(err)
	must(list != nil && len(list.Services) == 2, "node service list %+v", list)
	_, err = catalog.Deregister(&api.CatalogDeregistration{Node: "go-node"}, nil)
	check(err)
	done()

	begin("agent members, check register, maintenance, service health")
	members, err := agent.Members(false)
	check(err)
	must(len(members) == 1 && members[0].Name == *node, "members %v", members)
	check(agent.CheckRegister(&api.AgentCheckRegistration{ID: "go-extra", Name: "extra", ServiceID: "goweb-1", AgentServiceCheck: api.AgentServiceCheck{TTL: "1m"}}))
	checks, err := agent.Checks()
	check(err)
	must(checks["go-extra"] != nil && checks["go-extra"].ServiceName == "goweb", "checks %v", checks)
	check(agent.CheckDeregister("go-extra"))
	check(agent.EnableServiceMaintenance("goweb-1", "go test"))
	status, info, err := agent.AgentHealthServiceByID("goweb-1")
	check(err)
	// 503 reads as critical; the body says why.
	must(status == api.HealthCritical && info != nil && info.AggregatedStatus == api.HealthMaint && info.Service.ID == "goweb-1", "maintenance status %q %+v", status, info)
	check(agent.DisableServiceMaintenance("goweb-1"))
	status, _, err = agent.AgentHealthServiceByName("goweb")
	check(err)
	must(status == api.HealthCritical, "worst of goweb is critical (goweb-2 failed), got %q", status)
	check(agent.EnableNodeMaintenance(""))
	entries, _, err = health.Service("goweb", "", true, nil)
	check(err)
	must(len(entries) == 0, "node maintenance leaves nothing passing: %v", ids(entries))
	check(agent.DisableNodeMaintenance())
	done()

	begin("connect: CA config round trip, roots, leaf, intentions (upsert, legacy create/update, check, delete)")
	connect := client.Connect()
	conf, _, err := connect.CAGetConfig(nil)
	check(err)
	must(conf.Provider == "consul" && conf.Config["LeafCertTTL"] == "72h0m0s", "CA config %+v", conf)
	conf.Config["LeafCertTTL"] = "48h"
	// The Go client sends every field (State, indexes): what it read back is a valid write.
	check2(connect.CASetConfig(conf, nil))
	conf, _, err = connect.CAGetConfig(nil)
	check(err)
	must(conf.Config["LeafCertTTL"] == "48h0m0s", "LeafCertTTL after set %v", conf.Config["LeafCertTTL"])
	_, err = connect.CASetConfig(&api.CAConfig{Provider: "vault", Config: map[string]interface{}{}}, nil)
	must(err != nil && strings.Contains(err.Error(), "Provider"), "a vault provider is refused naming Provider: %v", err)
	roots, _, err := connect.CARoots(nil)
	check(err)
	must(len(roots.Roots) == 1 && roots.Roots[0].Active && roots.ActiveRootID == roots.Roots[0].ID, "roots %+v", roots)
	leaf, _, err := agent.ConnectCALeaf("goweb", nil)
	check(err)
	must(leaf.Service == "goweb" && strings.HasSuffix(leaf.ServiceURI, "/svc/goweb") && leaf.PrivateKeyPEM != "", "leaf %+v", leaf)
	check2(connect.IntentionUpsert(&api.Intention{SourceName: "goweb", DestinationName: "godb", Action: api.IntentionActionAllow, Description: "go"}, nil))
	got, _, err := connect.IntentionGetExact("goweb", "godb", nil)
	check(err)
	must(got != nil && got.Action == api.IntentionActionAllow && got.Precedence == 9, "exact %+v", got)
	// Everything the client read (ID, Precedence, timestamps, indexes) sent back unchanged is accepted.
	got.Action = api.IntentionActionDeny
	check2(connect.IntentionUpsert(got, nil))
	allowed, _, err := connect.IntentionCheck(&api.IntentionCheck{Source: "goweb", Destination: "godb"}, nil)
	check(err)
	must(!allowed, "goweb -> godb denied")
	id, _, err := connect.IntentionCreate(&api.Intention{SourceName: "gocache", DestinationName: "godb", Action: api.IntentionActionAllow}, nil)
	check(err)
	legacy, _, err := connect.IntentionGet(id, nil)
	check(err)
	must(legacy != nil && legacy.ID == id, "legacy %+v", legacy)
	legacy.Action = api.IntentionActionDeny
	check2(connect.IntentionUpdate(legacy, nil))
	check2(connect.IntentionDelete(id, nil))
	check2(connect.IntentionDeleteExact("goweb", "godb", nil))
	ixns, _, err := connect.Intentions(nil)
	check(err)
	must(len(ixns) == 0, "intentions left %v", ixns)
	done()

	begin("catalog register with a check (every HealthCheckDefinition carries Interval/Timeout \"0s\")")
	_, err = catalog.Register(&api.CatalogRegistration{
		Node: "go-ext", Address: "10.7.0.1",
		Service: &api.AgentService{ID: "goext-1", Service: "goext", Port: 7000},
		Check: &api.AgentCheck{Node: "go-ext", CheckID: "goext-alive", Name: "alive", Status: api.HealthPassing, ServiceID: "goext-1",
			Definition: api.HealthCheckDefinition{TCP: "10.7.0.1:7000"}},
	}, nil)
	check(err)
	extChecks, _, err := health.Checks("goext", nil)
	check(err)
	must(len(extChecks) == 1 && extChecks[0].Status == api.HealthPassing && extChecks[0].Definition.TCP == "10.7.0.1:7000", "checks %+v", extChecks)
	_, err = catalog.Deregister(&api.CatalogDeregistration{Node: "go-ext"}, nil)
	check(err)
	done()

	begin("agent service by ID, blocking on its ContentHash")
	svc, meta, err := agent.Service("goweb-1", nil)
	check(err)
	must(svc.ContentHash != "" && meta.LastContentHash == svc.ContentHash && svc.Port == 8080, "service %+v meta %+v", svc, meta)
	// Nothing changes: the read waits out its wait and answers the same hash.
	started = time.Now()
	same, _, err := agent.Service("goweb-1", &api.QueryOptions{WaitHash: svc.ContentHash, WaitTime: 300 * time.Millisecond})
	check(err)
	must(time.Since(started) >= 300*time.Millisecond && same.ContentHash == svc.ContentHash, "unchanged read after %v: %+v", time.Since(started), same)
	// A change ends the wait (or, if it lands first, the read answers at once): the new content, a new hash.
	woke := make(chan *api.AgentService, 1)
	go func() {
		next, _, err := agent.Service("goweb-1", &api.QueryOptions{WaitHash: svc.ContentHash, WaitTime: time.Minute})
		check(err)
		woke <- next
	}()
	check(agent.ServiceRegister(&api.AgentServiceRegistration{ID: "goweb-1", Name: "goweb", Port: 8090, Tags: []string{"v1"}, Meta: map[string]string{"lang": "go"}}))
	next := <-woke
	must(next.Port == 8090 && next.ContentHash != svc.ContentHash, "after the change %+v", next)
	done()

	kvScenario(client)

	begin("agent service deregister")
	check(agent.ServiceDeregister("goweb-1"))
	check(agent.ServiceDeregister("goweb-2"))
	services, err = agent.Services()
	check(err)
	must(services["goweb-1"] == nil && services["goweb-2"] == nil, "left %v", services)
	done()
}

func check2(_ *api.WriteMeta, err error) { check(err) }

func keysOf(pairs api.KVPairs) []string {
	out := []string{}
	for _, p := range pairs {
		out = append(out, p.Key)
	}
	return out
}

// kvScenario: KV reads and writes, CAS, a session's lock, a blocking Get and a txn.
func kvScenario(client *api.Client) {
	kv := client.KV()
	begin("kv put, get, list, keys, delete, delete tree")
	check2(kv.Put(&api.KVPair{Key: "go/a", Value: []byte("1"), Flags: 42}, nil))
	check2(kv.Put(&api.KVPair{Key: "go/dir/b", Value: []byte("2")}, nil))
	pair, _, err := kv.Get("go/a", nil)
	check(err)
	must(pair != nil && string(pair.Value) == "1" && pair.Flags == 42, "get %+v", pair)
	missing, _, err := kv.Get("go/none", nil)
	check(err)
	must(missing == nil, "a missing key reads as nil: %+v", missing)
	list, _, err := kv.List("go/", nil)
	check(err)
	must(reflect.DeepEqual(keysOf(list), []string{"go/a", "go/dir/b"}), "list %v", keysOf(list))
	keys, _, err := kv.Keys("go/", "/", nil)
	check(err)
	must(reflect.DeepEqual(keys, []string{"go/a", "go/dir/"}), "keys %v", keys)
	check2(kv.Delete("go/a", nil))
	check2(kv.DeleteTree("go/dir/", nil))
	list, _, err = kv.List("go/", nil)
	check(err)
	must(len(list) == 0, "left %v", keysOf(list))
	done()

	begin("kv CAS: index 0 creates once, a stale index is refused")
	ok, _, err := kv.CAS(&api.KVPair{Key: "go/cas", Value: []byte("first"), ModifyIndex: 0}, nil)
	check(err)
	must(ok, "create with index 0")
	ok, _, err = kv.CAS(&api.KVPair{Key: "go/cas", Value: []byte("again"), ModifyIndex: 0}, nil)
	check(err)
	must(!ok, "index 0 on an existing key")
	cur, _, err := kv.Get("go/cas", nil)
	check(err)
	ok, _, err = kv.CAS(&api.KVPair{Key: "go/cas", Value: []byte("second"), ModifyIndex: cur.ModifyIndex}, nil)
	check(err)
	must(ok, "the current index")
	ok, _, err = kv.CAS(&api.KVPair{Key: "go/cas", Value: []byte("stale"), ModifyIndex: cur.ModifyIndex}, nil)
	check(err)
	must(!ok, "a stale index")
	done()

	begin("session acquire and release: one holder at a time")
	sessions := client.Session()
	s1, _, err := sessions.Create(&api.SessionEntry{Name: "go-1", TTL: "30s", LockDelay: time.Millisecond}, nil)
	check(err)
	s2, _, err := sessions.Create(&api.SessionEntry{Name: "go-2", TTL: "30s", LockDelay: time.Millisecond}, nil)
	check(err)
	ok, _, err = kv.Acquire(&api.KVPair{Key: "go/lock", Value: []byte("s1"), Session: s1}, nil)
	check(err)
	must(ok, "s1 acquires")
	ok, _, err = kv.Acquire(&api.KVPair{Key: "go/lock", Value: []byte("s2"), Session: s2}, nil)
	check(err)
	must(!ok, "s2 is refused while s1 holds it")
	held, _, err := kv.Get("go/lock", nil)
	check(err)
	must(held.Session == s1 && held.LockIndex == 1, "held %+v", held)
	ok, _, err = kv.Release(&api.KVPair{Key: "go/lock", Session: s1}, nil)
	check(err)
	must(ok, "s1 releases")
	check2(sessions.Destroy(s1, nil))
	check2(sessions.Destroy(s2, nil))
	done()

	begin("blocking kv get returns on the change")
	_, meta, err := kv.Get("go/cas", nil)
	check(err)
	woke := make(chan *api.KVPair, 1)
	go func() {
		p, m, err := kv.Get("go/cas", &api.QueryOptions{WaitIndex: meta.LastIndex, WaitTime: time.Minute})
		check(err)
		must(m.LastIndex > meta.LastIndex, "index moved %d -> %d", meta.LastIndex, m.LastIndex)
		woke <- p
	}()
	time.Sleep(100 * time.Millisecond)
	check2(kv.Put(&api.KVPair{Key: "go/cas", Value: []byte("third")}, nil))
	changed := <-woke
	must(string(changed.Value) == "third", "woke with %+v", changed)
	done()

	begin("txn: KV and catalog verbs in one transaction; a failing op rolls back all")
	okTxn, resp, _, err := client.Txn().Txn(api.TxnOps{
		{KV: &api.KVTxnOp{Verb: api.KVSet, Key: "go/txn", Value: []byte("t")}},
		{KV: &api.KVTxnOp{Verb: api.KVGet, Key: "go/cas"}},
		{Node: &api.NodeTxnOp{Verb: api.NodeSet, Node: api.Node{Node: "go-txn", Address: "10.8.0.1"}}},
		{Node: &api.NodeTxnOp{Verb: api.NodeGet, Node: api.Node{Node: "go-txn"}}},
	}, nil)
	check(err)
	must(okTxn && len(resp.Results) == 4 && string(resp.Results[1].KV.Value) == "third" && resp.Results[3].Node.Address == "10.8.0.1", "results %+v errors %+v", resp.Results, resp.Errors)
	okTxn, resp, _, err = client.Txn().Txn(api.TxnOps{
		{KV: &api.KVTxnOp{Verb: api.KVSet, Key: "go/txn2", Value: []byte("x")}},
		{KV: &api.KVTxnOp{Verb: api.KVCheckNotExists, Key: "go/txn"}},
	}, nil)
	check(err)
	must(!okTxn && len(resp.Errors) == 1 && resp.Errors[0].OpIndex == 1, "refused %+v", resp.Errors)
	rolled, _, err := kv.Get("go/txn2", nil)
	check(err)
	must(rolled == nil, "rolled back: %+v", rolled)
	_, err = client.Catalog().Deregister(&api.CatalogDeregistration{Node: "go-txn"}, nil)
	check(err)
	done()
}
