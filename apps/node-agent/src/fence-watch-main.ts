// The fence watch's process (see fence-watch.ts), started by each agent process:
//   node [--import tsx] fence-watch-main.ts '{"agent":{"pid":..,"start":".."},"nodes":[{"name":..,"dir":..,"cgroupBase":..}]}'
import { FenceWatch, type FenceWatchSpec } from "./fence-watch";

const spec = JSON.parse(process.argv[2] ?? "null") as FenceWatchSpec | null;
if (!spec || !Array.isArray(spec.nodes) || typeof spec.agent?.pid !== "number") {
  console.error("fence-watch: expects the agent and its nodes as one JSON argument");
  process.exit(2);
}
await new FenceWatch(spec).run();
process.exit(0);
