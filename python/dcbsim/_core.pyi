"""Type stubs of the native module ``dcbsim._core`` (private: use ``dcbsim``)."""

from collections.abc import Callable
from typing import Any

#: A buffer of bytes (``bytes``, a ``memoryview``, a numpy array's).
Buffer = bytes | bytearray | memoryview

__version__: str
DEFAULT_MAX_MEMORY_GB: float

class ScenarioError(ValueError):
    """A scenario that cannot run: the message names the file, position and key."""

class Scenario:
    """A validated scenario."""

    @staticmethod
    def load(path: str, overrides: list[str] = ..., max_memory_gb: float | None = ..., keep_built: bool = ...) -> Scenario:
        """Reads and validates the scenario file at ``path``, after ``overrides``."""
    @staticmethod
    def loads(
        text: str, file: str = ..., overrides: list[str] = ..., max_memory_gb: float | None = ..., keep_built: bool = ...
    ) -> Scenario:
        """Reads and validates a scenario given as text."""
    @property
    def file(self) -> str:
        """The scenario file as given."""
    @property
    def name(self) -> str:
        """The run's name."""
    @property
    def toml(self) -> str:
        """The scenario as run, as TOML."""
    @property
    def seed(self) -> int:
        """The scenario's own seed."""
    @property
    def duration_s(self) -> float:
        """Simulated duration, seconds."""
    @property
    def scheme(self) -> str:
        """The congestion-management scheme's name."""
    @property
    def flow_names(self) -> list[str]:
        """Names of the flows, in order."""
    @property
    def node_names(self) -> list[str]:
        """Names of the nodes, by index (MAC ``02:00`` + index in packet traces)."""
    @property
    def port_names(self) -> list[str]:
        """Names of the ports (``node:peer``), by index (a CNM's CPID in packet traces)."""
    @property
    def size(self) -> tuple[int, int, int]:
        """Numbers of nodes, links and flows."""
    @property
    def streams_samples(self) -> bool:
        """Whether a run streams its samples to disk (above ``output.sample_memory_mb``)."""
    @property
    def sample_memory_bytes(self) -> float:
        """``output.sample_memory_mb`` in bytes."""
    @property
    def compression(self) -> str:
        """``output.compression``: ``zstd`` (the default), ``lz4``, ``snappy`` or ``none``."""
    @property
    def output_bytes(self) -> float:
        """Bytes a run will write to disk, estimated: the results file, and the file its
        samples stream to while it runs when they do."""
    @property
    def estimate(self) -> tuple[float, float]:
        """The run's estimated needs: ``(memory_bytes, events)`` (events at most)."""
    def run(
        self,
        seed: int,
        progress: Callable[[float], Any] | None = None,
        steps: int = 100,
        pcap: list[tuple[str, str]] = ...,
        snaplen: int = 128,
        samples: str | None = None,
    ) -> dict[str, Any]:
        """Runs with ``seed``; returns the raw report (float64 arrays as bytes).
        ``pcap`` lists ``(port, path)`` packet traces to write; with ``samples`` the
        sampled series go to that file as the run goes (see :mod:`dcbsim.samples`)."""

def dsm_predict(m: int, period_s: float, sent: list[int], q_f: float, q_v: float) -> tuple[float, float]:
    """DSM's predictor (eq. 14) as the engine's congestion point computes it."""

class FairnessSums:
    """Sums over a run's samples from which its fairness follows (see
    :mod:`dcbsim.fairness`), added a block of samples at a time, every flow's in each."""

    def __init__(self, flows: int) -> None: ...
    def add_block(self, samples: int, throughput: list[bytes], share: list[bytes], rate: list[bytes] | None = None) -> None:
        """Adds the next ``samples`` samples: per flow, its throughput and fair share
        and optionally its rate, each ``samples`` little-endian float64 values or empty."""
    def begin_block(self, samples: int) -> None:
        """Begins the next block of ``samples`` samples, filled flow by flow."""
    def add_flow(self, flow: int, throughput: bytes, share: bytes, rate: bytes | None = None) -> None:
        """Adds flow ``flow``'s series over the open block (each flow once)."""
    def end_block(self) -> None:
        """Ends the open block."""
    def fairness(self, times: bytes) -> dict[str, Any]:
        """``jain``, ``min_max``, ``share_rms_bps``, ``share_rms_rel``, and per flow
        ``per_flow_rms_bps``, ``per_flow_rms_rel``, ``mean_share_bps`` and
        ``sending_span_s`` (over the sample times ``times``)."""

class TidyWriter:
    """Writes the tidy table of samples (``time_s, metric, entity, value, seed``) to a
    Parquet file through the ``parquet`` crate, a group of series at a time (row groups
    of at most 2^20 rows); the file is complete only once closed."""
    def __init__(self, path: str, compression: str) -> None:
        """Creates ``path`` for a table compressed with ``compression`` (``zstd``,
        ``lz4``, ``snappy`` or ``none``)."""
    def write(self, time_s: Buffer, metrics: list[str], entities: list[str], values: list[Buffer], seed: int) -> None:
        """Appends series: ``metrics[i]`` and ``entities[i]`` name series ``i``, whose
        values are the next ``len(time_s)`` little-endian float64s of ``values`` (the
        buffers one after another), each at the time of its position in ``time_s``."""
    def close(self) -> None:
        """Writes the footer: the table is complete."""

def write_json(path: str, value: Any, one_line_depth: int) -> None:
    """Writes ``value`` to ``path`` as JSON through ``serde_json``: containers above
    ``one_line_depth`` indented, deeper ones on one line; keys in order, NaN and the
    infinities as ``null``, other values JSON has no type for as their ``str()``."""

def full_series(names: list[str], series: list[dict[str, bytes]], metrics: list[str],
                samples: int) -> tuple[list[str], list[str], list[bytes]]:
    """The series of entities ``names`` (``series[i]`` those of ``names[i]``, by metric)
    holding exactly ``samples`` little-endian float64 values, for each entity in turn
    each of ``metrics`` in order: their metric names, entity names and values."""

def flow_table(flows: list[tuple[str, dict[str, Any]]]) -> str:
    """The summary's flow table of ``(name, entry)`` pairs, as ``dcbsim.table`` lays it out."""
