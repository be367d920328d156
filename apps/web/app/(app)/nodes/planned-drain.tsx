"use client";
import { useState } from "react";
import { maintenanceTimeWords } from "@tranche/contracts";
import type { NodeView } from "@tranche/domain";
import { cancelDrainPlanQuestion, drainQuestion } from "../../../lib/confirm-words";

/** "maintenance at Sat 12 Dec 02:00 (driver 560, planned by Olga)" in the reader's zone; null without a plan. */
export function planWords(n: NodeView): string | null {
  if (!n.drainAt) return null;
  const about = [n.drainReason, n.drainPlannedBy ? `planned by ${n.drainPlannedBy}` : null].filter(Boolean).join(", ");
  return `maintenance at ${maintenanceTimeWords(n.drainAt)}${about ? ` (${about})` : ""}`;
}

/**
 * The Drain button with its "now / at a time" choice (R8's planned drain), and a node's plan with its
 * cancel, which asks first. The time is the browser's local time, sent with its zone.
 */
export function DrainControls({
  node,
  drainNow,
  planDrain,
  cancelPlan,
}: {
  node: NodeView;
  drainNow: () => void;
  planDrain: (at: string) => void;
  cancelPlan: () => void;
}) {
  const [mode, setMode] = useState<"now" | "at">("now");
  const [at, setAt] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const open = node.state === "READY" || node.state === "CORDONED";
  const planned = planWords(node);
  // A plan stops nothing now: it asks nothing. A drain now asks first when jobs would be stopped.
  const plan = () => {
    const when = at === "" ? null : new Date(at);
    if (when === null || Number.isNaN(when.getTime())) return setProblem("Give the date and time it drains at.");
    if (when.getTime() <= Date.now()) return setProblem("That time has passed: give one to come, or drain now.");
    setProblem(null);
    planDrain(when.toISOString());
  };
  return (
    <div className="stack" style={{ gap: "0.4rem" }} data-testid="drain-controls">
      {planned ? (
        <div className="small" data-testid="drain-plan">
          Planned: {planned}.{" "}
          <button
            type="button"
            className="btn"
            onClick={() => {
              if (confirm(cancelDrainPlanQuestion(node.name, planned))) cancelPlan();
            }}
          >
            Cancel plan
          </button>
        </div>
      ) : null}
      <div className="row" style={{ gap: "0.5rem", alignItems: "center" }} role="group" aria-label="When to drain">
        <label className="small nowrap">
          <input type="radio" name="drain-when" checked={mode === "now"} onChange={() => setMode("now")} /> now
        </label>
        <label className="small nowrap">
          <input type="radio" name="drain-when" checked={mode === "at"} onChange={() => setMode("at")} /> at a time
        </label>
        {mode === "at" ? (
          <input
            className="input"
            type="datetime-local"
            aria-label="Drain at (your local time)"
            value={at}
            onChange={(e) => setAt(e.target.value)}
          />
        ) : null}
        {mode === "at" ? (
          <button className="btn" disabled={!open} onClick={plan}>
            Plan drain
          </button>
        ) : (
          <button
            className="btn danger"
            disabled={!open}
            onClick={() => {
              if (node.usedGpus === 0 || confirm(drainQuestion(node.name))) drainNow();
            }}
          >
            Drain
          </button>
        )}
      </div>
      {problem ? (
        <div className="alert bad" role="alert">
          {problem}
        </div>
      ) : null}
    </div>
  );
}
