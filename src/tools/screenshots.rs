//! `ownerscope screenshots [DIR]`: drives the real App and rendering
//! through the demo story (tree, delete preview, cascade, stuck finalizer,
//! controller back online, help) and writes each screen as SVG.

use std::path::Path;
use std::time::Duration;

use super::session::Session;
use super::svg;

/// One step of the story: keys, then time passing, then a picture.
struct Shot {
    file: &'static str,
    title: &'static str,
    keys: &'static str,
    wait_ms: u64,
}

const STORY: &[Shot] = &[
    Shot {
        file: "01-tree.svg",
        title: "The demo's ownership tree",
        keys: "/deployment/web<Enter>",
        wait_ms: 600,
    },
    Shot {
        file: "02-delete-preview.svg",
        title: "Delete Deployment/web in foreground: the preview",
        keys: "<C-d>f<Read>",
        wait_ms: 0,
    },
    Shot {
        file: "03-cascade.svg",
        title: "The cascade, mid-way: deleted rows linger for a moment",
        keys: "<Enter>",
        wait_ms: 2600,
    },
    Shot {
        file: "04-stuck-deployment.svg",
        title: "Why is Deployment/web still here? Its blocker chain",
        keys: "",
        wait_ms: 6000,
    },
    Shot {
        file: "05-stuck-configmap.svg",
        title: "The ConfigMap's finalizer has no controller running",
        keys: "j",
        wait_ms: 0,
    },
    Shot {
        file: "06-controllers.svg",
        title: "Bring the finalizer's controller online",
        keys: "c<Read>",
        wait_ms: 0,
    },
    Shot {
        file: "07-resolved.svg",
        title: "The finalizer is removed and the Deployment goes",
        keys: "<Enter><Esc>",
        wait_ms: 2400,
    },
    Shot {
        file: "08-help.svg",
        title: "Help, generated from the keymap",
        keys: "?",
        wait_ms: 0,
    },
];

/// Writes the screenshots into `dir`; returns the files written.
///
/// # Errors
/// The directory cannot be written, or the demo does not load.
pub fn write_all(dir: &Path) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut written = Vec::new();
    let mut save = |s: &mut Session, file: &str, title: &str| -> Result<(), String> {
        let buf = s.draw();
        let path = dir.join(file);
        std::fs::write(&path, svg::render(&buf, title))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path.display().to_string());
        Ok(())
    };
    let mut s = Session::new(crate::sim::scenario::DEMO, 132, 38, false)?;
    for shot in STORY {
        s.keys(shot.keys);
        s.wait(Duration::from_millis(shot.wait_ms));
        save(&mut s, shot.file, shot.title)?;
    }
    // The finalizer dialog and the small-terminal layout, on a fresh demo.
    let mut s = Session::new(crate::sim::scenario::DEMO, 132, 38, false)?;
    s.keys("/configmap/web-cache<Enter>Fexample.com/cache");
    save(
        &mut s,
        "09-finalizer-dialog.svg",
        "Removing a finalizer by hand: type its name",
    )?;
    let mut s = Session::new(crate::sim::scenario::DEMO, 80, 24, false)?;
    s.keys("/deployment/web<Enter><C-d>f<Read><Enter>");
    s.wait(Duration::from_millis(4000));
    s.keys("j");
    save(
        &mut s,
        "10-small-80x24.svg",
        "80x24: the tree over the details",
    )?;
    // The timeline with the keys (Tab): the entry under the cursor in full.
    let mut s = Session::new(crate::sim::scenario::DEMO, 132, 38, false)?;
    s.wait(Duration::from_millis(600));
    s.keys("<Tab>g");
    save(
        &mut s,
        "11-timeline.svg",
        "The timeline (Tab): the entry under the cursor in full; Enter selects its object",
    )?;
    // An owner stuck on its own finalizer: what waits behind it.
    let mut s = Session::new("stuck-owner", 132, 38, false)?;
    s.keys("/database/orders<Enter><C-d>");
    save(
        &mut s,
        "12-waits-behind.svg",
        "Deleting an owner stuck on its own finalizer: what waits behind it",
    )?;
    Ok(written)
}

/// The command: `ownerscope screenshots [DIR]`.
///
/// # Errors
/// See [`write_all`].
pub fn run(dir: Option<&str>) -> crate::commands::CmdResult {
    let dir = dir.unwrap_or("screenshots");
    let files = write_all(Path::new(dir)).map_err(crate::commands::CmdError)?;
    for f in files {
        println!("{f}");
    }
    Ok(())
}
