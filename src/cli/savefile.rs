//! Files servitor writes for the player (saves, and the SVG pictures `board FILE.svg` draws):
//! where they go, written whole or not at all, and one session per save at a time.
//!
//! - **Where**: a regular file, or a new one in an existing folder. A symbolic link is written
//!   *through*: the file it leads to is replaced and the link stays (a link that leads nowhere
//!   is refused). Anything else — a device such as `/dev/null`, a pipe, a folder — is refused
//!   before a game is played ([`target`]), and again at each write.
//! - **Whole or not at all** ([`write_atomically`]): the text goes to a temporary file of its
//!   own beside the target (created exclusively, so no other file is ever opened or truncated),
//!   which is synced, renamed over the target, and the folder synced. A kill, a crash or a full
//!   disk leaves the previous file or the new one, never a mix, and no temporary file behind
//!   unless the process was killed while writing it.
//! - **One session at a time** ([`lock`]): `FILE.lock` beside the save, locked (`flock`) for
//!   as long as a session runs; a second session on the same save is refused. The kernel drops
//!   the lock when the process ends however it ends, so a killed session never blocks the
//!   next one. The lock file is removed when the session that made it ends normally; one found
//!   there (left by a killed session, or a file of the player's) is used as it is and left.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a file named on the command line is written: `path` itself, or the file a symbolic
/// link leads to. Refused: anything that exists and is not a regular file, a link that leads
/// nowhere, a path in a folder that does not exist.
pub fn target(path: &Path) -> Result<PathBuf, String> {
    let cannot = |why: &dyn std::fmt::Display| format!("error: cannot write {}: {why}", path.display());
    let real = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => path.to_path_buf(),
        Err(e) => return Err(cannot(&e)),
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|e| {
            cannot(&format!(
                "it is a symbolic link that leads to no file ({e}); servitor writes through a link to the file it leads to"
            ))
        })?,
        Ok(_) => path.to_path_buf(),
    };
    match std::fs::metadata(&real) {
        Ok(meta) if meta.is_file() => Ok(real),
        Ok(_) => Err(cannot(
            &"not a regular file (a device, a pipe or a folder): servitor writes only to regular files",
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match std::fs::metadata(folder(&real)) {
            Ok(meta) if meta.is_dir() => Ok(real),
            Ok(_) => Err(cannot(&"its folder is not a folder")),
            Err(e) => Err(cannot(&format!("its folder cannot be used ({e})"))),
        },
        Err(e) => Err(cannot(&e)),
    }
}

/// The folder a file is in (`.` for a bare name).
fn folder(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Writes `bytes` to the file `path` names (see [`target`]): a temporary file of its own in the
/// same folder, created exclusively, written, synced, renamed over the target, then the folder
/// synced. On any failure the temporary file is removed and the target is as it was.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let target = target(path)?;
    let fail = |e: std::io::Error| format!("error: cannot write {}: {e}", path.display());
    let dir = folder(&target);
    let (tmp, mut file) = temporary(dir).map_err(fail)?;
    let written = (|| {
        if let Ok(meta) = std::fs::metadata(&target) {
            // The new file keeps the old one's permissions (a save kept private stays so).
            file.set_permissions(meta.permissions())?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, &target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(fail)?;
    // The rename itself is on disk once the folder is. Past the rename the new save is in
    // place, so a folder that cannot be synced (some file systems refuse) is not a failure.
    let _ = File::open(dir).and_then(|d| d.sync_all());
    Ok(())
}

/// A new file in `dir` that no one else has: `.servitor-PID-N.tmp`, created exclusively (an
/// existing file or link of that name is never opened, the next name is tried).
fn temporary(dir: &Path) -> std::io::Result<(PathBuf, File)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut last = None;
    for _ in 0..1000 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".servitor-{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free name for a temporary file")))
}

/// A save held by this process: `FILE.lock` beside it, locked until this is dropped (then
/// removed). See the module's documentation.
pub struct Lock {
    path: PathBuf,
    _file: File,
    /// This process made the lock file (and so removes it): a file of that name it found is
    /// left where it was (one a killed session left, or the player's own).
    made: bool,
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still locked: a session that opened it meanwhile finds, once it has
        // the lock, that the name leads elsewhere, and starts again (see `lock`).
        if self.made {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Takes the lock of the save at `path` (see [`target`]) for this process, or says which
/// session holds it.
pub fn lock(path: &Path) -> Result<Lock, String> {
    let target = target(path)?;
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    let lock_path = folder(&target).join(name);
    let fail = |e: std::io::Error| format!("error: cannot lock {}: {e}", lock_path.display());
    // A few rounds at most: another session may remove the lock file between our open and
    // our lock, and then we lock a file no one else will see.
    for _ in 0..100 {
        // Never truncated or written: a file of that name keeps what it holds.
        let (file, made) = match OpenOptions::new().write(true).create_new(true).open(&lock_path) {
            Ok(file) => (file, true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                (OpenOptions::new().read(true).open(&lock_path).map_err(fail)?, false)
            }
            Err(e) => return Err(fail(e)),
        };
        if !try_lock(&file).map_err(fail)? {
            return Err(format!(
                "error: {} is in use by another servitor session (it holds {}): end that session first; two sessions on one save would overwrite each other's commands",
                path.display(),
                lock_path.display()
            ));
        }
        if same_file(&file, &lock_path) {
            return Ok(Lock {
                path: lock_path,
                _file: file,
                made,
            });
        }
    }
    Err(fail(std::io::Error::other("the lock file keeps changing")))
}

/// Whether `path` names the file `file` has open.
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// An exclusive `flock` without waiting: `false` when another process holds it.
fn try_lock(file: &File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: `flock` reads only the descriptor, which `file` keeps open for the call.
    let done = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if done == 0 {
        return Ok(true);
    }
    let error = std::io::Error::last_os_error();
    if error.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_the_file_and_leaves_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let save = dir.path().join("game.json");
        std::fs::write(dir.path().join("game.tmp"), "the user's own").unwrap();
        write_atomically(&save, b"one").unwrap();
        write_atomically(&save, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&save).unwrap(), "two");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("game.tmp")).unwrap(),
            "the user's own"
        );
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["game.json", "game.tmp"]);
    }

    #[test]
    fn a_taken_temporary_name_is_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "keep").unwrap();
        // Every name this process would try first is a link to the victim.
        let start = {
            let (tmp, _) = temporary(dir.path()).unwrap();
            std::fs::remove_file(&tmp).unwrap();
            tmp.to_string_lossy()
                .rsplit('-')
                .next()
                .unwrap()
                .trim_end_matches(".tmp")
                .parse::<u64>()
                .unwrap()
        };
        for n in start + 1..start + 200 {
            let name = dir.path().join(format!(".servitor-{}-{n}.tmp", std::process::id()));
            std::os::unix::fs::symlink(&victim, name).unwrap();
        }
        write_atomically(&dir.path().join("s.json"), b"save").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(dir.path().join("s.json")).unwrap(), "save");
    }

    #[test]
    fn a_lock_is_held_once_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let save = dir.path().join("s.json");
        let held = lock(&save).unwrap();
        assert!(dir.path().join("s.json.lock").exists());
        // flock locks belong to the open file: a second open in this process is refused too.
        let refused = lock(&save).err().unwrap();
        assert!(refused.contains("in use by another servitor session"), "{refused}");
        drop(held);
        assert!(!dir.path().join("s.json.lock").exists());
        // A file of that name already there is locked as it is, never changed or removed.
        std::fs::write(dir.path().join("s.json.lock"), "mine").unwrap();
        drop(lock(&save).unwrap());
        assert_eq!(std::fs::read_to_string(dir.path().join("s.json.lock")).unwrap(), "mine");
    }
}
