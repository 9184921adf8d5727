#!/usr/bin/env bash
# Builds the release binary, packs the archive krew installs
# (target/dist/ownerscope-vVERSION-OS-ARCH.tar.gz: the binary and the README), and
# writes plugins/ownerscope.yaml for it: the version from Cargo.toml, the
# archive's URL under $OWNERSCOPE_RELEASE_URL and its sha256.
#
#   OWNERSCOPE_RELEASE_URL=https://example.org/releases/download plugins/package.sh
#   kubectl krew install --manifest=plugins/ownerscope.yaml \
#       --archive=target/dist/ownerscope-v0.1.0-linux-amd64.tar.gz
set -euo pipefail
cd "$(dirname "$0")/.."

base="${OWNERSCOPE_RELEASE_URL:-https://github.com/ownerscope/ownerscope/releases/download}"
version="v$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)"
case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) echo "unsupported OS" >&2; exit 1 ;; esac
case "$(uname -m)" in x86_64 | amd64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) echo "unsupported arch" >&2; exit 1 ;; esac

cargo build --release --locked
name="ownerscope-$version-$os-$arch.tar.gz"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp target/release/ownerscope README.md "$stage/"
mkdir -p target/dist
# A reproducible archive: fixed order, owner and times.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='1970-01-01' \
    -C "$stage" -czf "target/dist/$name" ownerscope README.md
sha="$(sha256sum "target/dist/$name" | cut -d' ' -f1)"

cat >plugins/ownerscope.yaml <<YAML
# Written by plugins/package.sh: the archive of this version for one
# platform, its URL and its sha256. Install from a local archive with
#   kubectl krew install --manifest=plugins/ownerscope.yaml --archive=target/dist/$name
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: ownerscope
spec:
  version: $version
  homepage: ${base%/releases/download}
  shortDescription: Ownership trees and stuck deletions
  description: |
    Shows the owner/dependent trees that metadata.ownerReferences build,
    explains why an object is still there (a finalizer and whether its
    controller runs, a node that does not report, dependents a foreground
    deletion waits on, an API that is down), and previews what a delete
    would remove, orphan or leave waiting, before it is sent. Also a
    terminal UI that watches the cluster, and an offline simulator.
  caveats: |
    It reads the cluster of your kubeconfig's context, as kubectl does:
      kubectl ownerscope stuck -A
      kubectl ownerscope why deployment/web -n shop
      kubectl ownerscope tree -n shop
      kubectl ownerscope              # the terminal UI
    The headless commands only read; the UI asks before any change.
  platforms:
  - selector:
      matchLabels:
        os: $os
        arch: $arch
    uri: $base/$version/$name
    sha256: $sha
    bin: ownerscope
YAML
echo "target/dist/$name $sha"
