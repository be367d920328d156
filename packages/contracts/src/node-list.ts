import { z } from "zod";
import { text } from "./input";

/** The most node names one list (`nodes` or `excludeNodes`) may hold. */
export const MAX_NODE_NAMES = 64;
/** The longest node name a list may hold (node names are registered with at most this many). */
const NODE_NAME_CHARS = 100;

/**
 * Slurm's host list: `gpu-03,gpu-04`, `gpu-[03-05]`, `gpu-[01,03-05]` (one bracket per name). The
 * names in order, each once, or a sentence saying what is wrong. A range keeps its first number's
 * width (`[08-10]`: gpu-08, gpu-09, gpu-10).
 */
export function expandNodeList(spec: string, what = "node list"): string[] | string {
  const names: string[] = [];
  for (const raw of splitOutsideBrackets(spec)) {
    const part = raw.trim();
    const m = /^([^[\]]*)\[([^\]]*)\]([^[\]]*)$/.exec(part);
    if (!m) {
      if (/[[\]]/.test(part)) return `${what}: '${part.slice(0, 40)}' has an unmatched bracket`;
      names.push(part);
    } else {
      for (const r of m[2]!.split(",")) {
        const range = /^\s*(\d+)(?:\s*-\s*(\d+))?\s*$/.exec(r);
        if (!range) return `${what}: '${r.trim().slice(0, 20)}' in '${part.slice(0, 40)}' is not a number or a range like 03-05`;
        const from = Number(range[1]);
        const to = range[2] === undefined ? from : Number(range[2]);
        if (to < from) return `${what}: range ${range[1]}-${range[2]} runs backwards`;
        if (to - from >= MAX_NODE_NAMES) return `${what} names more than ${MAX_NODE_NAMES} nodes`;
        for (let i = from; i <= to; i++) names.push(`${m[1]}${String(i).padStart(range[1]!.length, "0")}${m[3]}`);
      }
    }
    if (names.length > MAX_NODE_NAMES) return `${what} names more than ${MAX_NODE_NAMES} nodes`;
  }
  if (names.length === 0) return `${what} names no node`;
  return [...new Set(names)];
}

/** The list's parts: commas inside brackets belong to the bracket, not the list. Empty parts dropped. */
function splitOutsideBrackets(spec: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of spec) {
    if (ch === "[") depth++;
    else if (ch === "]") depth--;
    if (ch === "," && depth === 0) {
      parts.push(cur);
      cur = "";
    } else cur += ch;
  }
  parts.push(cur);
  return parts.filter((p) => p.trim() !== "");
}

const nodeNames = (field: string, meaning: string) =>
  z
    .array(
      text(field)
        .trim()
        .min(1, `${field} holds an empty node name`)
        .max(NODE_NAME_CHARS, `${field} holds a node name longer than ${NODE_NAME_CHARS} characters`),
      { error: `${field} must be a list of node names, e.g. ["gpu-03", "gpu-04"]` },
    )
    .min(1, `${field} must name at least one node (leave it out for none)`)
    .max(MAX_NODE_NAMES, `${field} names at most ${MAX_NODE_NAMES} nodes`)
    .transform((names) => [...new Set(names)])
    .describe(meaning);

/** The submit fields of node constraints (merged into submitJobInput; `tranche update` may change them). */
export const nodeListFields = {
  nodes: nodeNames("nodes", "Names of the only nodes of the cluster this job may run on (Slurm's --nodelist)").optional(),
  excludeNodes: nodeNames(
    "excludeNodes",
    "Names of nodes of the cluster this job must never run on (Slurm's --exclude)",
  ).optional(),
};

/** A sentence when a node is named in both lists, else null. */
export function nodeListsOverlap(
  nodes: readonly string[] | undefined | null,
  exclude: readonly string[] | undefined | null,
): string | null {
  if (!nodes || !exclude) return null;
  const both = nodes.filter((n) => exclude.includes(n));
  if (both.length === 0) return null;
  // In words, not field names: the form's boxes, the CLI's flags and REST's fields all read it.
  return `${both.length === 1 ? `node '${both[0]}' is` : `nodes ${both.map((n) => `'${n}'`).join(", ")} are`} both to run on and to avoid: a job cannot be kept off a node it must run on`;
}
