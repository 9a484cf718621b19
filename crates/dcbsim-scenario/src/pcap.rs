//! Classic libpcap files with nanosecond timestamps (magic 0xa1b23c4d, version 2.4,
//! link type 1: Ethernet), written as a stream: the sink of a packet trace.

use dcbsim_core::trace::FrameSink;
use dcbsim_core::units::Time;
use std::io::{self, Write};

/// The magic number of a pcap file with nanosecond timestamps.
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// Link type Ethernet.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// The default number of bytes kept of each frame.
pub const DEFAULT_SNAPLEN: u32 = 128;
/// The smallest snap length allowed: an Ethernet header with its tag.
pub const MIN_SNAPLEN: u32 = 18;
/// The largest snap length allowed.
pub const MAX_SNAPLEN: u32 = 262_144;

/// Zeros for the part of a frame after its headers.
const ZEROS: [u8; 256] = [0; 256];

/// Writes one pcap stream: the file header at once, then a record per frame.
pub struct PcapWriter<W: Write> {
    sink: W,
    snaplen: u32,
    frames: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Starts a stream on `sink` keeping at most `snaplen` bytes of each frame.
    pub fn new(mut sink: W, snaplen: u32) -> io::Result<PcapWriter<W>> {
        let mut header = [0u8; 24];
        header[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
        header[4..6].copy_from_slice(&2u16.to_le_bytes());
        header[6..8].copy_from_slice(&4u16.to_le_bytes());
        header[16..20].copy_from_slice(&snaplen.to_le_bytes());
        header[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        sink.write_all(&header)?;
        Ok(PcapWriter { sink, snaplen, frames: 0 })
    }

    /// Records a frame of `wire_len` bytes seen at `at` whose first bytes are
    /// `headers` (the rest zeros), truncated at the snap length.
    pub fn record(&mut self, at: Time, headers: &[u8], wire_len: u32) -> io::Result<()> {
        let wire_len = wire_len.max(headers.len() as u32);
        let captured = wire_len.min(self.snaplen);
        let nanos = at.0 / 1000;
        let mut record = [0u8; 16];
        record[0..4].copy_from_slice(&((nanos / 1_000_000_000) as u32).to_le_bytes());
        record[4..8].copy_from_slice(&((nanos % 1_000_000_000) as u32).to_le_bytes());
        record[8..12].copy_from_slice(&captured.to_le_bytes());
        record[12..16].copy_from_slice(&wire_len.to_le_bytes());
        self.sink.write_all(&record)?;
        let kept = headers.len().min(captured as usize);
        self.sink.write_all(&headers[..kept])?;
        let mut zeros = captured as usize - kept;
        while zeros > 0 {
            let n = zeros.min(ZEROS.len());
            self.sink.write_all(&ZEROS[..n])?;
            zeros -= n;
        }
        self.frames += 1;
        Ok(())
    }

    /// Frames recorded so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Flushes the stream and hands back its sink.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.sink.flush()?;
        Ok(self.sink)
    }
}

impl<W: Write + Send> FrameSink for PcapWriter<W> {
    fn frame(&mut self, at: Time, headers: &[u8], wire_len: u32) -> io::Result<()> {
        self.record(at, headers, wire_len)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.sink.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_records_follow_the_nanosecond_format() {
        let mut w = PcapWriter::new(Vec::new(), 20).unwrap();
        w.record(Time::from_ns(1_500_000_123) + Time(999), &[0xAA; 14], 1500).unwrap();
        w.record(Time::from_us(2), &[0xBB; 30], 10).unwrap();
        assert_eq!(w.frames(), 2);
        let bytes = w.into_inner().unwrap();
        assert_eq!(&bytes[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes(bytes[16..20].try_into().unwrap()), 20);
        let rec = &bytes[24..];
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 1, "seconds");
        assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 500_000_123, "nanoseconds, picoseconds dropped");
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 20, "captured: the snap length");
        assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 1500, "original length");
        assert_eq!(&rec[16..30], &[0xAA; 14]);
        assert_eq!(&rec[30..36], &[0; 6], "zeros after the headers");
        let rec = &rec[36..];
        assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 30, "never shorter than its headers");
        assert_eq!(rec.len(), 16 + 20);
    }
}
