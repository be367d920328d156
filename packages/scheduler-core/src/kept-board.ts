import { NodeBoard } from "./cluster-state";
import type { JobState } from "./job-state";

/**
 * A node board kept between the cycles of one cluster (working-state.ts): the cycle's own moves are
 * recorded and undone afterwards, and the jobs that started or ended between cycles are added and
 * removed, so each cycle starts from exactly what a fresh load of its snapshot gives.
 */
export class KeptBoard extends NodeBoard {
  /**
   * For a board kept between cycles (see working-state.ts): from here on, occupy and vacate are
   * recorded so that rollback() can return the board to its loaded state after the cycle.
   */
  record(): void {
    this.undoLog = [];
  }

  /** Reverts every occupy and vacate since record(), newest first; nothing waits for an exit any more. */
  rollback(): void {
    const log = this.undoLog;
    this.undoLog = null;
    if (log) for (let i = log.length - 1; i >= 0; i--) log[i]!();
    this.exitWait.clear();
  }

  /** Between cycles: a job that started since takes its GPUs (each node's list stays in job id order). */
  add(js: JobState): void {
    for (const s of js.slots) {
      const list = this.jobsOn[s.node]!;
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid]!.job.id < js.job.id) lo = mid + 1;
        else hi = mid;
      }
      list.splice(lo, 0, js);
      const base = this.offset[s.node]!;
      const count = this.offset[s.node + 1]! - base;
      for (const g of s.gpus) if (g >= 0 && g < count) this.occ[base + g]!++;
      this.recount(s.node);
    }
  }

  /** Between cycles: a job that ended since gives its GPUs back. */
  remove(js: JobState): void {
    for (const s of js.slots) {
      const list = this.jobsOn[s.node]!;
      const at = list.indexOf(js);
      if (at >= 0) list.splice(at, 1);
      const base = this.offset[s.node]!;
      const count = this.offset[s.node + 1]! - base;
      for (const g of s.gpus) if (g >= 0 && g < count) this.occ[base + g]!--;
      this.recount(s.node);
    }
  }

  /** Between cycles: a job's category may have changed (protection ended, started leaving). */
  refresh(node: number): void {
    this.refreshCategories(node);
  }

  private recount(node: number): void {
    let f = 0;
    for (let k = this.offset[node]!; k < this.offset[node + 1]!; k++) if (this.occ[k] === 0) f++;
    this.setFree(node, f);
    this.refreshCategories(node);
  }
}
