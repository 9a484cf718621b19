//! The simulation: builds the network from a [`SimConfig`] and runs the event loop.

use crate::config::{ConfigError, SimConfig};
use crate::report::RunReport;
use crate::units::Time;

/// One run of the engine.
pub struct Simulation {
    config: SimConfig,
    now: Time,
}

impl Simulation {
    /// Builds the network; fails when the configuration cannot run.
    pub fn new(config: SimConfig, seed: u64) -> Result<Simulation, ConfigError> {
        let _ = seed;
        Ok(Simulation { config, now: Time::ZERO })
    }
    /// The configuration being run.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }
    /// The current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }
    /// Executes every event up to and including `until` (capped at the run's end).
    pub fn run_until(&mut self, until: Time) {
        self.now = until.min(self.config.duration);
    }
    /// Runs to the end and reports.
    pub fn run(mut self) -> RunReport {
        self.run_until(self.config.duration);
        self.finish()
    }
    /// Stops here and reports.
    pub fn finish(self) -> RunReport {
        RunReport::default()
    }
}
