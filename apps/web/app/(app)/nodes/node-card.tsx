import type { NodeView } from "@tranche/domain";
import { StateBadge, ago, colorFor } from "../../../components/ui";
import { nodeStateText } from "../../../lib/words";
import { planWords } from "./planned-drain";

function GpuGrid({ n, colors }: { n: NodeView; colors: Map<string, string> }) {
  const off = n.state === "DOWN" || n.state === "REPAIR" || n.state === "RETIRED";
  return (
    <div className="gpus" style={{ gridTemplateColumns: `repeat(${Math.min(8, n.gpuCount)}, 1fr)` }}>
      {n.gpus.map((g) => (
        <span
          key={g.index}
          className={`gpu ${g.jobId !== null && g.charged === false ? "unalloc" : ""} ${off && g.jobId === null ? "off" : ""} ${g.squattingSince ? "squatting" : ""}`}
          style={g.budget ? { background: colors.get(g.budget) ?? colorFor(g.budget), borderColor: "transparent" } : undefined}
          title={
            g.jobId !== null
              ? `GPU ${g.index}: job #${g.jobId} ${g.jobName ?? ""} · ${g.budget} · ${g.user}${g.charged ? "" : " (unallocated)"}${g.squattingSince ? " · likely squatting: under 5% busy for 30 minutes" : ""}`
              : `GPU ${g.index}: ${off ? nodeStateText(n.state) : "free"}`
          }
        />
      ))}
    </div>
  );
}

/**
 * One node on the Nodes page: its GPUs coloured by budget, how many are in use and its agent's last
 * heartbeat. A retired node (listed only with "Show retired nodes") is greyed and says since when it is
 * retired: its agent is refused, so a heartbeat would say nothing.
 */
export function NodeCard({
  node: n,
  colors,
  selected,
  now,
  onSelect,
}: {
  node: NodeView;
  colors: Map<string, string>;
  selected: boolean;
  now: number;
  onSelect: () => void;
}) {
  const retired = n.state === "RETIRED";
  return (
    <button
      type="button"
      className={`node-card s-${n.state}`}
      aria-pressed={selected}
      data-testid={`node-${n.name}`}
      onClick={onSelect}
    >
      <div className="node-top">
        <span className="node-name">{n.name}</span>
        <StateBadge state={n.state} />
      </div>
      <GpuGrid n={n} colors={colors} />
      {n.drainAt ? (
        <div className="small" data-testid={`plan-${n.name}`}>
          {planWords(n)}
        </div>
      ) : null}
      <div className="small muted" style={{ marginTop: "0.35rem", display: "flex", justifyContent: "space-between" }}>
        <span>
          {n.usedGpus}/{n.gpuCount} in use
        </span>
        <span>
          {retired ? (
            `retired ${ago(n.stateChangedAt, now)}`
          ) : n.health === "UNHEALTHY" ? (
            <span className="error">unhealthy</span>
          ) : n.lastHeartbeatAt ? (
            // The heart is a picture of a heartbeat: a screen reader says the words instead.
            <span title="Last heartbeat from its agent">
              <span aria-hidden>♥</span>
              <span className="sr-only">last heartbeat</span> {ago(n.lastHeartbeatAt, now)}
            </span>
          ) : (
            "no agent yet"
          )}
        </span>
      </div>
    </button>
  );
}
