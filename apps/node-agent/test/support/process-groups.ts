import { readdirSync, readFileSync } from "node:fs";

/** Does a live (not zombie: this sandbox may have no init reaping orphans) process of this group remain? */
export const groupAlive = (pgid: number): boolean =>
  readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .some((pid) => {
      try {
        const rest = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
        return Number(rest[2]) === pgid && rest[0] !== "Z";
      } catch {
        return false;
      }
    });
