//! Before a run: what to record (packet traces, time series, packet
//! captures), checked against the scenario.

use super::*;

impl World {
    /// Start recording what `obs` asks for (before the run).
    pub fn observe(&mut self, s: &Scenario, seed: u64, obs: Observe) -> Result<(), RunError> {
        let n_flows = s.flows.len();
        for &f in obs.trace_flows.iter().chain(&obs.series_flows) {
            if f >= n_flows {
                return Err(RunError(format!("cannot trace flow {f}: the scenario has {n_flows} flows")));
            }
        }
        for &l in obs.series_links.iter().chain(obs.pcaps.iter().map(|p| &p.link)) {
            if l >= s.links.len() {
                return Err(RunError(format!("cannot trace link {l}: the scenario has {} links", s.links.len())));
            }
        }
        for &f in &obs.trace_flows {
            self.trace_flow(f);
        }
        if !obs.series_flows.is_empty() || !obs.series_links.is_empty() {
            let flows: Vec<(usize, String)> = obs.series_flows.iter().map(|&f| (f, s.flows[f].name.clone())).collect();
            let mut channels = Vec::new();
            for &l in &obs.series_links {
                for (k, dir) in ["fwd", "rev"].iter().enumerate() {
                    // Its queue is sampled at every change, each end of
                    // transmission included: no replayed ends (net::channel).
                    self.channels[2 * l + k].lazy_backlog = false;
                    channels.push((2 * l + k, format!("{}:{dir}", s.links[l].name)));
                }
            }
            let rec = Recorder::new(
                n_flows,
                self.channels.len(),
                &flows,
                &channels,
                obs.series_max_records,
                obs.series_variables,
            );
            self.series = Some(Box::new(rec));
        }
        if !obs.pcaps.is_empty() {
            let wires: Vec<FlowWire> = s
                .flows
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let isn = |end: &str| StreamRng::new(seed, &format!("flow/{}/isn/{end}", f.name)).next_u64() as u32;
                    FlowWire {
                        src: f.src as u32,
                        dst: f.dst as u32,
                        isn_snd: isn("snd"),
                        isn_rcv: isn("rcv"),
                        mss: f.tcp.mss,
                        sack: f.variant.spec().uses_sack(),
                        timestamps: f.tcp.timestamps,
                        ecn: self.flows[i].sender.ecn_capable(),
                        rwnd: f.receiver.window,
                    }
                })
                .collect();
            for req in obs.pcaps {
                let name = &s.links[req.link].name;
                let w = PcapWriter::new(req.out, name, wires.clone())
                    .map_err(|e| RunError(format!("cannot write the capture of link '{name}': {e}")))?;
                let w = std::sync::Arc::new(std::sync::Mutex::new(w));
                for (k, on) in [req.fwd, req.rev].into_iter().enumerate() {
                    if on {
                        // Captured as they leave, in time order: no replayed
                        // ends (net::channel's rule, which asks for no capture).
                        let c = &mut self.channels[2 * req.link + k];
                        c.capture = Some(w.clone());
                        c.lazy_backlog = c.lazy_backlog && c.backlog_ends_lazily();
                    }
                }
                self.captures.push(w);
            }
        }
        Ok(())
    }
}
