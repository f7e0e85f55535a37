// Package deploy holds no code: it is the home of the deployment files
// (compose.yaml, nginx.conf, kubernetes/), and its tests check them: that
// they parse, that compose and Kubernetes configure the server the way
// internal/config reads it, and that probes, grace periods, selectors and
// the proxy's WebSocket upgrade agree with the server (docs/DEPLOYMENT.md).
package deploy
