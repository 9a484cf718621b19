//! # dcbsim-scenario
//!
//! Scenario files for dcbsim: TOML with the units in the key names, read into a
//! [`dcbsim_core::config::SimConfig`]. Every error names the file, the line and
//! column, the key and what is allowed; none panics. `--set key.path=value`
//! overrides apply before reading. See `docs/scenario-format.md`.
//!
//! ```
//! let text = r#"
//! [run]
//! duration_ms = 1.0
//! [topology]
//! kind = "dumbbell"
//! senders = 2
//! [[flows]]
//! src = "s*"
//! dst = "r0"
//! "#;
//! let scenario = dcbsim_scenario::load_str(text, "example.toml", &[]).unwrap();
//! assert_eq!(scenario.config.flows.len(), 2);
//! let err = dcbsim_scenario::load_str(text, "example.toml", &["run.duration_ms=-1".into()]).unwrap_err();
//! assert_eq!(err.to_string(), "example.toml: --set run.duration_ms=-1: run.duration_ms: must be > 0 (got -1)");
//! ```

mod crossing;
mod dcb;
mod doc;
mod error;
mod estimate;
mod kinds;
mod network;
mod output;
mod overrides;
mod pairing;
pub mod pcap;
mod port_names;
mod reader;
mod samples;
mod trace;
mod traffic;
mod transport;
mod units;

pub use error::{Origin, ScenarioError};
pub use estimate::{DEFAULT_MAX_MEMORY_GB, DEFAULT_MAX_OUTPUT_GB, Estimate, Limits, NetworkCounts};
pub use output::Compression;
pub use pcap::{DEFAULT_SNAPLEN, PcapWriter};
pub use samples::{DEFAULT_SAMPLE_MEMORY_MB, SpillFile, SpillStatus};
pub use trace::{PcapRequest, TraceError, TraceFiles};

use dcbsim_core::config::{ConfigError, MonitorSpec, SimConfig};
use dcbsim_core::sim::Simulation;
use doc::{Node, Value};
use reader::Table;
use std::path::Path;

/// A validated scenario, ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The scenario file as given (or a display name).
    pub file: String,
    /// `[run].name`, or the file's stem.
    pub name: String,
    /// The scenario as run: the file itself, or after overrides the document written
    /// back as TOML.
    pub toml: String,
    /// What the engine runs.
    pub config: SimConfig,
    /// `[run].seed` (1 by default).
    pub seed: u64,
    /// `[output].sample_memory_mb` in bytes: samples above it are streamed to disk.
    pub sample_memory_bytes: f64,
    /// `[output].max_output_gb` in bytes: the most a run may write to disk.
    pub max_output_bytes: f64,
    /// `[output].compression`: how the run's Parquet tables are compressed.
    pub compression: Compression,
    doc: Node,
    flow_origin: Vec<usize>,
}

/// Reads and validates the scenario file at `path`, after `overrides`, within the
/// default [`Limits`].
pub fn load_file(path: &Path, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    load_file_within(path, overrides, &Limits::default())
}

/// Reads and validates the scenario file at `path`, after `overrides`, within `limits`.
pub fn load_file_within(path: &Path, overrides: &[String], limits: &Limits) -> Result<Scenario, ScenarioError> {
    load_file_built(path, overrides, limits).map(|(scenario, _)| scenario)
}

/// The most bytes of a scenario file read: a larger file (or a device that never
/// ends, such as `/dev/zero`) is refused once that much is read.
pub const MAX_SCENARIO_BYTES: u64 = 256 << 20;

/// The text of the scenario file at `path`, named `file` in messages.
fn read_text(path: &Path, file: &str) -> Result<String, ScenarioError> {
    use std::io::Read;
    let fail = |msg: String| ScenarioError::new(file, &Origin::Nowhere, "", format!("cannot read the scenario: {msg}"));
    let opened = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    let mut bytes = Vec::new();
    opened.take(MAX_SCENARIO_BYTES + 1).read_to_end(&mut bytes).map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(fail(format!("it is larger than {} MiB", MAX_SCENARIO_BYTES >> 20)));
    }
    String::from_utf8(bytes).map_err(|_| fail("stream did not contain valid UTF-8".to_string()))
}

/// Reads and validates a scenario given as text; `file` names it in messages.
pub fn load_str(text: &str, file: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    load_str_within(text, file, overrides, &Limits::default())
}

/// Reads and validates a scenario given as text within `limits`.
pub fn load_str_within(text: &str, file: &str, overrides: &[String], limits: &Limits) -> Result<Scenario, ScenarioError> {
    load_str_built(text, file, overrides, limits).map(|(scenario, _)| scenario)
}

/// [`load_file_within`], keeping the simulation that validating the scenario built
/// (with the scenario's own seed), for a first run that would build the same.
pub fn load_file_built(path: &Path, overrides: &[String], limits: &Limits) -> Result<(Scenario, Simulation), ScenarioError> {
    let file = path.display().to_string();
    let text = read_text(path, &file)?;
    load_str_built(&text, &file, overrides, limits)
}

/// [`load_str_within`], keeping the simulation that validating the scenario built.
pub fn load_str_built(text: &str, file: &str, overrides: &[String], limits: &Limits) -> Result<(Scenario, Simulation), ScenarioError> {
    let mut doc = doc::parse(text).map_err(|(at, msg)| ScenarioError::new(file, &at, "", format!("invalid TOML: {msg}")))?;
    for expr in overrides {
        overrides::apply(&mut doc, expr).map_err(|msg| {
            let key = expr.split_once('=').map_or(expr.as_str(), |(k, _)| k).trim().to_string();
            ScenarioError::new(file, &Origin::Override(expr.clone()), key, msg)
        })?;
    }
    let (config, seed, name, flow_origin, output) = read(&doc, file, limits)?;
    let output::Output { sample_memory_bytes, max_output_bytes, compression } = output;
    let toml = if overrides.is_empty() { text.to_string() } else { toml::to_string(&doc::to_toml(&doc)).unwrap_or_default() };
    let stem = Path::new(file).file_stem().map_or("scenario".to_string(), |s| s.to_string_lossy().into_owned());
    let name = name.unwrap_or(stem);
    let scenario =
        Scenario { file: file.to_string(), name, toml, config, seed, sample_memory_bytes, max_output_bytes, compression, doc, flow_origin };
    scenario.check_queue_target()?;
    scenario.check_memory(limits)?;
    scenario.check_output()?;
    let sim = scenario.build(seed)?;
    Ok((scenario, sim))
}

type Read = (SimConfig, u64, Option<String>, Vec<usize>, output::Output);

fn read(doc: &Node, file: &str, limits: &Limits) -> Result<Read, ScenarioError> {
    let top = Table::new(file, "", doc)?;
    let run = network::read_run(&top.table("run")?.ok_or_else(|| top.error("run", None, "the [run] table is required"))?)?;
    let topo_table = top.table("topology")?.ok_or_else(|| top.error("topology", None, "the [topology] table is required"))?;
    let network = network::read_topology(&topo_table, limits)?;
    let topo = &network.topology;
    let scheme_table = top.table("scheme")?;
    let (scheme, placement, flow_schemes) = network::read_scheme(scheme_table.as_ref(), topo)?;
    let monitor_ports = network::read_monitor(top.table("monitor")?.as_ref(), topo)?;
    let mut flows = traffic::read_flows(&top.tables("flows")?, &run, topo, limits)?;
    let tcp = transport::read_transport(top.table("transport")?.as_ref(), topo)?;
    let incast = transport::read_incast(top.table("incast")?.as_ref(), &run, topo, &mut flows)?;
    let pfc = dcb::read_pfc(top.table("pfc")?.as_ref(), topo)?;
    let ets = dcb::read_ets(top.table("ets")?.as_ref(), topo)?;
    let arrivals = traffic::read_arrivals(&top.tables("arrivals")?, &run, topo, flows.specs.len() as u64, limits)?;
    let timeline = traffic::read_timeline(&top.tables("timeline")?, &run, topo, &flows, &scheme)?;
    let output = output::read_output(top.table("output")?.as_ref())?;
    top.get("sweep"); // read by the sweep runner, not by the engine
    top.finish(&[
        "run",
        "topology",
        "scheme",
        "transport",
        "incast",
        "monitor",
        "flows",
        "arrivals",
        "timeline",
        "sweep",
        "pfc",
        "ets",
        "output",
    ])?;
    let templates: Vec<_> = arrivals.iter().map(|a| a.flow.clone()).collect();
    check_buffers(file, &network, &[flows.specs.as_slice(), templates.as_slice()].concat())?;
    let mut config = SimConfig::new(run.duration);
    config.nodes = network.topology.nodes.clone();
    config.links = network.topology.links.clone();
    config.flows = flows.specs;
    config.arrivals = arrivals;
    config.timeline = timeline;
    config.scheme = scheme;
    config.congestion_points = placement;
    config.flow_schemes = flow_schemes;
    config.tcp = tcp;
    config.pfc = pfc;
    config.ets = ets;
    config.routing = network.routing;
    config.incast = incast;
    config.notification_bytes = run.notification_bytes;
    config.notification_latency = run.notification_latency;
    config.departure_timing = run.departure_timing;
    config.threads = run.threads;
    config.monitor = MonitorSpec { sample_interval: run.sample_interval, ports: monitor_ports };
    port_names::check(doc, file, &config)?;
    Ok((config, run.seed, run.name, flows.origin, output))
}

/// Every switch buffer must hold the largest frame.
fn check_buffers(file: &str, network: &network::Network, flows: &[dcbsim_core::config::FlowSpec]) -> Result<(), ScenarioError> {
    let largest = flows.iter().map(|f| f.frame_bytes as u64).max().unwrap_or(0);
    for (link, (key, node)) in network.topology.links.iter().zip(&network.buffer_keys) {
        if link.buffer.0 < largest {
            let at = node.as_ref().map_or(Origin::Nowhere, |n| n.at.clone());
            let msg = format!("a buffer of {} bytes cannot hold a {largest}-byte frame", link.buffer.0);
            return Err(ScenarioError::new(file, &at, key.clone(), msg));
        }
    }
    Ok(())
}

impl Scenario {
    /// What the run will need: memory (its samples at most `output.sample_memory_mb`
    /// when they are streamed) and events.
    pub fn estimate(&self) -> Estimate {
        Estimate::of(&self.config).within_sample_budget(self.sample_memory_bytes)
    }

    /// Whether the run streams its samples to disk: they would take more memory than
    /// `output.sample_memory_mb`.
    pub fn streams_samples(&self) -> bool {
        Estimate::of(&self.config).samples_bytes > self.sample_memory_bytes
    }

    /// Bytes the run will write to disk: its results file, and the file its samples
    /// stream to while it runs when they do.
    pub fn output_bytes(&self) -> f64 {
        Estimate::of(&self.config).output_bytes(self.streams_samples())
    }

    /// Refuses a run whose results would exceed `output.max_output_gb`, at the
    /// sample interval (or the duration, where the interval is the default).
    fn check_output(&self) -> Result<(), ScenarioError> {
        let bytes = self.output_bytes();
        if bytes <= self.max_output_bytes {
            return Ok(());
        }
        let estimate = Estimate::of(&self.config);
        let key = if find_node(&self.doc, "run.sample_interval_us").is_some() { "run.sample_interval_us" } else { "run.duration_ms" };
        let msg = format!(
            "the run would write about {:.3} GB of results ({:.4e} sampled values), above the limit of {} GB; lengthen run.sample_interval_us, shorten the run or monitor fewer ports, or raise the limit with output.max_output_gb",
            bytes / 1e9,
            estimate.sampled_values,
            self.max_output_bytes / 1e9
        );
        Err(ScenarioError::new(&self.file, &find(&self.doc, key), key, msg))
    }

    /// Refuses a run whose estimated memory exceeds `limits`, at the key to change.
    fn check_memory(&self, limits: &Limits) -> Result<(), ScenarioError> {
        let estimate = self.estimate();
        let Some(msg) = estimate.check(limits) else { return Ok(()) };
        let key = match () {
            _ if estimate.arrivals_dominate() => "arrivals",
            _ if estimate.samples_dominate() => "run.duration_ms",
            _ => "topology",
        };
        Err(ScenarioError::new(&self.file, &find(&self.doc, key), key, msg))
    }

    /// A queue target (`q_eq`) the scenario sets must fit in the buffer of every port
    /// with a congestion point.
    fn check_queue_target(&self) -> Result<(), ScenarioError> {
        let Some(q_eq) = self.config.scheme.queue_target() else { return Ok(()) };
        let scheme = self.config.scheme.name();
        let keys = ["q_eq_kb", "q_eq_bytes"].into_iter().flat_map(|k| [format!("scheme.{k}"), format!("scheme.{scheme}.{k}")]);
        let Some(key) = keys.into_iter().find(|k| find_node(&self.doc, k).is_some()) else { return Ok(()) };
        let switch = |n: usize| self.config.nodes[n].kind == dcbsim_core::config::NodeKind::Switch;
        let on_cp = |a: usize, b: usize| match &self.config.congestion_points {
            dcbsim_core::config::CpPlacement::AllSwitchPorts => switch(a),
            dcbsim_core::config::CpPlacement::Ports(list) => list.iter().any(|p| (p.node, p.peer) == (a, b)),
        };
        let small = self.config.links.iter().find(|l| l.buffer.0 < q_eq && (on_cp(l.a, l.b) || on_cp(l.b, l.a)));
        let Some(link) = small else { return Ok(()) };
        let names = (&self.config.nodes[link.a].name, &self.config.nodes[link.b].name);
        let msg =
            format!("{q_eq} bytes is above the {}-byte buffer of the congestion point on link {}-{}", link.buffer.0, names.0, names.1);
        Err(ScenarioError::new(&self.file, &find(&self.doc, &key), key, msg))
    }

    /// Builds the simulation with `seed`, reporting engine-level faults (such as an
    /// unreachable destination) at the key they come from.
    pub fn build(&self, seed: u64) -> Result<Simulation, ScenarioError> {
        Simulation::new(self.config.clone(), seed).map_err(|e| self.locate(&e))
    }

    /// Maps an engine error's key path back to the scenario file.
    fn locate(&self, err: &ConfigError) -> ScenarioError {
        let path = self.file_path(&err.path);
        let at = find(&self.doc, &path);
        ScenarioError::new(&self.file, &at, path, err.message.clone())
    }

    /// Rewrites `flows[i]` (the engine's flow index) to the `[[flows]]` entry it came from.
    fn file_path(&self, path: &str) -> String {
        let Some(rest) = path.strip_prefix("flows[") else { return path.to_string() };
        let Some((index, tail)) = rest.split_once(']') else { return path.to_string() };
        match index.parse::<usize>().ok().and_then(|i| self.flow_origin.get(i)) {
            Some(origin) => format!("flows[{origin}]{tail}"),
            None => path.to_string(),
        }
    }
}

/// The node at `path` in the document, if there is one.
fn find_node<'a>(doc: &'a Node, path: &str) -> Option<&'a Node> {
    let steps = overrides::parse_path(path).ok()?;
    let mut node = doc;
    for step in steps {
        node = match (step, &node.value) {
            (overrides::Step::Key(k), Value::Table(entries)) => &entries.iter().find(|e| e.key == k)?.node,
            (overrides::Step::Index(i), Value::Array(items)) => items.get(i)?,
            _ => return None,
        };
    }
    Some(node)
}

/// The position of `path` in the document, or of its deepest existing parent.
fn find(doc: &Node, path: &str) -> Origin {
    let Ok(steps) = overrides::parse_path(path) else { return Origin::Nowhere };
    let mut node = doc;
    let mut at = Origin::Nowhere;
    for step in steps {
        let next = match (step, &node.value) {
            (overrides::Step::Key(k), Value::Table(entries)) => entries.iter().find(|e| e.key == k).map(|e| &e.node),
            (overrides::Step::Index(i), Value::Array(items)) => items.get(i),
            _ => None,
        };
        match next {
            Some(n) => {
                node = n;
                at = n.at.clone();
            }
            None => break,
        }
    }
    at
}
