"use client";
import { useEffect, useRef, useState } from "react";
import { formatPpm } from "@tranche/contracts";
import { colorFor } from "../../../components/ui";
import { segmentLabel } from "../../../lib/budget-shares";

export const PPM = 1_000_000;
const STEP = 5_000; // drag snaps to 0.5%
const KEY_STEP = 10_000; // arrow keys move 1%; shift+arrow 0.1%

export interface StripItem {
  id: string;
  name: string;
  path: string;
  ppm: number;
}

/**
 * The strip's width in pixels and a measure of text in its segments' font, once it is on screen (and
 * again whenever it is resized), so each segment writes only the label that fits it.
 */
function useStripMetrics(ref: React.RefObject<HTMLDivElement | null>) {
  const [metrics, setMetrics] = useState<{ width: number; textWidth: (text: string) => number } | null>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ctx = document.createElement("canvas").getContext("2d");
    const read = () => {
      // The segments' font (.alloc-seg) from a segment of this strip, else from the strip itself.
      const cs = getComputedStyle(el.querySelector(".alloc-seg") ?? el);
      if (ctx) ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      // Without a canvas, a generous estimate: more often the share alone than a name cut short.
      const textWidth = (text: string) => (ctx ? ctx.measureText(text).width : text.length * parseFloat(cs.fontSize));
      setMetrics({ width: el.clientWidth, textWidth });
    };
    read();
    const ro = new ResizeObserver(read);
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return metrics;
}

/**
 * The children of one tree node as one strip: each child's allocation is a segment, the rest of the
 * parent (unassigned) is hatched. Dragging the boundary after child k moves share between child k and
 * child k+1 (or the unassigned rest after the last child), so the sum never exceeds 100%; values stay
 * integer ppm. Each boundary is a focusable slider (arrow keys) for keyboard users. A segment writes
 * its name and share only where they fit (else the share alone, else nothing): its tooltip and the
 * share boxes under the strip name it.
 */
export function AllocationStrip({
  items,
  editable,
  onChange,
  selected,
  onSelect,
}: {
  items: StripItem[];
  editable: boolean;
  onChange: (next: StripItem[]) => void;
  selected?: string | null;
  onSelect?: (id: string) => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const metrics = useStripMetrics(ref);
  const total = items.reduce((s, i) => s + i.ppm, 0);
  // Over 100% (typed shares can be), the strip spans the sum so segments never overlap and every handle
  // stays on the strip; a mark shows where 100% is.
  const scale = Math.max(PPM, total);

  const move = (k: number, delta: number) => {
    const next = items.map((i) => ({ ...i }));
    const a = next[k]!;
    const b = next[k + 1];
    const room = b ? b.ppm : PPM - total;
    const d = Math.max(-a.ppm, Math.min(room, delta));
    if (d === 0) return;
    a.ppm += d;
    if (b) b.ppm -= d;
    onChange(next);
  };

  const startDrag = (k: number, e: React.PointerEvent<HTMLButtonElement>) => {
    if (!editable || !ref.current) return;
    e.preventDefault();
    const rect = ref.current.getBoundingClientRect();
    const before = items.slice(0, k).reduce((s, i) => s + i.ppm, 0);
    const items0 = items.map((i) => ({ ...i }));
    const a0 = items0[k]!.ppm;
    const b0 = items0[k + 1]?.ppm;
    const maxA = a0 + (b0 ?? PPM - total);
    const handle = e.currentTarget;
    handle.setPointerCapture(e.pointerId);
    const onMove = (ev: PointerEvent) => {
      const x = Math.max(0, Math.min(rect.width, ev.clientX - rect.left));
      const at = Math.round(((x / rect.width) * scale) / STEP) * STEP;
      const want = Math.max(0, Math.min(maxA, at - before));
      const next = items0.map((i) => ({ ...i }));
      next[k]!.ppm = want;
      if (b0 !== undefined) next[k + 1]!.ppm = b0 - (want - a0);
      onChange(next);
    };
    const onUp = () => {
      handle.removeEventListener("pointermove", onMove);
      handle.removeEventListener("pointerup", onUp);
      handle.removeEventListener("pointercancel", onUp);
    };
    handle.addEventListener("pointermove", onMove);
    handle.addEventListener("pointerup", onUp);
    handle.addEventListener("pointercancel", onUp);
  };

  let cum = 0;
  return (
    <div className="alloc-strip" ref={ref} data-testid="alloc-strip">
      {items.map((it) => (
        <div
          key={it.id}
          className={`alloc-seg ${selected === it.id ? "selected" : ""}`}
          style={{ width: `${(it.ppm / scale) * 100}%`, background: colorFor(it.path) }}
          title={`${it.name}: ${formatPpm(it.ppm)}`}
          onClick={() => onSelect?.(it.id)}
        >
          {metrics ? segmentLabel(it.name, formatPpm(it.ppm), (it.ppm / scale) * metrics.width, metrics.textWidth) : ""}
        </div>
      ))}
      {items.map((it, k) => {
        cum += it.ppm;
        return (
          <button
            key={`h-${it.id}`}
            type="button"
            className="alloc-handle"
            style={{ left: `${(cum / scale) * 100}%` }}
            disabled={!editable}
            role="slider"
            aria-label={`Boundary after ${it.name}`}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Number((it.ppm / 10_000).toFixed(2))}
            aria-valuetext={`${it.name} ${formatPpm(it.ppm)}`}
            data-testid={`handle-${it.name}`}
            onPointerDown={(e) => startDrag(k, e)}
            onKeyDown={(e) => {
              if (!editable) return;
              const step = e.shiftKey ? 1_000 : KEY_STEP;
              if (e.key === "ArrowRight" || e.key === "ArrowUp") move(k, step);
              else if (e.key === "ArrowLeft" || e.key === "ArrowDown") move(k, -step);
              else return;
              e.preventDefault();
            }}
          />
        );
      })}
      {total > PPM ? (
        <i className="alloc-full-mark" style={{ left: `${(PPM / scale) * 100}%` }} title="100% of the parent" />
      ) : null}
    </div>
  );
}
