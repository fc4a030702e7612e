//! Filter files: the layout detected from the first bytes (FORMAT.md's magic "SBLM", or Guava's
//! strategy byte 0 or 1), read whole, written atomically (a temp file in the same directory,
//! fsync, rename), so a crash never leaves a half-written filter under the real name.

use crate::cli::FileFormat;
use crate::error::{CliError, CliResult, display};
use sparkbloom::BloomFilter;
use sparkbloom::format;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
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

pub fn read(path: &Path) -> CliResult<Loaded> {
    let bytes = fs::read(path).map_err(|e| CliError::io(path, "read", e))?;
    let format = detect(&bytes, path)?;
    let decoded = match format {
        FileFormat::Sparkbloom => format::decode(&bytes),
        FileFormat::Guava => format::guava::decode(&bytes),
        FileFormat::Spark => format::spark_sketch::decode(&bytes),
    };
    let filter = decoded.map_err(|e| {
        if bytes[0] > 1 && bytes[0] != b'S' {
            CliError::core(
                format_args!(
                    "{}: not a Bloom filter file (first byte 0x{:02x}: neither FORMAT.md's magic \"SBLM\" nor a Guava writeTo strategy ordinal 0 or 1)",
                    display(path),
                    bytes[0]
                ),
                e,
            )
        } else {
            CliError::core(format_args!("{} ({})", display(path), name(format)), e)
        }
    })?;
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
