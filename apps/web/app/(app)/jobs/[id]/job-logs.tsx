"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { formatBytes, prefixNodeLines, type JobLogPage, type LogChunkView } from "@tranche/contracts";
import { useTRPC } from "../../../../lib/trpc";
import { logEmptyText, logFollowText } from "../../../../lib/words";
import { Empty } from "../../../../components/ui";
import { errorText } from "../../../../lib/error-text";

/** Chunks shown at most: following a chatty job keeps the newest, the rest stays a click away. */
const SHOWN_MAX = 4000;
const PAGE = 500;
const FOLLOW_MS = 2000;

type Chunk = LogChunkView & { id: string };

const withIds = (p: JobLogPage): Chunk[] => p.chunks.map((c) => ({ ...c, id: c.cursor }));

/**
 * The job's log as `tail -f` shows it: the end, followed live while the job runs. One can stop
 * following, read back page by page, jump to the start, or download the whole kept log. When the
 * retention dropped older output the panel says so.
 */
export function JobLogs({ id, running }: { id: number; running: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [chunks, setChunks] = useState<Chunk[]>([]);
  const [older, setOlder] = useState<string | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [follow, setFollow] = useState(true);
  const [atEnd, setAtEnd] = useState(true);
  const [dropped, setDropped] = useState(0);
  const [loaded, setLoaded] = useState(false);
  // Whether the kept log is whole: the job is over and its agent uploaded its last output.
  const [complete, setComplete] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Bumped after every poll: a poll that brought nothing leaves `next` as it was, and without this the
  // follow effect would never run again (the page stopped at the first quiet moment of a job's output).
  const [polls, setPolls] = useState(0);
  const box = useRef<HTMLPreElement>(null);

  const fetchPage = useCallback(
    (q: { after?: string; before?: string }) =>
      qc.fetchQuery({ ...trpc.job.logs.queryOptions({ id, limit: PAGE, ...q }), staleTime: 0 }),
    [qc, trpc, id],
  );
  const take = (p: JobLogPage) => {
    setDropped(p.droppedBytes);
    setComplete(p.complete);
    setError(null);
    setLoaded(true);
  };

  const toEnd = useCallback(async () => {
    try {
      const p = await fetchPage({});
      take(p);
      setChunks(withIds(p));
      setOlder(p.older);
      setNext(p.next);
      setAtEnd(true);
      setFollow(true);
    } catch (e) {
      setError(errorText(e));
    }
  }, [fetchPage]);

  useEffect(() => {
    void toEnd();
  }, [toEnd]);

  // Following: poll for what came after the last chunk shown; the newest SHOWN_MAX chunks stay.
  useEffect(() => {
    if (!follow || !atEnd || next === null) return;
    let stop = false;
    const t = setTimeout(async () => {
      // Poll again unless the job is over and its log is complete (nothing more can come).
      let again = true;
      try {
        const p = await fetchPage({ after: next });
        if (stop) return;
        again = running || !p.complete;
        take(p);
        if (p.chunks.length > 0) {
          setChunks((cs) => {
            const all = [...cs, ...withIds(p)];
            if (all.length <= SHOWN_MAX) return all;
            const kept = all.slice(all.length - SHOWN_MAX);
            setOlder(kept[0]!.cursor);
            return kept;
          });
        }
        setNext(p.next);
      } catch (e) {
        if (!stop) setError(errorText(e));
      }
      if (!stop && again) setPolls((n) => n + 1);
    }, FOLLOW_MS);
    return () => {
      stop = true;
      clearTimeout(t);
    };
  }, [follow, atEnd, next, fetchPage, polls, running]);

  useEffect(() => {
    if (follow && atEnd && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [chunks, follow, atEnd]);

  const earlier = async () => {
    if (older === null) return;
    const p = await fetchPage({ before: older });
    take(p);
    setFollow(false);
    setChunks((cs) => [...withIds(p), ...cs]);
    setOlder(p.older);
  };
  const fromStart = async () => {
    const p = await fetchPage({ after: "0" });
    take(p);
    setFollow(false);
    setAtEnd(false);
    setChunks(withIds(p));
    setOlder(null);
    setNext(p.next);
  };
  const later = async () => {
    if (next === null) return;
    const p = await fetchPage({ after: next });
    take(p);
    setChunks((cs) => [...cs, ...withIds(p)]);
    setNext(p.next);
    if (p.chunks.length < PAGE) setAtEnd(true);
  };

  // Following a finished job's complete log would wait for output that cannot come.
  const live = running || !complete;

  return (
    <>
      <div className="panel-body row small" style={{ gap: "0.5rem", paddingBottom: 0 }}>
        {!atEnd ? (
          <button className="btn small" onClick={() => void toEnd()}>
            {live ? "Go to the end and follow" : "Go to the end"}
          </button>
        ) : live ? (
          <button className="btn small" onClick={() => setFollow(!follow)} aria-pressed={follow}>
            {follow ? "Stop following" : "Follow"}
          </button>
        ) : null}
        <button className="btn small" onClick={() => void fromStart()}>
          Jump to start
        </button>
        <a className="btn small" href={`/api/v1/jobs/${id}/logs/download`} download>
          Download whole log
        </a>
        <span className="muted" data-testid="log-follow-state">
          {logFollowText({ live, atEnd, follow, running })}
        </span>
      </div>
      {dropped > 0 ? (
        <div className="panel-body small muted" data-testid="log-dropped" style={{ paddingBottom: 0 }}>
          {formatBytes(dropped)} of older output was dropped to keep this job&apos;s log within its limit; the full output is in
          the job&apos;s log files on its nodes.
        </div>
      ) : null}
      {error ? <div className="alert bad">{error}</div> : null}
      {chunks.length > 0 ? (
        <pre
          className="logs"
          data-testid="job-logs"
          ref={box}
          onScroll={(e) => {
            const el = e.currentTarget;
            // Scrolling up to read stops following; scrolling back to the bottom resumes it.
            const bottom = el.scrollHeight - el.scrollTop - el.clientHeight < 8;
            if (atEnd && bottom !== follow) setFollow(bottom);
          }}
        >
          {older !== null ? (
            <button className="btn small" onClick={() => void earlier()} style={{ marginBottom: "0.4rem" }}>
              Show earlier output
            </button>
          ) : null}
          {prefixNodeLines(chunks).map((l) => (
            <span key={l.id} className={l.stream === "stderr" ? "stderr" : undefined}>
              {l.shown}
            </span>
          ))}
          {!atEnd ? (
            <button className="btn small" onClick={() => void later()} style={{ marginTop: "0.4rem", display: "block" }}>
              Show later output
            </button>
          ) : null}
        </pre>
      ) : loaded ? (
        live ? (
          <Empty title="No output yet">{logEmptyText(running)}</Empty>
        ) : (
          <Empty title="No output">The job printed nothing that was kept.</Empty>
        )
      ) : error ? null : (
        <div className="panel-body">
          <span className="skeleton" style={{ display: "block", height: "4rem" }} aria-label="Loading" />
        </div>
      )}
    </>
  );
}
