package deploy_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ragchat/ragchat/internal/config"
)

// object is one Kubernetes manifest, with the fields the tests read.
type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string
	Metadata   struct {
		Name   string
		Labels map[string]string
	}
	Data       map[string]string
	StringData map[string]string `yaml:"stringData"`
	Spec       struct {
		Replicas int
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		}
		// Service
		ServiceSelector map[string]string
		Ports           []struct {
			Name       string
			Port       int
			TargetPort any `yaml:"targetPort"`
		}
		// PodDisruptionBudget
		MaxUnavailable any `yaml:"maxUnavailable"`
		// HorizontalPodAutoscaler
		ScaleTargetRef struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string
			Name       string
		} `yaml:"scaleTargetRef"`
		MinReplicas int `yaml:"minReplicas"`
		MaxReplicas int `yaml:"maxReplicas"`
		Template    struct {
			Metadata struct{ Labels map[string]string }
			Spec     podSpec
		}
	}
	raw map[string]any
}

type podSpec struct {
	TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
	SecurityContext               struct {
		RunAsNonRoot bool `yaml:"runAsNonRoot"`
		RunAsUser    int  `yaml:"runAsUser"`
	} `yaml:"securityContext"`
	Containers []struct {
		Name  string
		Image string
		Ports []struct {
			Name          string
			ContainerPort int `yaml:"containerPort"`
		}
		EnvFrom []struct {
			ConfigMapRef *struct{ Name string } `yaml:"configMapRef"`
			SecretRef    *struct{ Name string } `yaml:"secretRef"`
		} `yaml:"envFrom"`
		Env []struct {
			Name      string
			Value     string
			ValueFrom map[string]any `yaml:"valueFrom"`
		}
		ReadinessProbe *probe `yaml:"readinessProbe"`
		LivenessProbe  *probe `yaml:"livenessProbe"`
		StartupProbe   *probe `yaml:"startupProbe"`
		Lifecycle      struct {
			PreStop struct {
				Sleep *struct{ Seconds int }
				Exec  *struct{ Command []string }
			} `yaml:"preStop"`
		}
		VolumeMounts []struct {
			Name      string
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
}

type probe struct {
	HTTPGet struct {
		Path string
		Port any
	} `yaml:"httpGet"`
}

// loadManifests parses every document of every YAML file in
// deploy/kubernetes/ and returns them by kind.
func loadManifests(t *testing.T) map[string][]object {
	t.Helper()
	files, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes: %v", err)
	}
	byKind := map[string][]object{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(false)
		for {
			var node yaml.Node
			if err := dec.Decode(&node); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var o object
			if err := node.Decode(&o); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if err := node.Decode(&o.raw); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			// A Service's selector is a plain map, not matchLabels.
			if o.Kind == "Service" {
				if spec, ok := o.raw["spec"].(map[string]any); ok {
					o.Spec.ServiceSelector = stringMap(spec["selector"])
				}
			}
			if o.Kind == "Kustomization" {
				kustomized(t, f, files, o.raw)
				continue
			}
			if o.Kind == "" || o.APIVersion == "" || o.Metadata.Name == "" {
				t.Fatalf("%s: a document without kind, apiVersion or metadata.name", f)
			}
			byKind[o.Kind] = append(byKind[o.Kind], o)
		}
	}
	return byKind
}

// kustomized fails unless the kustomization at path lists every other
// manifest, so that `kubectl apply -k` applies them all.
func kustomized(t *testing.T, path string, files []string, raw map[string]any) {
	t.Helper()
	listed := map[string]bool{}
	resources, _ := raw["resources"].([]any)
	for _, r := range resources {
		s, _ := r.(string)
		listed[s] = true
	}
	for _, f := range files {
		if f != path && !listed[filepath.Base(f)] {
			t.Errorf("%s does not list %s", path, filepath.Base(f))
		}
	}
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := map[string]string{}
	for k, x := range m {
		s, _ := x.(string)
		out[k] = s
	}
	return out
}

// matches reports whether selector selects labels.
func matches(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func one(t *testing.T, byKind map[string][]object, kind string) object {
	t.Helper()
	if len(byKind[kind]) != 1 {
		t.Fatalf("want one %s in deploy/kubernetes, found %d", kind, len(byKind[kind]))
	}
	return byKind[kind][0]
}

func TestKubernetesManifests(t *testing.T) {
	byKind := loadManifests(t)
	var kinds []string
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	t.Logf("kinds: %v", kinds)
	dep := one(t, byKind, "Deployment")
	svc := one(t, byKind, "Service")
	pdb := one(t, byKind, "PodDisruptionBudget")
	hpa := one(t, byKind, "HorizontalPodAutoscaler")
	cm := one(t, byKind, "ConfigMap")
	secret := one(t, byKind, "Secret")
	pod := dep.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("the Deployment has %d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]

	// The environment the container gets, as the server reads it.
	env := map[string]string{}
	for _, from := range c.EnvFrom {
		switch {
		case from.ConfigMapRef != nil && from.ConfigMapRef.Name == cm.Metadata.Name:
			for k, v := range cm.Data {
				env[k] = v
			}
		case from.SecretRef != nil && from.SecretRef.Name == secret.Metadata.Name:
			for k, v := range secret.StringData {
				env[k] = v
			}
		default:
			t.Errorf("envFrom %+v names neither the ConfigMap %q nor the Secret %q", from, cm.Metadata.Name, secret.Metadata.Name)
		}
	}
	for _, e := range c.Env {
		env[e.Name] = e.Value
		if e.ValueFrom != nil {
			env[e.Name] = "pod-name"
		}
	}
	cfg, err := config.LoadFrom(mapLookup(env))
	if err != nil {
		t.Fatalf("the server refuses the manifests' environment: %v", err)
	}

	t.Run("environment", func(t *testing.T) {
		if cfg.IsDevelopment() || cfg.Database.URL == "" || !cfg.Broker.CrossReplica() || cfg.InstanceID == "" {
			t.Errorf("env %q database %q broker %q instance %q: want production, PostgreSQL, a cross-replica broker and the pod name",
				cfg.Env, cfg.Database.URL, cfg.Broker.Kind, cfg.InstanceID)
		}
		documented(t, "deploy/kubernetes", env)
		for k := range secret.StringData {
			if _, inCM := cm.Data[k]; inCM {
				t.Errorf("%s is both in the ConfigMap and the Secret", k)
			}
		}
		if _, ok := cm.Data["DATABASE_URL"]; ok {
			t.Error("DATABASE_URL (with its password) belongs in the Secret")
		}
	})

	t.Run("probes", func(t *testing.T) {
		if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 8080 {
			t.Fatalf("container ports %+v, want 8080 (the image's)", c.Ports)
		}
		if _, port, _ := splitHostPort(cfg.Addr); port != "8080" {
			t.Errorf("RAGCHAT_ADDR %q does not listen on the container port", cfg.Addr)
		}
		for _, p := range []struct {
			name  string
			probe *probe
			path  string
		}{{"readiness", c.ReadinessProbe, "/readyz"}, {"liveness", c.LivenessProbe, "/healthz"}} {
			if p.probe == nil {
				t.Errorf("no %s probe", p.name)
				continue
			}
			if p.probe.HTTPGet.Path != p.path {
				t.Errorf("%s probe path %q, want %s", p.name, p.probe.HTTPGet.Path, p.path)
			}
			if port := p.probe.HTTPGet.Port; port != c.Ports[0].Name && port != c.Ports[0].ContainerPort {
				t.Errorf("%s probe port %v is not the container port %+v", p.name, port, c.Ports[0])
			}
		}
	})

	t.Run("graceful shutdown fits in the grace period", func(t *testing.T) {
		pre := c.Lifecycle.PreStop
		if pre.Sleep == nil || pre.Sleep.Seconds <= 0 {
			t.Fatalf("no preStop sleep (the endpoints must drop the pod before SIGTERM): %+v", pre)
		}
		grace := time.Duration(pod.TerminationGracePeriodSeconds) * time.Second
		need := time.Duration(pre.Sleep.Seconds)*time.Second + cfg.HTTP.ShutdownTimeout
		if grace <= need {
			t.Errorf("terminationGracePeriodSeconds %s <= preStop %ds + RAGCHAT_SHUTDOWN_TIMEOUT %s: the kubelet would kill a draining replica",
				grace, pre.Sleep.Seconds, cfg.HTTP.ShutdownTimeout)
		}
	})

	t.Run("non-root with the data volume", func(t *testing.T) {
		if !pod.SecurityContext.RunAsNonRoot || pod.SecurityContext.RunAsUser != 65532 {
			t.Errorf("pod securityContext %+v, want runAsNonRoot with the image's uid 65532", pod.SecurityContext)
		}
		mounted := false
		for _, m := range c.VolumeMounts {
			mounted = mounted || m.MountPath == cfg.DataDir
		}
		if !mounted {
			t.Errorf("RAGCHAT_DATA_DIR %q is not mounted (the root filesystem is read-only)", cfg.DataDir)
		}
	})

	t.Run("selectors", func(t *testing.T) {
		labels := dep.Spec.Template.Metadata.Labels
		if !matches(dep.Spec.Selector.MatchLabels, labels) {
			t.Errorf("the Deployment's selector %v does not match its pods %v", dep.Spec.Selector.MatchLabels, labels)
		}
		if !matches(pdb.Spec.Selector.MatchLabels, labels) {
			t.Errorf("the PodDisruptionBudget's selector %v does not match the pods %v", pdb.Spec.Selector.MatchLabels, labels)
		}
		if pdb.Spec.MaxUnavailable == nil {
			t.Error("the PodDisruptionBudget sets no maxUnavailable")
		}
		if !matches(svc.Spec.ServiceSelector, labels) {
			t.Errorf("the Service's selector %v does not match the pods %v", svc.Spec.ServiceSelector, labels)
		}
		if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != c.Ports[0].Name {
			t.Errorf("the Service's ports %+v do not target the container port %q", svc.Spec.Ports, c.Ports[0].Name)
		}
	})

	t.Run("the autoscaler targets the Deployment", func(t *testing.T) {
		ref := hpa.Spec.ScaleTargetRef
		if ref.Kind != "Deployment" || ref.Name != dep.Metadata.Name || ref.APIVersion != dep.APIVersion {
			t.Errorf("scaleTargetRef %+v, want %s Deployment %s", ref, dep.APIVersion, dep.Metadata.Name)
		}
		if hpa.Spec.MinReplicas < 2 || hpa.Spec.MaxReplicas < hpa.Spec.MinReplicas {
			t.Errorf("replicas %d..%d: keep at least 2 so that a drain has somewhere to go", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
		}
		if dep.Spec.Replicas < hpa.Spec.MinReplicas {
			t.Errorf("the Deployment's %d replicas are below the autoscaler's minimum %d", dep.Spec.Replicas, hpa.Spec.MinReplicas)
		}
	})
}
