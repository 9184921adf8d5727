#!/usr/bin/env bash
# Regenerates assets/openapi/kubernetes-1.20.json, the schemas `ownerscope
# serve` answers /openapi/v3 (and /openapi/v2) with, from the test control
# plane's kube-apiserver (1.20.2):
#
#   bash .ci/test-cluster.sh start
#   bash .ci/openapi-asset.sh            # writes the asset
#   bash .ci/openapi-asset.sh FILE       # trims FILE (an /openapi/v2 JSON)
#
# Kept: `info` and the definitions reachable from those of the kinds serve
# serves (KindTable::builtin(), in any version 1.20 has, and the access
# reviews), descriptions and x-kubernetes-* extensions included. Dropped:
# the paths, security and every other definition. Minified.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=assets/openapi/kubernetes-1.20.json
# group/kind of KindTable::builtin() (src/model/kinds.rs) and the access
# reviews of serve's authorization.k8s.io/v1; a unit test in
# src/serve/openapi.rs fails when the table gains a kind 1.20 has and the
# asset lacks.
KINDS='[
 ["","Pod"],["","ConfigMap"],["","Secret"],["","Service"],["","ServiceAccount"],
 ["","Endpoints"],["","PersistentVolumeClaim"],["","PersistentVolume"],
 ["","ReplicationController"],["","Namespace"],["","Node"],["","Event"],
 ["","LimitRange"],["","ResourceQuota"],["","PodTemplate"],
 ["apps","Deployment"],["apps","ReplicaSet"],["apps","DaemonSet"],
 ["apps","StatefulSet"],["apps","ControllerRevision"],
 ["batch","Job"],["batch","CronJob"],
 ["discovery.k8s.io","EndpointSlice"],
 ["networking.k8s.io","Ingress"],["networking.k8s.io","NetworkPolicy"],
 ["networking.k8s.io","IngressClass"],["networking.k8s.io","ServiceCIDR"],
 ["policy","PodDisruptionBudget"],["autoscaling","HorizontalPodAutoscaler"],
 ["rbac.authorization.k8s.io","Role"],["rbac.authorization.k8s.io","RoleBinding"],
 ["rbac.authorization.k8s.io","ClusterRole"],
 ["rbac.authorization.k8s.io","ClusterRoleBinding"],
 ["storage.k8s.io","StorageClass"],["storage.k8s.io","VolumeAttachment"],
 ["storage.k8s.io","CSIDriver"],["storage.k8s.io","CSINode"],
 ["coordination.k8s.io","Lease"],["events.k8s.io","Event"],
 ["apiextensions.k8s.io","CustomResourceDefinition"],
 ["admissionregistration.k8s.io","ValidatingWebhookConfiguration"],
 ["admissionregistration.k8s.io","MutatingWebhookConfiguration"],
 ["scheduling.k8s.io","PriorityClass"],["resource.k8s.io","ResourceClaim"],
 ["snapshot.storage.k8s.io","VolumeSnapshot"],
 ["snapshot.storage.k8s.io","VolumeSnapshotContent"],
 ["authorization.k8s.io","LocalSubjectAccessReview"],
 ["authorization.k8s.io","SelfSubjectAccessReview"],
 ["authorization.k8s.io","SelfSubjectRulesReview"],
 ["authorization.k8s.io","SubjectAccessReview"]
]'

if [ $# -ge 1 ]; then
  SRC=$1
else
  eval "$(bash .ci/test-cluster.sh env | sed 's/^/export /')"
  SRC=$(mktemp)
  trap 'rm -f "$SRC"' EXIT
  kubectl --kubeconfig "$OWNERSCOPE_TEST_KUBECONFIG" get --raw /openapi/v2 >"$SRC"
fi

jq -c --argjson kinds "$KINDS" '
  def refs: [.. | objects | .["$ref"]? | strings | ltrimstr("#/definitions/")];
  def close($d): . as $s
    | ($s + [$s[] | $d[.] | refs[]] | unique) as $n
    | if ($n | length) == ($s | length) then $s else $n | close($d) end;
  . as $doc | .definitions as $d
  | [$d | to_entries[]
      | select(any(.value["x-kubernetes-group-version-kind"][]?;
          [.group, .kind] as $gk | $kinds | index([$gk]) != null))
      | .key]
  | unique | close($d) as $keep
  | {info: $doc.info, definitions: ($d | with_entries(select(.key as $k | $keep | index($k) != null)))}
' "$SRC" >"$OUT"

echo "$OUT: $(jq '.definitions | length' "$OUT") definitions, $(wc -c <"$OUT") bytes" >&2
