// Package deploycheck checks the deployment examples in docs/deploy against
// the framework they deploy: the Kubernetes manifests decode strictly into
// their k8s.io/api types, and their probes, stop timings, rollout and
// selectors fit what Plinth does; the Compose file and the haproxy config
// name the same services; the systemd unit stops no sooner than the app
// drains. The app's settings are resolved by plinth.ResolveConfig from the
// variables each file sets, so the defaults are the framework's own.
//
//	cd bench && go test ./deploycheck/
package deploycheck

import (
	"bufio"
	"bytes"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// deployDir holds the files checked, relative to this package.
const deployDir = "../../docs/deploy"

// checkTimeout is the longest a readiness check may take before Plinth
// reports it failed: App.ReadinessCheck's default (0 means 2s), and the
// timeout of the checks the modules add (web.ReadinessTimeout,
// data.ReadinessTimeout, cache.ReadinessTimeout). A probe must wait longer,
// so that a slow dependency is reported by the app, not by a probe timeout.
const checkTimeout = 2 * time.Second

// minDrain is the least time a stopping instance keeps serving after it
// starts failing readiness, for load balancers and endpoints to move away:
// the value docs/defaults.md suggests for PLINTH_DRAIN_DELAY.
const minDrain = 5 * time.Second

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// resolve returns the configuration Plinth would run with in an environment
// holding env: plinth.ResolveConfig, with this process's own PLINTH_*
// variables hidden for the test, so that only env and the defaults count.
func resolve(t *testing.T, env map[string]string) plinth.Config {
	t.Helper()
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "PLINTH_") {
			t.Setenv(name, "") // restored when the test ends
			os.Unsetenv(name)
		}
	}
	for k, v := range env {
		if strings.HasPrefix(k, "PLINTH_") {
			t.Setenv(k, v)
		}
	}
	cfg, err := plinth.ResolveConfig(plinth.Config{})
	if err != nil {
		t.Fatalf("the app would not start with this environment: %v", err)
	}
	return cfg
}

// stopTime is how long the app may take to stop after SIGTERM: the drain
// delay, then the grace period of the requests in flight.
func stopTime(cfg plinth.Config) time.Duration { return cfg.DrainDelay + cfg.ShutdownTimeout }

// listenPort is the port of cfg.Addr.
func listenPort(t *testing.T, cfg plinth.Config) int32 {
	t.Helper()
	_, p, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		t.Fatalf("PLINTH_ADDR %q: %v", cfg.Addr, err)
	}
	n, err := strconv.ParseInt(p, 10, 32)
	if err != nil {
		t.Fatalf("PLINTH_ADDR %q: port %q is not a number", cfg.Addr, p)
	}
	return int32(n)
}

// Kubernetes.

type manifests struct {
	deployment *appsv1.Deployment
	service    *corev1.Service
	pdb        *policyv1.PodDisruptionBudget
	secret     *corev1.Secret
}

// splitDocuments splits a multi-document YAML file at its "---" lines and
// drops the documents that hold only comments.
func splitDocuments(b []byte) [][]byte {
	var docs [][]byte
	var cur bytes.Buffer
	flush := func() {
		for _, line := range strings.Split(cur.String(), "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
				docs = append(docs, bytes.Clone(cur.Bytes()))
				break
			}
		}
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if strings.TrimRight(line, " \t\r\n") == "---" {
			flush()
			continue
		}
		cur.WriteString(line)
	}
	flush()
	return docs
}

// decodeStrict decodes doc into a new T, failing on a field T does not
// have, and stores it in *slot, which must be empty.
func decodeStrict[T any](t *testing.T, i int, kind string, doc []byte, slot **T) {
	t.Helper()
	if *slot != nil {
		t.Fatalf("document %d: a second %s", i, kind)
	}
	v := new(T)
	if err := yaml.UnmarshalStrict(doc, v); err != nil {
		t.Fatalf("document %d (%s): %v", i, kind, err)
	}
	*slot = v
}

// loadManifests reads kubernetes.yaml and decodes each document strictly
// into the k8s.io/api type its apiVersion and kind name.
func loadManifests(t *testing.T) manifests {
	t.Helper()
	var m manifests
	for i, doc := range splitDocuments(readFile(t, "kubernetes.yaml")) {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		kind := tm.APIVersion + " " + tm.Kind
		switch kind {
		case "apps/v1 Deployment":
			decodeStrict(t, i, kind, doc, &m.deployment)
		case "v1 Service":
			decodeStrict(t, i, kind, doc, &m.service)
		case "policy/v1 PodDisruptionBudget":
			decodeStrict(t, i, kind, doc, &m.pdb)
		case "v1 Secret":
			decodeStrict(t, i, kind, doc, &m.secret)
		default:
			t.Fatalf("document %d: unexpected kind %q", i, kind)
		}
	}
	if m.deployment == nil || m.service == nil || m.pdb == nil || m.secret == nil {
		t.Fatalf("want a Deployment, a Service, a PodDisruptionBudget and a Secret; got %+v", m)
	}
	return m
}

// container returns the Deployment's one container.
func (m manifests) container(t *testing.T) corev1.Container {
	t.Helper()
	cs := m.deployment.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("the Deployment has %d containers, want 1", len(cs))
	}
	return cs[0]
}

// literalEnv returns the container's variables that have a value in the
// manifest (not those read from a Secret).
func literalEnv(c corev1.Container) map[string]string {
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	return env
}

// portOf resolves a probe's or a Service's port to the container port it
// names, by name or number.
func portOf(c corev1.Container, p intstr.IntOrString) (int32, bool) {
	for _, cp := range c.Ports {
		if (p.Type == intstr.String && cp.Name == p.StrVal) || (p.Type == intstr.Int && cp.ContainerPort == p.IntVal) {
			return cp.ContainerPort, true
		}
	}
	return 0, false
}

func TestKubernetesProbes(t *testing.T) {
	m := loadManifests(t)
	c := m.container(t)
	cfg := resolve(t, literalEnv(c))
	port := listenPort(t, cfg)
	for _, probe := range []struct {
		name  string
		p     *corev1.Probe
		path  string
		fixed string
	}{
		{"readinessProbe", c.ReadinessProbe, cfg.ReadinessPath, "/readyz"},
		{"livenessProbe", c.LivenessProbe, cfg.LivenessPath, "/livez"},
	} {
		if probe.p == nil || probe.p.HTTPGet == nil {
			t.Errorf("%s: want an httpGet probe", probe.name)
			continue
		}
		g := probe.p.HTTPGet
		if g.Path != probe.path || g.Path != probe.fixed {
			t.Errorf("%s: path %q, want %q (the app answers it on %q)", probe.name, g.Path, probe.fixed, probe.path)
		}
		if p, ok := portOf(c, g.Port); !ok || p != port {
			t.Errorf("%s: port %s is container port %d (found %v), want %d, where the app listens (PLINTH_ADDR %q)",
				probe.name, g.Port.String(), p, ok, port, cfg.Addr)
		}
		if probe.p.PeriodSeconds <= 0 || probe.p.FailureThreshold <= 0 {
			t.Errorf("%s: set periodSeconds and failureThreshold", probe.name)
		}
	}
	if r := c.ReadinessProbe; r != nil && time.Duration(r.TimeoutSeconds)*time.Second <= checkTimeout {
		t.Errorf("readinessProbe: timeoutSeconds %d, want more than a readiness check's %v", r.TimeoutSeconds, checkTimeout)
	}
}

// preStopTime is how long the container's preStop hook holds SIGTERM back.
func preStopTime(t *testing.T, c corev1.Container) time.Duration {
	t.Helper()
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
		return 0
	}
	h := c.Lifecycle.PreStop
	switch {
	case h.Sleep != nil:
		return time.Duration(h.Sleep.Seconds) * time.Second
	case h.Exec != nil && len(h.Exec.Command) == 2 && filepath.Base(h.Exec.Command[0]) == "sleep":
		n, err := strconv.Atoi(h.Exec.Command[1])
		if err == nil {
			return time.Duration(n) * time.Second
		}
	}
	t.Fatalf("preStop: cannot tell how long %+v takes", h)
	return 0
}

func TestKubernetesStopTimings(t *testing.T) {
	m := loadManifests(t)
	c := m.container(t)
	env := literalEnv(c)
	cfg := resolve(t, env)
	spec := m.deployment.Spec.Template.Spec
	grace := 30 * time.Second // Kubernetes' default
	if spec.TerminationGracePeriodSeconds != nil {
		grace = time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
	}
	preStop := preStopTime(t, c)
	if need := preStop + stopTime(cfg); grace <= need {
		t.Errorf("terminationGracePeriodSeconds %v: want more than preStop %v + PLINTH_DRAIN_DELAY %v + PLINTH_SHUTDOWN_TIMEOUT %v = %v",
			grace, preStop, cfg.DrainDelay, cfg.ShutdownTimeout, need)
	}
	if d := preStop + cfg.DrainDelay; d < minDrain {
		t.Errorf("preStop %v + PLINTH_DRAIN_DELAY %v = %v: the pod stops listening before its endpoints are gone everywhere; want at least %v",
			preStop, cfg.DrainDelay, d, minDrain)
	}
	if env["PLINTH_UPGRADE"] != "off" || cfg.Upgrade != "off" {
		t.Errorf("PLINTH_UPGRADE %q: want \"off\" (the app is PID 1 in its container)", env["PLINTH_UPGRADE"])
	}
}

func TestKubernetesRollout(t *testing.T) {
	m := loadManifests(t)
	d := m.deployment.Spec
	replicas := 1
	if d.Replicas != nil {
		replicas = int(*d.Replicas)
	}
	if replicas < 2 {
		t.Errorf("replicas %d: want at least 2", replicas)
	}
	s := d.Strategy
	if s.Type != appsv1.RollingUpdateDeploymentStrategyType || s.RollingUpdate == nil ||
		s.RollingUpdate.MaxUnavailable == nil || s.RollingUpdate.MaxSurge == nil {
		t.Fatalf("strategy %+v: want RollingUpdate with maxUnavailable and maxSurge set", s)
	}
	if u, err := intstr.GetScaledValueFromIntOrPercent(s.RollingUpdate.MaxUnavailable, replicas, true); err != nil || u != 0 {
		t.Errorf("maxUnavailable %s: want 0 (%v)", s.RollingUpdate.MaxUnavailable.String(), err)
	}
	if u, err := intstr.GetScaledValueFromIntOrPercent(s.RollingUpdate.MaxSurge, replicas, true); err != nil || u < 1 {
		t.Errorf("maxSurge %s: want at least 1, or the rollout cannot start a pod (%v)", s.RollingUpdate.MaxSurge.String(), err)
	}

	// The budget must let a node drain evict one pod, and keep more than one.
	p := m.pdb.Spec
	var allowed int
	switch {
	case p.MinAvailable != nil && p.MaxUnavailable == nil:
		min, err := intstr.GetScaledValueFromIntOrPercent(p.MinAvailable, replicas, true)
		if err != nil {
			t.Fatal(err)
		}
		allowed = replicas - min
	case p.MaxUnavailable != nil && p.MinAvailable == nil:
		var err error
		if allowed, err = intstr.GetScaledValueFromIntOrPercent(p.MaxUnavailable, replicas, true); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("PodDisruptionBudget: set one of minAvailable and maxUnavailable")
	}
	if allowed < 1 || allowed >= replicas {
		t.Errorf("PodDisruptionBudget allows %d of %d pods to be evicted at once: want at least 1 (or node drains block) and fewer than all", allowed, replicas)
	}
}

func TestKubernetesSelectors(t *testing.T) {
	m := loadManifests(t)
	c := m.container(t)
	cfg := resolve(t, literalEnv(c))
	pod := labels.Set(m.deployment.Spec.Template.Labels)

	for _, s := range []struct {
		name string
		sel  *metav1.LabelSelector
	}{
		{"the Deployment's selector", m.deployment.Spec.Selector},
		{"the PodDisruptionBudget's selector", m.pdb.Spec.Selector},
	} {
		if s.sel == nil || (len(s.sel.MatchLabels) == 0 && len(s.sel.MatchExpressions) == 0) {
			t.Errorf("%s is empty", s.name)
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(s.sel)
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		if !sel.Matches(pod) {
			t.Errorf("%s %s does not select the pods (labels %v)", s.name, sel, pod)
		}
	}

	if len(m.service.Spec.Selector) == 0 {
		t.Errorf("the Service's selector is empty")
	} else if sel := labels.SelectorFromSet(m.service.Spec.Selector); !sel.Matches(pod) {
		t.Errorf("the Service's selector %s does not select the pods (labels %v)", sel, pod)
	}
	port := listenPort(t, cfg)
	for _, sp := range m.service.Spec.Ports {
		if p, ok := portOf(c, sp.TargetPort); !ok || p != port {
			t.Errorf("Service port %d: targetPort %s is not the app's port %d", sp.Port, sp.TargetPort.String(), port)
		}
	}
}

func TestKubernetesSecretRefs(t *testing.T) {
	m := loadManifests(t)
	c := m.container(t)
	refs := 0
	for _, e := range c.Env {
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			continue
		}
		refs++
		r := e.ValueFrom.SecretKeyRef
		_, inString := m.secret.StringData[r.Key]
		_, inData := m.secret.Data[r.Key]
		if r.Name != m.secret.Name || !(inString || inData) {
			t.Errorf("%s: reads key %q of Secret %q; the Secret %q has no such key", e.Name, r.Key, r.Name, m.secret.Name)
		}
	}
	if refs == 0 {
		t.Errorf("no variable reads the Secret")
	}
}

func TestKubernetesSecurity(t *testing.T) {
	m := loadManifests(t)
	c := m.container(t)
	pod := m.deployment.Spec.Template.Spec.SecurityContext
	sc := c.SecurityContext
	nonRoot := (sc != nil && sc.RunAsNonRoot != nil && *sc.RunAsNonRoot) ||
		(pod != nil && pod.RunAsNonRoot != nil && *pod.RunAsNonRoot)
	if !nonRoot {
		t.Errorf("runAsNonRoot: want true")
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("readOnlyRootFilesystem: want true")
	}
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("allowPrivilegeEscalation: want false")
	}
	r := c.Resources
	if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want CPU and memory requests and a memory limit", r)
	}
}

// Compose and haproxy.

type composeService struct {
	Command         any            `json:"command"`
	Environment     any            `json:"environment"`
	StopGracePeriod string         `json:"stop_grace_period"`
	Volumes         []string       `json:"volumes"`
	Networks        map[string]any `json:"networks"`
}

// env returns the service's environment, written as a map or a list.
func (s composeService) env() map[string]string {
	env := map[string]string{}
	switch e := s.Environment.(type) {
	case map[string]any:
		for k, v := range e {
			if s, ok := v.(string); ok {
				env[k] = s
			}
		}
	case []any:
		for _, kv := range e {
			if s, ok := kv.(string); ok {
				k, v, _ := strings.Cut(s, "=")
				env[k] = v
			}
		}
	}
	return env
}

// words returns the service's command as a list of words.
func (s composeService) words() []string {
	switch c := s.Command.(type) {
	case string:
		return strings.Fields(c)
	case []any:
		var w []string
		for _, x := range c {
			w = append(w, strings.TrimSpace(strings.Trim(strings.TrimSpace(toString(x)), `"`)))
		}
		return w
	}
	return nil
}

func toString(x any) string {
	if s, ok := x.(string); ok {
		return s
	}
	return ""
}

type haproxyServer struct{ name, host, port string }

// haproxyConfig is what the checks need from haproxy.cfg: the servers of
// the backends, the health check's path, and every directive, trimmed.
type haproxyConfig struct {
	servers   []haproxyServer
	checkPath string
	lines     []string
}

func parseHAProxy(t *testing.T, b []byte) haproxyConfig {
	t.Helper()
	var h haproxyConfig
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		h.lines = append(h.lines, strings.Join(strings.Fields(line), " "))
		f := strings.Fields(line)
		switch {
		case f[0] == "server" && len(f) >= 3:
			host, port, err := net.SplitHostPort(f[2])
			if err != nil {
				t.Fatalf("haproxy.cfg: %q: %v", line, err)
			}
			h.servers = append(h.servers, haproxyServer{f[1], host, port})
		case len(f) >= 4 && f[0] == "option" && f[1] == "httpchk":
			h.checkPath = f[3]
		}
	}
	return h
}

func (h haproxyConfig) has(directive string) bool {
	for _, l := range h.lines {
		if l == directive {
			return true
		}
	}
	return false
}

func TestComposeAndHAProxy(t *testing.T) {
	var compose struct {
		Services map[string]composeService `json:"services"`
	}
	if err := yaml.Unmarshal(readFile(t, "compose.yaml"), &compose); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	for _, name := range []string{"haproxy", "postgres", "redis"} {
		if _, ok := compose.Services[name]; !ok {
			t.Errorf("compose.yaml: no service %q", name)
		}
	}
	if w := strings.Join(compose.Services["redis"].words(), " "); !strings.Contains(w, "--appendonly yes") {
		t.Errorf("redis: command %q, want --appendonly yes", w)
	}

	lb := compose.Services["haproxy"]
	mounted := false
	for _, v := range lb.Volumes {
		if strings.HasPrefix(v, "./haproxy.cfg:") {
			mounted = true
		}
	}
	if !mounted {
		t.Errorf("haproxy: ./haproxy.cfg is not mounted (volumes %q)", lb.Volumes)
	}
	var lbAddr netip.Addr
	if n, ok := lb.Networks["default"].(map[string]any); ok {
		lbAddr, _ = netip.ParseAddr(toString(n["ipv4_address"]))
	}

	h := parseHAProxy(t, readFile(t, "haproxy.cfg"))
	for _, d := range []string{"option redispatch", "http-check expect status 200"} {
		if !h.has(d) {
			t.Errorf("haproxy.cfg: no %q", d)
		}
	}
	if len(h.servers) < 2 {
		t.Fatalf("haproxy.cfg: %d servers, want several", len(h.servers))
	}
	for _, s := range h.servers {
		svc, ok := compose.Services[s.host]
		if !ok {
			t.Errorf("haproxy.cfg: server %s names %q, which is not a service of compose.yaml", s.name, s.host)
			continue
		}
		t.Run(s.host, func(t *testing.T) {
			env := svc.env()
			cfg := resolve(t, env)
			if p := strconv.Itoa(int(listenPort(t, cfg))); p != s.port {
				t.Errorf("haproxy sends to port %s; the service listens on %s (PLINTH_ADDR %q)", s.port, p, cfg.Addr)
			}
			if h.checkPath != cfg.ReadinessPath {
				t.Errorf("haproxy checks %q; the readiness probe is %q", h.checkPath, cfg.ReadinessPath)
			}
			if cfg.Upgrade != "off" {
				t.Errorf("PLINTH_UPGRADE %q: want \"off\" (the app is PID 1 in its container)", env["PLINTH_UPGRADE"])
			}
			if cfg.DrainDelay < minDrain {
				t.Errorf("PLINTH_DRAIN_DELAY %v: the instance stops listening before haproxy marks it down; want at least %v", cfg.DrainDelay, minDrain)
			}
			grace := 10 * time.Second // Docker's default
			if svc.StopGracePeriod != "" {
				var err error
				if grace, err = time.ParseDuration(svc.StopGracePeriod); err != nil {
					t.Fatalf("stop_grace_period: %v", err)
				}
			}
			if grace <= stopTime(cfg) {
				t.Errorf("stop_grace_period %v: want more than PLINTH_DRAIN_DELAY %v + PLINTH_SHUTDOWN_TIMEOUT %v", grace, cfg.DrainDelay, cfg.ShutdownTimeout)
			}
			trusted := false
			for _, f := range strings.Split(env["PLINTH_TRUSTED_PROXIES"], ",") {
				if p, err := netip.ParsePrefix(strings.TrimSpace(f)); err == nil && p.Contains(lbAddr) {
					trusted = true
				} else if a, err := netip.ParseAddr(strings.TrimSpace(f)); err == nil && a == lbAddr {
					trusted = true
				}
			}
			if !trusted {
				t.Errorf("PLINTH_TRUSTED_PROXIES %q does not hold haproxy's address %v", env["PLINTH_TRUSTED_PROXIES"], lbAddr)
			}
		})
	}
}

// systemd.

// unitFile is a systemd unit: its settings by section and key, in order.
type unitFile map[string]map[string][]string

func parseUnit(t *testing.T, b []byte) unitFile {
	t.Helper()
	u := unitFile{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("unit: %q is not a setting", line)
			}
			u[section][strings.TrimSpace(k)] = append(u[section][strings.TrimSpace(k)], strings.TrimSpace(v))
		}
	}
	return u
}

// one returns the single value of a setting.
func (u unitFile) one(t *testing.T, section, key string) string {
	t.Helper()
	v := u[section][key]
	if len(v) != 1 {
		t.Fatalf("[%s] %s: %d values, want 1", section, key, len(v))
	}
	return v[0]
}

// parseTimeSpan parses a systemd time span: "45", "45s", "1min 30s".
func parseTimeSpan(s string) (time.Duration, bool) {
	units := map[string]time.Duration{
		"": time.Second, "s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
		"ms": time.Millisecond, "msec": time.Millisecond,
		"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
		"h": time.Hour, "hr": time.Hour, "hour": time.Hour, "hours": time.Hour,
	}
	re := regexp.MustCompile(`^\s*([0-9]+)\s*([a-z]*)`)
	var d time.Duration
	rest := strings.TrimSpace(s)
	if rest == "" {
		return 0, false
	}
	for rest != "" {
		m := re.FindStringSubmatch(rest)
		if m == nil {
			return 0, false
		}
		n, _ := strconv.Atoi(m[1])
		unit, ok := units[m[2]]
		if !ok {
			return 0, false
		}
		d += time.Duration(n) * unit
		rest = strings.TrimSpace(rest[len(m[0]):])
	}
	return d, true
}

// parseEnvFile reads a systemd EnvironmentFile: KEY=VALUE lines, comments.
func parseEnvFile(b []byte) map[string]string {
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok {
			env[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return env
}

func TestSystemdUnit(t *testing.T) {
	const instance = "8081"
	u := parseUnit(t, readFile(t, "systemd/web@.service"))
	spec := func(s string) string { return strings.ReplaceAll(s, "%i", instance) }

	// The environment of web@8081: Environment=, then the EnvironmentFile,
	// whose values win.
	env := map[string]string{}
	for _, line := range u["Service"]["Environment"] {
		for _, kv := range strings.Fields(spec(line)) {
			k, v, _ := strings.Cut(strings.Trim(kv, `"`), "=")
			env[k] = v
		}
	}
	if f := u.one(t, "Service", "EnvironmentFile"); f != "/etc/web/env" {
		t.Fatalf("EnvironmentFile %q: the example of /etc/web/env is docs/deploy/systemd/env", f)
	}
	shared := parseEnvFile(readFile(t, "systemd/env"))
	for _, k := range []string{"PLINTH_ADDR", "PLINTH_PID_FILE"} {
		if _, ok := shared[k]; ok {
			t.Errorf("/etc/web/env sets %s: it would override every instance's own", k)
		}
	}
	for k, v := range shared {
		env[k] = v
	}
	cfg := resolve(t, env)

	stop, ok := parseTimeSpan(u.one(t, "Service", "TimeoutStopSec"))
	if !ok {
		t.Fatalf("TimeoutStopSec %q: not a time span", u.one(t, "Service", "TimeoutStopSec"))
	}
	if stop <= stopTime(cfg) {
		t.Errorf("TimeoutStopSec %v: want more than PLINTH_DRAIN_DELAY %v + PLINTH_SHUTDOWN_TIMEOUT %v", stop, cfg.DrainDelay, cfg.ShutdownTimeout)
	}
	if cfg.DrainDelay < minDrain {
		t.Errorf("PLINTH_DRAIN_DELAY %v: an instance stops listening before the load balancer marks it down; want at least %v", cfg.DrainDelay, minDrain)
	}
	if p := strconv.Itoa(int(listenPort(t, cfg))); p != instance {
		t.Errorf("web@%s listens on %q, want port %s (the instance name)", instance, cfg.Addr, instance)
	}
	pidFile := spec(u.one(t, "Service", "PIDFile"))
	if pidFile == "" || pidFile != cfg.PIDFile {
		t.Errorf("PIDFile %q, PLINTH_PID_FILE %q: want the same file, or systemd loses the upgraded process", pidFile, cfg.PIDFile)
	}
	if dir := "/run/" + spec(u.one(t, "Service", "RuntimeDirectory")) + "/"; !strings.HasPrefix(pidFile, dir) {
		t.Errorf("PIDFile %q is not in the instance's RuntimeDirectory %s", pidFile, dir)
	}
	if r := u.one(t, "Service", "ExecReload"); !strings.Contains(r, "kill -HUP $MAINPID") {
		t.Errorf("ExecReload %q: want kill -HUP $MAINPID (the in-place upgrade)", r)
	}
	if cfg.Upgrade == "off" {
		t.Errorf("PLINTH_UPGRADE=off: systemctl reload would do nothing")
	}
	if r := u.one(t, "Service", "Restart"); r != "on-failure" {
		t.Errorf("Restart=%s, want on-failure", r)
	}

	// The rolling upgrade reads the PID file where the unit puts it.
	script := string(readFile(t, "systemd/rolling-upgrade.sh"))
	if want := strings.ReplaceAll(u.one(t, "Service", "PIDFile"), "%i", "$port"); !strings.Contains(script, want) {
		t.Errorf("rolling-upgrade.sh does not read the PID file at %s", want)
	}
	if sh, err := exec.LookPath("sh"); err == nil {
		if out, err := exec.Command(sh, "-n", filepath.Join(deployDir, "systemd/rolling-upgrade.sh")).CombinedOutput(); err != nil {
			t.Errorf("sh -n rolling-upgrade.sh: %v\n%s", err, out)
		}
	}
}
