"use client";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { protectionWords, sshInstructions, type JobView } from "@tranche/contracts";
import { useTRPC } from "../../../../lib/trpc";
import { errorText } from "../../../../lib/error-text";
import { until } from "../../../../components/ui";

const EXTENSIONS = ["30m", "1h", "2h", "4h"];

/**
 * An interactive session, for its owner: where to open it (the web app's proxy, which sends the browser
 * to the sessions host), how long it stays protected, "extend", a warning while it is being preempted,
 * and how to reach it over SSH.
 */
export function SessionPanel({ job, now, onChange }: { job: JobView; now: number; onChange: () => void }) {
  const trpc = useTRPC();
  const s = job.session!;
  const [by, setBy] = useState("1h");
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const extend = useMutation(
    trpc.job.extend.mutationOptions({
      onSuccess: (j) => {
        setMsg({ ok: true, text: `Extended: ${protectionWords(j.protectedUntil, Date.now())}.` });
        onChange();
      },
      onError: (e) => setMsg({ ok: false, text: errorText(e) }),
    }),
  );
  const reachable = job.state === "RUNNING" && s.port !== null;
  const ssh = sshInstructions(job.id, s);
  const where = s.dir ? <code>{s.dir}</code> : "its working folder on the shared checkpoint folder";

  return (
    <section className="panel" data-testid="session-panel">
      <div className="panel-head">
        <h2>Session · {s.server === "JUPYTER" ? "Jupyter" : "shell"}</h2>
        {s.node ? <span className="muted">on {s.node}</span> : null}
      </div>
      <div className="panel-body stack">
        {job.state === "STOPPING" ? (
          <div className="alert warn" data-testid="session-preempting">
            This session is being stopped:{" "}
            {until(job.graceUntil, now) === "now"
              ? "its grace period to save its work is over"
              : `it has ${until(job.graceUntil, now)} to save its work (its grace period)`}
            . Files in {where} are kept; a preempted session waits for GPUs and comes back with them.
          </div>
        ) : null}
        {job.state === "PENDING" || job.state === "HELD" ? (
          <p>Waiting for GPUs. Its files in {where} are kept and will be there when it starts.</p>
        ) : null}
        {reachable ? (
          <>
            <p>
              <a className="btn primary" href={s.proxyPath} target="_blank" rel="noreferrer" data-testid="open-session">
                Open the session
              </a>{" "}
              <span className="muted small">only you can open it; it opens on an address of its own, apart from Tranche</span>
            </p>
            {s.server === "JUPYTER" ? (
              <p className="small muted">
                Notebooks need a WebSocket to their kernel, which the web app does not carry: use the SSH tunnel below to run
                them.
              </p>
            ) : null}
          </>
        ) : job.state === "RUNNING" ? (
          <p className="muted">Its server is starting…</p>
        ) : null}
        {job.state === "RUNNING" ? (
          <div>
            <p data-testid="session-protection">
              <strong>{protectionWords(job.protectedUntil, now).replace(/^./, (c) => c.toUpperCase())}.</strong>{" "}
              {job.protectedUntil && Date.parse(job.protectedUntil) > now
                ? "After that a budget further below its share may preempt it; you get a notice with its grace period first."
                : "You get a notice with its grace period before it is stopped."}
            </p>
            <form
              className="row"
              onSubmit={(e) => {
                e.preventDefault();
                setMsg(null);
                extend.mutate({ id: job.id, by });
              }}
            >
              <label htmlFor="extend-by">Extend by</label>
              <select
                id="extend-by"
                className="select"
                value={by}
                onChange={(e) => setBy(e.target.value)}
                style={{ width: "auto" }}
              >
                {EXTENSIONS.map((x) => (
                  <option key={x} value={x}>
                    {x.replace("m", " min").replace("h", " h")}
                  </option>
                ))}
              </select>
              <button className="btn" type="submit" disabled={extend.isPending}>
                Extend
              </button>
              <span className="small muted">
                a new contract, charged to {job.budget}; the cluster caps how long a run may be protected
              </span>
            </form>
            {msg ? (
              <div
                className={`alert ${msg.ok ? "ok" : "bad"}`}
                role={msg.ok ? "status" : "alert"}
                style={{ marginTop: "0.5rem" }}
              >
                {msg.text}
              </div>
            ) : null}
          </div>
        ) : null}
        {ssh.length > 0 ? (
          <div>
            <strong>Over SSH</strong>
            <pre className="command" data-testid="session-ssh">
              {ssh.join("\n")}
            </pre>
          </div>
        ) : null}
        <p className="small muted">
          A session that keeps its GPUs under 5% busy for 30 minutes is flagged as likely squatting, like any job.
        </p>
      </div>
    </section>
  );
}
