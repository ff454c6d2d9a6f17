//! A command's stdout that ends quietly when its reader goes away: the floor every command's
//! text stands on, below the command line.

use std::io::Write;

/// A command's stdout. When the reader goes away (`ds-harness list | head -1`), the rest of the
/// text is dropped quietly: the command still finishes its work (reports, recordings) and exits
/// with the code its result earns, never with a panic or an error about the pipe.
#[derive(Debug)]
pub struct Out<W: Write = std::io::Stdout> {
    inner: W,
    closed: bool,
}

impl Out {
    /// The process's stdout.
    pub fn stdout() -> Out {
        Out::new(std::io::stdout())
    }
}

impl<W: Write> Out<W> {
    /// Output to `inner`.
    pub fn new(inner: W) -> Out<W> {
        Out {
            inner,
            closed: false,
        }
    }

    /// True once the reader has gone away.
    pub fn closed(&self) -> bool {
        self.closed
    }
}

impl<W: Write> Write for Out<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            r => r,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r,
        }
    }
}
