//! Filter files: the layout detected from the first bytes (FORMAT.md's magic "SBLM", Guava's
//! strategy byte 0 or 1, Spark's version 0 0 …), read within a bound (a regular file only; the
//! header's declared size checked against `--max-bits` before the rest is read), and written
//! atomically (a temp file in the same directory, fsync, rename), so a crash never leaves a
//! half-written filter under the real name. `dedup --state` saves differently (state_file.rs).

use crate::cli::FileFormat;
use crate::error::{CliError, CliResult, display};
use sparkbloom::BloomFilter;
use sparkbloom::format;
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A filter read from a file, with what the file said about its layout.
pub struct Loaded {
    pub filter: BloomFilter,
    pub format: FileFormat,
    /// FORMAT.md's version byte (Guava's stream has none).
    pub version: Option<u8>,
    /// FORMAT.md's encoding, "dense" or "sparse".
    pub encoding: Option<&'static str>,
    pub file_bytes: u64,
}

/// The layout of `bytes`, from its first byte: FORMAT.md starts with the magic "SBLM", Guava's
/// stream with its strategy ordinal (0 or 1) then k ≥ 1, Spark's with its int32 version 1 or 2
/// (bytes 0 0). Other bytes are read as Guava's stream, whose strategy check then names them
/// (the error says the file is neither).
pub fn detect(bytes: &[u8], path: &Path) -> CliResult<FileFormat> {
    match bytes.first() {
        None => Err(CliError::new(format!(
            "{}: empty file, not a filter",
            display(path)
        ))),
        Some(b'S') => Ok(FileFormat::Sparkbloom),
        Some(0) if bytes.get(1) == Some(&0) => Ok(FileFormat::Spark),
        Some(_) => Ok(FileFormat::Guava),
    }
}

/// Reads the filter in `path`: a regular file (through symlinks; a FIFO, a device or a
/// directory is refused without blocking), under a shared lock so a `dedup --state` save is
/// never seen half-done, refused from its header when it declares more than `max_bits` bits.
pub fn read(path: &Path, max_bits: u64) -> CliResult<Loaded> {
    let file = open_regular(path, false)?;
    // Best effort: a file system without flock still reads (a save then may be seen torn, and
    // the checksum or length check names it).
    let _ = lock(&file, path, libc::LOCK_SH);
    read_from(&file, path, max_bits)
}

/// Opens `path` for reading (and writing with `write`), refusing anything but a regular file.
/// O_NONBLOCK keeps the open of a FIFO from waiting for a writer; it changes nothing for a
/// regular file.
pub fn open_regular(path: &Path, write: bool) -> CliResult<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(write)
        .create(write)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| CliError::io(path, if write { "open for writing" } else { "open" }, e))?;
    let kind = file
        .metadata()
        .map_err(|e| CliError::io(path, "read", e))?
        .file_type();
    if kind.is_file() {
        return Ok(file);
    }
    let what = if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    Err(CliError::new(format!(
        "{}: is {what}; a filter file must be a regular file",
        display(path)
    )))
}

/// `flock(op)` on `file`, waiting for it (a signal handler's EINTR waits again).
pub fn lock(file: &File, path: &Path, op: libc::c_int) -> CliResult<()> {
    flock(file, op)
        .map(drop)
        .map_err(|e| CliError::io(path, "lock", e))
}

/// `flock(op)` on `file`, again after a signal handler's EINTR: Ok(false) when `op` has
/// `LOCK_NB` and another open file holds a lock on it.
pub fn flock(file: &File, op: libc::c_int) -> std::io::Result<bool> {
    loop {
        // SAFETY: flock on a descriptor this File owns.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(true);
        }
        let err = std::io::Error::last_os_error();
        match err.kind() {
            ErrorKind::Interrupted => continue,
            ErrorKind::WouldBlock => return Ok(false),
            _ => return Err(err),
        }
    }
}

/// The filter `file` holds, read from its start: the header first, so the declared size is
/// checked against `max_bits` and against the file's size before the rest is read or anything
/// the size of the filter is allocated.
pub fn read_from(file: &File, path: &Path, max_bits: u64) -> CliResult<Loaded> {
    let file_bytes = file
        .metadata()
        .map_err(|e| CliError::io(path, "read", e))?
        .len();
    let mut head = [0u8; format::HEADER_LEN];
    let head_len = read_at_most(file, &mut head, path)?;
    let head = &head[..head_len];
    let format = detect(head, path)?;
    let declared = match format {
        FileFormat::Sparkbloom => format::total_len_with_limit(head, max_bits),
        FileFormat::Guava => format::guava::total_len_with_limit(head, max_bits),
        FileFormat::Spark => format::spark_sketch::header_len(head).and_then(|len| {
            format::spark_sketch::total_len_with_limit(&head[..len.min(head.len())], max_bits)
        }),
    };
    // A header too short to parse is read whole (it is shorter than a header), and decoding
    // names what is missing.
    let to_read = match declared {
        // One byte past the declared end, if the file has it, so decoding sees trailing bytes.
        Ok(total) => total.saturating_add(1).min(file_bytes),
        Err(_) if head_len < header_len(format) => file_bytes,
        Err(e) => return Err(decode_error(path, format, head, e, max_bits)),
    };
    let mut bytes = Vec::new();
    usize::try_from(to_read)
        .ok()
        .and_then(|len| bytes.try_reserve_exact(len).ok())
        .ok_or_else(|| {
            CliError::new(format!(
                "{}: cannot allocate {to_read} bytes to read it",
                display(path)
            ))
        })?;
    let mut reader = file;
    reader
        .seek(SeekFrom::Start(0))
        .and_then(|_| reader.take(to_read).read_to_end(&mut bytes))
        .map_err(|e| CliError::io(path, "read", e))?;
    let mut loaded = decode(&bytes, path, max_bits)?;
    loaded.file_bytes = file_bytes;
    Ok(loaded)
}

/// The filter in `bytes` (a whole file's, or a journal's), its layout detected; `path` names it
/// in errors.
pub fn decode(bytes: &[u8], path: &Path, max_bits: u64) -> CliResult<Loaded> {
    let format = detect(bytes, path)?;
    let decoded = match format {
        FileFormat::Sparkbloom => format::decode_with_limit(bytes, max_bits),
        FileFormat::Guava => format::guava::decode_with_limit(bytes, max_bits),
        FileFormat::Spark => format::spark_sketch::decode_with_limit(bytes, max_bits),
    };
    let filter = decoded.map_err(|e| decode_error(path, format, bytes, e, max_bits))?;
    let (version, encoding) = match format {
        // decode checked the header: byte 4 is the version, byte 6 the encoding (FORMAT.md 1.1).
        FileFormat::Sparkbloom => (
            Some(bytes[4]),
            Some(if bytes[6] == 1 { "sparse" } else { "dense" }),
        ),
        FileFormat::Guava | FileFormat::Spark => (None, None),
    };
    Ok(Loaded {
        filter,
        format,
        version,
        encoding,
        file_bytes: bytes.len() as u64,
    })
}

/// The bytes a header of `format` takes (Spark's V2, the longer).
fn header_len(format: FileFormat) -> usize {
    match format {
        FileFormat::Sparkbloom => format::HEADER_LEN,
        FileFormat::Guava => format::guava::HEADER_LEN,
        FileFormat::Spark => format::spark_sketch::V2_HEADER_LEN,
    }
}

/// Fills `buf` from the start of `file` as far as the file goes.
fn read_at_most(file: &File, buf: &mut [u8], path: &Path) -> CliResult<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(CliError::io(path, "read", e)),
        }
    }
    Ok(filled)
}

fn decode_error(
    path: &Path,
    format: FileFormat,
    bytes: &[u8],
    err: sparkbloom::Error,
    max_bits: u64,
) -> CliError {
    if let sparkbloom::Error::TooLarge { .. } = err {
        return CliError::core(
            format_args!(
                "{} ({}; raise --max-bits, now {max_bits}, if the machine has the memory)",
                display(path),
                name(format)
            ),
            err,
        );
    }
    if bytes[0] > 1 && bytes[0] != b'S' {
        CliError::core(
            format_args!(
                "{}: not a Bloom filter file (first byte 0x{:02x}: neither FORMAT.md's magic \"SBLM\" nor a Guava writeTo strategy ordinal 0 or 1)",
                display(path),
                bytes[0]
            ),
            err,
        )
    } else {
        CliError::core(format_args!("{} ({})", display(path), name(format)), err)
    }
}

/// The bytes of `filter` in `format`.
pub fn encode(filter: &BloomFilter, format: FileFormat) -> CliResult<Vec<u8>> {
    match format {
        FileFormat::Sparkbloom => Ok(format::encode(filter)),
        FileFormat::Guava => format::guava::encode(filter)
            .map_err(|e| CliError::core("cannot write Guava's stream", e)),
        FileFormat::Spark => format::spark_sketch::encode(filter)
            .map_err(|e| CliError::core("cannot write Spark's sketch stream", e)),
    }
}

pub fn name(format: FileFormat) -> &'static str {
    match format {
        FileFormat::Sparkbloom => "sparkbloom",
        FileFormat::Guava => "guava",
        FileFormat::Spark => "spark",
    }
}

/// Writes `filter` to `path` atomically, or to stdout for `-`.
pub fn write(path: &Path, filter: &BloomFilter, format: FileFormat) -> CliResult<()> {
    let bytes = encode(filter, format)?;
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(&bytes)
            .and_then(|_| out.flush())
            .map_err(|e| CliError::io(Path::new("<stdout>"), "write", e));
    }
    match fs::metadata(path) {
        // A regular file (through any symlinks): replaced atomically where it really lives, so
        // a symlink stays a symlink.
        Ok(meta) if meta.is_file() => {
            let real = fs::canonicalize(path).map_err(|e| CliError::io(path, "resolve", e))?;
            write_atomically(&real, &bytes, path)
        }
        Ok(meta) if meta.is_dir() => Err(CliError::new(format!(
            "{}: is a directory, not a file to write",
            display(path)
        ))),
        // A device or a pipe (/dev/stdout, a FIFO): written in place; renaming a file over it
        // would replace the device itself.
        Ok(_) => OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut out| out.write_all(&bytes))
            .map_err(|e| CliError::io(path, "write", e)),
        Err(_) => write_atomically(path, &bytes, path),
    }
}

/// A temp file beside `path`, written and fsynced, then renamed over it; the directory is
/// fsynced so the rename itself survives a crash. Errors name `shown`.
fn write_atomically(path: &Path, bytes: &[u8], shown: &Path) -> CliResult<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| CliError::new(format!("{}: not a file name", display(shown))))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(file_name);
    temp_name.push(format!(".{}.tmp", std::process::id()));
    let temp = dir.join(temp_name);
    // A temp file of this name is a leftover of a crashed run with the same process id.
    let _ = fs::remove_file(&temp);
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(CliError::io(shown, "write", e));
    }
    // Best effort: not every file system lets a directory be opened for fsync.
    if let Ok(dir) = File::open(&dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}
