//! The write-ahead journal of `serve --state-dir`: no write is answered
//! before it is on disk, as kube-apiserver answers only once etcd has it.
//!
//! Every change of the store (a client's write, the garbage collector's,
//! a controller's) becomes a [`Record`] numbered in the order it was made.
//! A request's answer waits until the records up to its own are written
//! and `fdatasync`ed ([`Journal::wait_durable`]). One committer thread
//! writes every record queued since its last `fdatasync` with one more,
//! and wakes every request in that batch (group commit, as etcd's
//! backend batches its transactions): a request waits on a channel, not
//! on a thread of its own or on the file's lock. The journal is a run of
//! segment files (`journal-<first seq>.log`, JSON lines); a snapshot
//! (`store.json`, [`super::statedir`]) says up to which record it holds,
//! and the segments it covers are removed. On start the snapshot is read
//! and the records after it replayed ([`replay`]); a last line cut short
//! by a crash was never acknowledged and is dropped.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::model::Object;
use crate::sim::api::UidGen;
use crate::sim::{Key, Saved};

/// What a change did to the store.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Created or modified: the object as stored.
    Put(Arc<Object>),
    /// Removed.
    Delete(Key),
}

/// One change, numbered, with the store's counters after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub seq: u64,
    /// The store's resource version after the change.
    pub rv: u64,
    /// The virtual clock.
    pub now_ms: u64,
    pub op: Op,
}

/// A record as written.
#[derive(Serialize)]
struct Line<'a> {
    seq: u64,
    rv: u64,
    now_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    put: Option<&'a Object>,
    #[serde(skip_serializing_if = "Option::is_none")]
    delete: Option<&'a Key>,
}

/// A record as read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadLine {
    seq: u64,
    rv: u64,
    now_ms: u64,
    #[serde(default)]
    put: Option<Object>,
    #[serde(default)]
    delete: Option<Key>,
}

/// The segment files' prefix and suffix.
const PREFIX: &str = "journal-";
const SUFFIX: &str = ".log";

/// How many uid draws one replayed record may have made (its uid, and a
/// controller's tries at a free generated name): the uid sequence resumes
/// past all of them, so that no uid is given twice.
const DRAWS_PER_RECORD: u32 = 10;

fn segment_name(first: u64) -> String {
    format!("{PREFIX}{first:020}{SUFFIX}")
}

/// The segments in `dir`, by first record.
///
/// # Errors
/// The directory cannot be read.
fn segments(dir: &Path) -> Result<Vec<(u64, PathBuf)>, String> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries {
        let e = e.map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = e.file_name();
        let Some(first) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|n| n.strip_suffix(SUFFIX))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        out.push((first, e.path()));
    }
    out.sort();
    Ok(out)
}

/// `saved` (the snapshot, holding the records up to `seq`) with the
/// journal's later records applied. Returns the store and the last
/// record's number.
///
/// # Errors
/// A segment cannot be read, or holds a record that is not one (other
/// than a last line cut short).
pub fn replay(dir: &Path, mut saved: Saved, seq: u64) -> Result<(Saved, u64), String> {
    let segs = segments(dir)?;
    let mut index: HashMap<Key, usize> = saved
        .objects
        .iter()
        .enumerate()
        .map(|(i, o)| (Key::of(o), i))
        .collect();
    let mut slots: Vec<Option<Object>> = std::mem::take(&mut saved.objects)
        .into_iter()
        .map(Some)
        .collect();
    let mut last = seq;
    let mut uids = UidGen::resumed(saved.uid_state);
    for (n, (_, path)) in segs.iter().enumerate() {
        let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let is_last_segment = n + 1 == segs.len();
        let mut lines = text.split(|b| *b == b'\n').peekable();
        let mut line_no = 0;
        while let Some(line) = lines.next() {
            line_no += 1;
            let at_end = lines.peek().is_none();
            if line.is_empty() {
                continue;
            }
            let rec: ReadLine = match serde_json::from_slice(line) {
                Ok(r) => r,
                // The last line, without its newline: cut short by a
                // crash before its fsync, so never acknowledged.
                Err(_) if at_end && is_last_segment => break,
                Err(e) => {
                    return Err(format!(
                        "{} line {line_no}: not a journal record ({e})",
                        path.display()
                    ));
                }
            };
            if rec.seq <= last {
                continue;
            }
            last = rec.seq;
            saved.resource_version = saved.resource_version.max(rec.rv);
            saved.now_ms = saved.now_ms.max(rec.now_ms);
            for _ in 0..DRAWS_PER_RECORD {
                uids.next_u64();
            }
            match (rec.put, rec.delete) {
                (Some(o), None) => {
                    let key = Key::of(&o);
                    match index.get(&key) {
                        Some(&i) if slots[i].is_some() => slots[i] = Some(o),
                        _ => {
                            index.insert(key, slots.len());
                            slots.push(Some(o));
                        }
                    }
                }
                (None, Some(key)) => {
                    if let Some(i) = index.remove(&key) {
                        slots[i] = None;
                    }
                }
                _ => {
                    return Err(format!(
                        "{} line {line_no}: a record is a put or a delete",
                        path.display()
                    ));
                }
            }
        }
    }
    saved.uid_state = uids.state();
    saved.objects = slots.into_iter().flatten().collect();
    Ok((saved, last))
}

/// What waits to be written.
enum Item {
    Record(Record),
    /// Start a new segment at this record.
    Rotate(u64),
}

struct Io {
    file: File,
    /// The last record on disk.
    durable: u64,
    /// Set when a write failed: nothing more is acknowledged.
    broken: Option<String>,
}

/// What is on disk, as the requests waiting on it see it.
#[derive(Clone, Debug, Default)]
struct Durable {
    /// The last record on disk.
    seq: u64,
    /// Set when a write failed: nothing more is acknowledged.
    broken: Option<String>,
}

/// How long the committer sleeps with nothing queued before it looks
/// whether the journal is still open.
const IDLE: Duration = Duration::from_millis(200);

/// An open journal.
pub struct Journal {
    dir: PathBuf,
    queue: Mutex<VecDeque<Item>>,
    /// Rung when something is queued.
    queued: Condvar,
    io: Mutex<Io>,
    durable: tokio::sync::watch::Sender<Durable>,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal").field("dir", &self.dir).finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Makes a directory's entries (a new file, a rename) durable.
///
/// # Errors
/// It cannot be opened or synced.
pub fn sync_dir(dir: &Path) -> Result<(), String> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| format!("{}: {e}", dir.display()))
}

fn open_segment(dir: &Path, first: u64) -> Result<File, String> {
    let path = dir.join(segment_name(first));
    let f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    sync_dir(dir)?;
    Ok(f)
}

impl Journal {
    /// A journal in `dir` whose next record is `last + 1`, in a new
    /// segment, and its committer thread (which ends once the journal is
    /// dropped). Older segments are for [`Journal::compacted`] to remove.
    ///
    /// # Errors
    /// The segment or the thread cannot be made.
    pub fn open(dir: &Path, last: u64) -> Result<Arc<Journal>, String> {
        let file = open_segment(dir, last + 1)?;
        let (durable, _) = tokio::sync::watch::channel(Durable {
            seq: last,
            broken: None,
        });
        let j = Arc::new(Journal {
            dir: dir.to_path_buf(),
            queue: Mutex::new(VecDeque::new()),
            queued: Condvar::new(),
            io: Mutex::new(Io {
                file,
                durable: last,
                broken: None,
            }),
            durable,
        });
        let weak = Arc::downgrade(&j);
        std::thread::Builder::new()
            .name("journal".into())
            .spawn(move || committer(&weak))
            .map_err(|e| format!("starting the journal's committer: {e}"))?;
        Ok(j)
    }

    /// Queues records (the store's lock held, so that they queue in the
    /// order they were made). Returns the last one's number, if any.
    pub fn enqueue(&self, records: Vec<Record>) -> Option<u64> {
        let last = records.last().map(|r| r.seq)?;
        lock(&self.queue).extend(records.into_iter().map(Item::Record));
        self.queued.notify_one();
        Some(last)
    }

    /// Queues the start of a new segment at record `first` (the store's
    /// lock held, as a snapshot is taken that holds the records before).
    pub fn rotate(&self, first: u64) {
        lock(&self.queue).push_back(Item::Rotate(first));
        self.queued.notify_one();
    }

    /// Waits (without a thread of its own) until record `upto` and all
    /// before it are on disk: the committer writes them.
    ///
    /// # Errors
    /// A write or an fdatasync failed, now or before.
    pub async fn wait_durable(&self, upto: u64) -> Result<(), String> {
        let mut rx = self.durable.subscribe();
        let d = rx
            .wait_for(|d| d.seq >= upto || d.broken.is_some())
            .await
            .map_err(|e| format!("writing the journal: {e}"))?;
        match &d.broken {
            _ if d.seq >= upto => Ok(()),
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Returns once record `upto` and all before it are on disk, writing
    /// everything queued (blocking I/O: call it off the async threads).
    ///
    /// # Errors
    /// A write or an fsync failed, now or before (the journal then
    /// acknowledges nothing more).
    pub fn commit(&self, upto: u64) -> Result<(), String> {
        let mut io = lock(&self.io);
        if let Some(e) = &io.broken {
            return Err(e.clone());
        }
        if io.durable >= upto {
            return Ok(());
        }
        self.write_queued(&mut io)
    }

    /// Writes everything queued, rotations included.
    ///
    /// # Errors
    /// As [`Journal::commit`].
    pub fn flush(&self) -> Result<(), String> {
        let mut io = lock(&self.io);
        if let Some(e) = &io.broken {
            return Err(e.clone());
        }
        self.write_queued(&mut io)
    }

    fn write_queued(&self, io: &mut Io) -> Result<(), String> {
        let items: Vec<Item> = lock(&self.queue).drain(..).collect();
        let mut buf: Vec<u8> = Vec::new();
        let mut last = io.durable;
        let done = (|| {
            for item in items {
                match item {
                    Item::Record(r) => {
                        let (put, delete) = match &r.op {
                            Op::Put(o) => (Some(&**o), None),
                            Op::Delete(k) => (None, Some(k)),
                        };
                        let line = Line {
                            seq: r.seq,
                            rv: r.rv,
                            now_ms: r.now_ms,
                            put,
                            delete,
                        };
                        serde_json::to_writer(&mut buf, &line)
                            .map_err(|e| format!("journal record {}: {e}", r.seq))?;
                        buf.push(b'\n');
                        last = r.seq;
                    }
                    Item::Rotate(first) => {
                        io.file.write_all(&buf).map_err(|e| self.fail(&e))?;
                        io.file.sync_data().map_err(|e| self.fail(&e))?;
                        buf.clear();
                        io.file = open_segment(&self.dir, first)?;
                    }
                }
            }
            io.file.write_all(&buf).map_err(|e| self.fail(&e))?;
            io.file.sync_data().map_err(|e| self.fail(&e))
        })();
        match done {
            Ok(()) => {
                io.durable = last;
                self.durable.send_modify(|d| d.seq = last);
                Ok(())
            }
            Err(e) => {
                tracing::error!("{e}: no write is acknowledged any more");
                io.broken = Some(e.clone());
                self.durable.send_modify(|d| d.broken = Some(e.clone()));
                Err(e)
            }
        }
    }

    fn fail(&self, e: &std::io::Error) -> String {
        format!("writing the journal in {}: {e}", self.dir.display())
    }

    /// The last record on disk.
    #[must_use]
    pub fn durable(&self) -> u64 {
        lock(&self.io).durable
    }

    /// Removes the segments a snapshot holding the records up to `seq`
    /// covers (those that end before `seq + 1`, where a rotation queued
    /// with that snapshot began the next one).
    ///
    /// # Errors
    /// A segment cannot be removed.
    pub fn compacted(&self, seq: u64) -> Result<(), String> {
        // The rotation must have happened: the segment that takes the
        // records after the snapshot exists before the older ones go.
        self.flush()?;
        for (first, path) in segments(&self.dir)? {
            if first <= seq {
                std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
        sync_dir(&self.dir)
    }
}

/// Writes whatever is queued, one batch and one `fdatasync` at a time,
/// until the journal is dropped.
fn committer(journal: &Weak<Journal>) {
    loop {
        let Some(j) = journal.upgrade() else { return };
        {
            let q = lock(&j.queue);
            let (q, _) = j
                .queued
                .wait_timeout_while(q, IDLE, |q| q.is_empty())
                .unwrap_or_else(PoisonError::into_inner);
            if q.is_empty() {
                continue;
            }
        }
        let mut io = lock(&j.io);
        if io.broken.is_some() {
            // Nothing more is acknowledged: what comes is dropped.
            lock(&j.queue).clear();
            continue;
        }
        // The error is kept in `io.broken` and sent to every waiter.
        let _ = j.write_queued(&mut io);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Scratch(PathBuf);
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    fn scratch(name: &str) -> Scratch {
        let p =
            std::env::temp_dir().join(format!("ownerscope-journal-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir(&p).expect("scratch");
        Scratch(p)
    }

    fn cm(name: &str, rv: u64) -> Arc<Object> {
        let mut o = Object::new("v1", "ConfigMap", Some("x"), name);
        o.metadata.resource_version = Some(rv.to_string());
        o.metadata.uid = format!("uid-{name}");
        Arc::new(o)
    }

    fn saved(objects: Vec<Object>) -> Saved {
        Saved {
            scenario: "s".into(),
            seed: 1,
            resource_version: 10,
            uid_state: 5,
            now_ms: 100,
            epoch: None,
            steps_run: 0,
            controllers: Default::default(),
            unavailable_apis: Vec::new(),
            objects,
        }
    }

    fn rec(seq: u64, op: Op) -> Record {
        Record {
            seq,
            rv: 10 + seq,
            now_ms: 100 + seq,
            op,
        }
    }

    #[test]
    fn committed_records_replay_over_the_snapshot_and_a_torn_tail_is_dropped() {
        let dir = scratch("replay");
        let j = Journal::open(&dir.0, 0).expect("open");
        let a = cm("a", 11);
        j.enqueue(vec![
            rec(1, Op::Put(a.clone())),
            rec(2, Op::Put(cm("b", 12))),
        ]);
        j.commit(2).expect("durable");
        j.enqueue(vec![rec(3, Op::Delete(Key::of(&a)))]);
        j.commit(3).expect("durable");
        assert_eq!(j.durable(), 3);
        // A crash in the middle of the next write.
        let seg = dir.0.join(segment_name(1));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&seg)
            .expect("seg");
        f.write_all(b"{\"seq\":4,\"rv\":14,\"now_ms\":1")
            .expect("torn");
        let (s, last) = replay(&dir.0, saved(vec![(*cm("old", 3)).clone()]), 0).expect("replays");
        assert_eq!(last, 3);
        let names: Vec<&str> = s.objects.iter().map(Object::name).collect();
        assert_eq!(names, ["old", "b"]);
        assert_eq!((s.resource_version, s.now_ms), (13, 103));
        let mut g = UidGen::resumed(5);
        for _ in 0..3 * DRAWS_PER_RECORD {
            g.next_u64();
        }
        assert_eq!(
            s.uid_state,
            g.state(),
            "uids resume past every replayed record"
        );
        // A snapshot that holds record 2 replays only record 3.
        let (s, _) = replay(&dir.0, saved(vec![(*a).clone()]), 2).expect("replays");
        assert!(s.objects.is_empty());
        // A broken line that is not the last is an error, by place.
        std::fs::write(&seg, b"nonsense\n{}\n").expect("written");
        let err = replay(&dir.0, saved(Vec::new()), 0).expect_err("corrupt");
        assert!(err.contains("line 1: not a journal record"), "{err}");
    }

    #[test]
    fn a_snapshot_removes_the_segments_it_covers() {
        let dir = scratch("rotate");
        let j = Journal::open(&dir.0, 0).expect("open");
        j.enqueue(vec![rec(1, Op::Put(cm("a", 11)))]);
        j.rotate(2);
        j.enqueue(vec![rec(2, Op::Put(cm("b", 12)))]);
        j.commit(1).expect("durable");
        j.compacted(1).expect("compacted");
        let left: Vec<u64> = segments(&dir.0)
            .expect("listed")
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        assert_eq!(left, [2]);
        let (s, last) = replay(&dir.0, saved(vec![(*cm("a", 11)).clone()]), 1).expect("replays");
        assert_eq!((last, s.objects.len()), (2, 2));
    }
}
