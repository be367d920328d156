import { shareUsedCell } from "@tranche/contracts/format";
import type { QueueRatio } from "@tranche/domain";
import { plural } from "../../../../lib/words";

/**
 * The live queue's fair-share panel. Both ratios of every budget: the 7-day ratio (usage ÷ entitlement so far) and the projected ratio,
 * which adds an hour of the GPUs it holds now: the projected one orders the queue once budgets under
 * their share have gone first (R2) and is the one reasons quote, so the two differ most for budgets
 * running a lot right now. Each reads in the Budgets page's and the CLI's words ("27% of its share",
 * "no share here"), not a bare 0.27.
 */
export function Ratios({ ratios }: { ratios: QueueRatio[] }) {
  if (ratios.length === 0)
    return <div className="panel-body muted small">Fair-share ratios appear after the first scheduling cycle.</div>;
  const max = Math.max(2, ...ratios.map((r) => (r.ratio !== null && r.depth > 0 ? r.ratio : 0)));
  return (
    <div className="panel-body" style={{ maxHeight: 640, overflow: "auto" }}>
      <div className="ratio-row ratio-head small muted">
        <span>Budget</span>
        <span />
        <span className="num" title="Usage ÷ entitlement over the last 7 days">
          Share used (7 d)
        </span>
        <span className="num" title="With an hour of the GPUs it holds now added: this orders the queue">
          Share used now (projected)
        </span>
      </div>
      {ratios
        .filter((r) => r.depth > 0)
        .map((r) => (
          <div
            key={r.treeNodeId}
            className="ratio-row"
            title={`usage ${Math.round(r.usageGpuSeconds / 3600)} GPU·h / entitlement ${Math.round(r.entitlementGpuSeconds / 3600)} GPU·h · holds ${plural(r.heldGpus, "GPU")}`}
          >
            <span className="ellipsis" style={{ paddingLeft: (r.depth - 1) * 14, fontWeight: r.depth === 1 ? 650 : 400 }}>
              {r.name}
            </span>
            <span className={`meter ${r.ratio !== null && r.ratio > 1 ? "over" : ""}`}>
              <span style={{ width: `${r.ratio === null ? 100 : Math.min(100, (r.ratio / max) * 100)}%` }} />
              <i className="mark" style={{ left: `${(1 / max) * 100}%` }} />
            </span>
            <span className="num small" data-testid={`ratio-7d-${r.path}`}>
              {shareUsedCell(r.ratio)}
            </span>
            <span className="num small strong" data-testid={`ratio-projected-${r.path}`}>
              {shareUsedCell(r.projectedRatio)}
            </span>
          </div>
        ))}
      <p className="small muted" style={{ marginBottom: 0 }}>
        7-day ratio = usage ÷ entitlement over the last 7 days; the bar&apos;s mark is exactly its share. The projected ratio adds
        an hour of the GPUs the budget holds now. Budgets holding less than their share of the cluster go first; among them, and
        after them, the lower projected ratio goes first. Reasons say the projected ratio in words: how much of its share a budget
        has used, counting the next hour of what it runs now.
      </p>
    </div>
  );
}
