//! The live suite (`tests/live_suite`) against a real control plane on
//! loopback: kube-apiserver and kube-controller-manager 1.20 with etcd,
//! started once for this binary by `.ci/test-cluster.sh`.

mod live_suite;
mod live_support;

const TARGET: live_support::Target = live_support::Target::Cluster;
