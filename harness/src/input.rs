//! Input files (results, case files, recordings, run statuses) read with a ceiling on their size,
//! so a path to `/dev/zero`, a FIFO that never ends or a runaway file is refused in words instead
//! of filling the memory.

use std::io::Read;
use std::path::Path;

/// Bytes of a results file (`run --json`) read at most: a whole wave32 and wave64 run with the
/// most listed mismatches is far below it.
pub const MAX_RESULTS_BYTES: u64 = 256 << 20;
/// Bytes of a case file read at most (a wave64 case of the largest LDS with both outcomes is
/// about 1 MB).
pub const MAX_CASE_BYTES: u64 = 16 << 20;
/// Bytes of a recording (or a recording directory's `run.json`) read at most.
pub const MAX_RECORDING_BYTES: u64 = 256 << 20;

/// Reads `path` as UTF-8 text of at most `max` bytes; a larger (or endless) input is an error
/// naming the ceiling.
pub fn read_text(path: &Path, max: u64) -> std::io::Result<String> {
    let f = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    f.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "it is larger than {} MiB, the most this input may be (is it the file you meant?)",
                max >> 20
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text (at byte {})", e.utf8_error().valid_up_to()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_input_is_refused_at_the_ceiling() {
        let e = read_text(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("larger than 1 MiB"), "{e}");
    }
}
