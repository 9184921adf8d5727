#!/usr/bin/env bash
# A real Kubernetes control plane on loopback for ownerscope's live tests:
# kube-apiserver + kube-controller-manager built once from Debian's
# `kubernetes` source package (cached outside the repository, keyed by
# version) and Debian's etcd. No scheduler, no kubelet: pods stay Pending.
#
#   test-cluster.sh start     build (or reuse) and start; idempotent
#   test-cluster.sh stop      stop everything `start` started, wipe state
#   test-cluster.sh status    exit 0 if the API server answers
#   test-cluster.sh env       print the kubeconfig paths (shell syntax)
#   test-cluster.sh apiserver-stop | apiserver-start
#                             stop / restart the API server (same port); start
#                             also restarts the controller manager
#   test-cluster.sh etcdctl ARGS...   etcdctl against the cluster's etcd
#
# Environment: OWNERSCOPE_CLUSTER_DIR (state, default
# /tmp/ownerscope-test-cluster), OWNERSCOPE_K8S_CACHE (build cache, default
# /var/cache/ownerscope-k8s).
set -euo pipefail

K8S_VERSION=1.20.2
CACHE_ROOT=${OWNERSCOPE_K8S_CACHE:-/var/cache/ownerscope-k8s}
CACHE=$CACHE_ROOT/$K8S_VERSION
STATE=${OWNERSCOPE_CLUSTER_DIR:-/tmp/ownerscope-test-cluster}
ADMIN_TOKEN=ownerscope-admin-token
RESTRICTED_TOKEN=ownerscope-restricted-token

log() { echo "test-cluster: $*" >&2; }
die() { log "error: $*"; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=0
apt_install() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ $apt_updated -eq 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  log "installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
}

ensure_deb_src() {
  if grep -rqsE '^(deb-src .*bookworm.* main|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    return 0
  fi
  log "adding a deb-src entry for bookworm main"
  as_root tee /etc/apt/sources.list.d/ownerscope-deb-src.sources >/dev/null <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  apt_updated=0
}

# --- build -----------------------------------------------------------------

build() {
  if [ -x "$CACHE/kube-apiserver" ] && [ -x "$CACHE/kube-controller-manager" ]; then
    return 0
  fi
  apt_install golang-go make rsync dpkg-dev golang-github-modern-go-reflect2-dev
  ensure_deb_src
  if [ $apt_updated -eq 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  local work=$CACHE_ROOT/build-$K8S_VERSION
  as_root mkdir -p "$CACHE_ROOT"
  rm -rf "$work"
  mkdir -p "$work"
  local start=$SECONDS
  log "fetching the kubernetes source package into $work"
  (cd "$work" && apt-get source -qq kubernetes >&2)
  local src
  src=$(find "$work" -maxdepth 1 -mindepth 1 -type d -name 'kubernetes-*' | head -n1)
  [ -n "$src" ] || die "apt-get source kubernetes produced no source tree in $work"
  head -n1 "$src/debian/changelog" | grep -qF "$K8S_VERSION" ||
    die "the source package is not Kubernetes $K8S_VERSION (see $src/debian/changelog)"

  # Vendored reflect2 1.0.1 faults at run time with Go >= 1.18; Debian's 1.0.2
  # has the same API.
  local r2=/usr/share/gocode/src/github.com/modern-go/reflect2
  [ -d "$r2" ] || die "$r2 missing (golang-github-modern-go-reflect2-dev)"
  rm -f "$src"/vendor/github.com/modern-go/reflect2/*.go
  cp "$r2"/*.go "$src/vendor/github.com/modern-go/reflect2/"

  local gopath=$work/gopath
  mkdir -p "$gopath/src/k8s.io"
  ln -sfn "$src" "$gopath/src/k8s.io/kubernetes"
  cat >"$work/version" <<EOF
KUBE_GIT_VERSION='v$K8S_VERSION'
KUBE_GIT_MAJOR='1'
KUBE_GIT_MINOR='20'
KUBE_GIT_TREE_STATE='clean'
KUBE_GIT_COMMIT='debian'
EOF
  log "building kube-apiserver and kube-controller-manager (several minutes, once)"
  (
    cd "$gopath/src/k8s.io/kubernetes"
    export GOPATH=$gopath GO111MODULE=off GOFLAGS= GOCACHE=$work/gocache
    export KUBE_GIT_VERSION_FILE=$work/version
    make WHAT="cmd/kube-apiserver cmd/kube-controller-manager" >&2
  )
  local out
  out=$(find "$src/_output" -type f -name kube-apiserver -path '*bin*' | head -n1)
  [ -n "$out" ] || die "build finished without a kube-apiserver binary"
  mkdir -p "$CACHE"
  cp "$(dirname "$out")/kube-apiserver" "$(dirname "$out")/kube-controller-manager" "$CACHE/"
  rm -rf "$work"
  log "built in $((SECONDS - start)) s, cached in $CACHE"
}

# --- run -------------------------------------------------------------------

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_port() {
  local p
  for _ in $(seq 200); do
    p=$((20000 + RANDOM % 20000))
    if port_free "$p" && ! grep -qsx "$p" "$STATE/ports.used"; then
      echo "$p" >>"$STATE/ports.used"
      echo "$p"
      return 0
    fi
  done
  die "no free port found"
}

alive() { [ -f "$STATE/$1.pid" ] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null; }

healthy() {
  [ -f "$STATE/ports" ] || return 1
  # shellcheck disable=SC1091
  . "$STATE/ports"
  curl -fsS --max-time 2 --cacert "$STATE/ca.crt" -H "Authorization: Bearer $ADMIN_TOKEN" \
    "https://127.0.0.1:$APISERVER_PORT/readyz" >/dev/null 2>&1
}

wait_until() {
  local what=$1 secs=$2
  shift 2
  for _ in $(seq $((secs * 5))); do
    if "$@"; then return 0; fi
    sleep 0.2
  done
  die "$what did not come up in ${secs}s; logs in $STATE/*.log"
}

make_certs() {
  (
    cd "$STATE"
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=ownerscope-test-ca" \
      -keyout ca.key -out ca.crt -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
      -keyout apiserver.key -out apiserver.csr 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n' >apiserver.ext
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 \
      -extfile apiserver.ext -out apiserver.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  )
}

write_kubeconfig() { # file user token namespace
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: ownerscope-test
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $(base64 -w0 "$STATE/ca.crt")
users:
- name: $2
  user:
    token: $3
contexts:
- name: $2@ownerscope-test
  context:
    cluster: ownerscope-test
    user: $2
    namespace: $4
current-context: $2@ownerscope-test
EOF
}

start_apiserver() {
  # shellcheck disable=SC1091
  . "$STATE/ports"
  setsid nohup "$CACHE/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
    --secure-port="$APISERVER_PORT" \
    --tls-cert-file="$STATE/apiserver.crt" --tls-private-key-file="$STATE/apiserver.key" \
    --client-ca-file="$STATE/ca.crt" \
    --token-auth-file="$STATE/tokens.csv" \
    --authorization-mode=RBAC \
    --service-account-key-file="$STATE/sa.pub" \
    --service-account-signing-key-file="$STATE/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-cluster-ip-range=10.96.0.0/24 \
    --disable-admission-plugins=ServiceAccount \
    --allow-privileged=true \
    >>"$STATE/apiserver.log" 2>&1 9>&- &
  echo $! >"$STATE/apiserver.pid"
  wait_until kube-apiserver 90 apiserver_up
}

# Healthy, or fail at once (with the log's end) when the process died, e.g.
# because its port was taken meanwhile.
apiserver_up() {
  if ! alive apiserver; then
    tail -n 5 "$STATE/apiserver.log" >&2
    die "kube-apiserver exited"
  fi
  healthy
}

# Each server runs in a session of its own (setsid): a test that restarts
# one (controller-manager-restart, apiserver-start) is not its parent for
# good, and a kill of that test's process group leaves the server running.
start_controller_manager() {
  # One client serves every controller; at the default 20 requests/s the
  # namespace controller's cleanup of the tests' namespaces starves the
  # garbage collector for minutes.
  setsid nohup "$CACHE/kube-controller-manager" \
    --kubeconfig="$STATE/admin.kubeconfig" \
    --controllers='*' --leader-elect=false \
    --kube-api-qps=200 --kube-api-burst=400 \
    --port=0 --secure-port=0 \
    --root-ca-file="$STATE/ca.crt" \
    --service-account-private-key-file="$STATE/sa.key" \
    "$@" \
    >>"$STATE/controller-manager.log" 2>&1 9>&- &
  echo $! >"$STATE/controller-manager.pid"
  sleep 1
  alive controller-manager || die "kube-controller-manager exited; see $STATE/controller-manager.log"
}

start() {
  mkdir -p "$STATE"
  if alive etcd && alive apiserver && alive controller-manager && healthy; then
    log "already running"
    return 0
  fi
  stop_all quiet
  apt_install etcd-server etcd-client openssl curl ca-certificates
  build
  mkdir -p "$STATE"
  : >"$STATE/ports.used"
  local etcd_port etcd_peer api_port
  etcd_port=$(free_port)
  etcd_peer=$(free_port)
  api_port=$(free_port)
  printf 'ETCD_PORT=%s\nETCD_PEER_PORT=%s\nAPISERVER_PORT=%s\n' "$etcd_port" "$etcd_peer" "$api_port" >"$STATE/ports"
  make_certs
  printf '%s,admin,admin-uid,system:masters\n%s,restricted,restricted-uid,ownerscope-restricted\n' \
    "$ADMIN_TOKEN" "$RESTRICTED_TOKEN" >"$STATE/tokens.csv"

  local etcd_bin
  etcd_bin=$(command -v etcd || echo /usr/bin/etcd)
  setsid nohup "$etcd_bin" --name ownerscope-test --data-dir "$STATE/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" \
    --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "ownerscope-test=http://127.0.0.1:$etcd_peer" \
    >>"$STATE/etcd.log" 2>&1 9>&- &
  echo $! >"$STATE/etcd.pid"
  wait_until etcd 30 curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$etcd_port/health"

  APISERVER_PORT=$api_port
  write_kubeconfig "$STATE/admin.kubeconfig" admin "$ADMIN_TOKEN" default
  write_kubeconfig "$STATE/restricted.kubeconfig" restricted "$RESTRICTED_TOKEN" default
  start_apiserver

  start_controller_manager
  log "running: API server https://127.0.0.1:$api_port"
}

kill_one() {
  local name=$1 pid
  [ -f "$STATE/$name.pid" ] || return 0
  pid=$(cat "$STATE/$name.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$STATE/$name.pid"
}

stop_all() {
  kill_one controller-manager
  kill_one apiserver
  kill_one etcd
  if [ "${1:-}" != quiet ]; then log "stopped"; fi
  rm -rf "$STATE"
}

print_env() {
  [ -f "$STATE/admin.kubeconfig" ] || die "not started (run: $0 start)"
  # shellcheck disable=SC1091
  . "$STATE/ports"
  echo "OWNERSCOPE_TEST_KUBECONFIG=$STATE/admin.kubeconfig"
  echo "OWNERSCOPE_TEST_RESTRICTED_KUBECONFIG=$STATE/restricted.kubeconfig"
  echo "OWNERSCOPE_TEST_SERVER=https://127.0.0.1:$APISERVER_PORT"
  # For benchmarks that load objects straight into etcd (bench --live-etcd).
  echo "OWNERSCOPE_TEST_ETCD=http://127.0.0.1:$ETCD_PORT"
}

# start and stop are serialised (CI may start the cluster in the background
# while the tests start it too: the second caller waits and reuses it). The
# daemons are started with fd 9 closed so they do not hold the lock.
lock() {
  exec 9>"${STATE%/}.lock"
  flock 9
}

case "${1:-}" in
  start) lock; start; print_env ;;
  stop) lock; stop_all ;;
  status) healthy && alive controller-manager ;;
  env) print_env ;;
  build) build ;;
  apiserver-stop) kill_one apiserver ;;
  # The controller manager is restarted with the API server so that its
  # informers (the garbage collector's graph among them) start clean rather
  # than mid-backoff: later tests then see the GC as on a fresh cluster.
  apiserver-start)
    alive apiserver || start_apiserver
    kill_one controller-manager
    start_controller_manager
    ;;
  # With flags of a test's own (`--terminated-pod-gc-threshold=N`), or with
  # none to go back to the usual ones.
  controller-manager-restart)
    shift
    kill_one controller-manager
    start_controller_manager "$@"
    ;;
  etcdctl)
    shift
    # shellcheck disable=SC1091
    . "$STATE/ports"
    ETCDCTL_API=3 etcdctl --endpoints "http://127.0.0.1:$ETCD_PORT" "$@"
    ;;
  *) echo "usage: $0 start|stop|status|env|build|apiserver-stop|apiserver-start|controller-manager-restart [FLAGS]|etcdctl ARGS" >&2; exit 2 ;;
esac
