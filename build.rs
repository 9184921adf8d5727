//! What `ownerscope --version` says beyond the crate's version: the commit
//! it was built from and the Kubernetes API version its client speaks.
//!
//! The commit is `git rev-parse --short HEAD` when the sources are a git
//! checkout and git is installed, else `$OWNERSCOPE_COMMIT` (for a build
//! from an archive), else `unknown`: a build never fails for want of git.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo::rerun-if-env-changed=OWNERSCOPE_COMMIT");
    let commit = git(&dir, &["rev-parse", "--short=12", "HEAD"])
        .or_else(|| std::env::var("OWNERSCOPE_COMMIT").ok())
        .filter(|c| {
            c.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        })
        .unwrap_or_else(|| "unknown".to_string());
    // Built again when HEAD moves: HEAD itself, the branch it names, and
    // packed refs (only files that exist: a missing one would rerun this
    // on every build).
    if let Some(git_dir) = git(&dir, &["rev-parse", "--absolute-git-dir"]) {
        let git_dir = PathBuf::from(git_dir);
        let mut watch = vec![git_dir.join("HEAD"), git_dir.join("packed-refs")];
        if let Some(branch) = git(&dir, &["symbolic-ref", "-q", "HEAD"]) {
            watch.push(git_dir.join(branch));
        }
        for p in watch.into_iter().filter(|p| p.exists()) {
            println!("cargo::rerun-if-changed={}", p.display());
        }
    }
    println!("cargo::rustc-env=OWNERSCOPE_COMMIT={commit}");

    // k8s-openapi (`links = "k8s-openapi-X"`) tells its dependents the
    // API version its feature chose, as 0x00_01_MM_00 for 1.MM.
    let api = std::env::vars()
        .find(|(k, _)| k.starts_with("DEP_K8S_OPENAPI") && k.ends_with("_VERSION"))
        .and_then(|(_, v)| v.parse::<u32>().ok())
        .map_or_else(
            || "unknown".to_string(),
            |v| format!("{}.{}", (v >> 16) & 0xff, (v >> 8) & 0xff),
        );
    println!("cargo::rustc-env=OWNERSCOPE_K8S_API={api}");
}
