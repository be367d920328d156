// `tranche session` and `tranche extend`: the real CLI process against the REST handler served over HTTP
// and a real Postgres (no worker: the session stays pending, which is what extend must refuse).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliStack, type CliStack } from "./cli-stack";
import type { World } from "./fixtures";

let stack: CliStack<"ada">;
let w: World;

beforeAll(async () => {
  stack = await startCliStack("api_cli_session");
  w = stack.w;
});
afterAll(() => stack?.stop());

const cli = (args: string[]) => stack.cli(args);

const session = ["session", "--cluster", "h100", "--budget", "lab/language/pretraining"];

describe("tranche session", () => {
  it("starts an interactive session and says where to open it; extend refuses a session that is not running", async () => {
    const r = await cli([...session, "--gpus", "1", "--min-runtime", "4h"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // Pending until a cycle starts it: the CLI says so, not "Started".
    const id = Number(/^Submitted session #(\d+) \(shell server\)/.exec(r.stdout)![1]);
    expect(r.stdout).toContain(`until then, tranche explain ${id} says why it waits.`);
    expect(r.stdout).toContain(`1 GPU on h100, charged to lab/language/pretraining.\nProtected for 4 h after each start;`);
    expect(r.stdout).toContain(`${stack.url}/jobs/${id}`);
    const job = await w.db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job).toMatchObject({ kind: "INTERACTIVE", sessionServer: "SHELL", minRuntimeSec: 14_400, gpus: 1, state: "PENDING" });

    const jupyter = await cli(["--json", ...session, "--min-runtime", "1h", "--jupyter"]);
    const j = (JSON.parse(jupyter.stdout) as { job: { id: number; kind: string } }).job;
    expect(j.kind).toBe("INTERACTIVE");
    expect((await w.db.prisma.job.findUniqueOrThrow({ where: { id: j.id } })).sessionServer).toBe("JUPYTER");

    const extend = await cli(["extend", String(id), "--by", "1h"]);
    expect(extend.code).not.toBe(0);
    expect(extend.stderr).toContain(`Session ${id} is pending: only a running session can be extended`);
  });

  it("refuses bad input before or at the server, storing nothing", async () => {
    const before = await w.db.prisma.job.count();
    const overCap = await cli([...session, "--min-runtime", "9h"]);
    expect(overCap.code).not.toBe(0);
    expect(overCap.stderr).toContain("Minimum runtime 9 h is above the cluster's limit of 8 h");
    const notMine = await cli(["session", "--cluster", "h100", "--budget", "lab/vision/video", "--min-runtime", "1h"]);
    expect(notMine.code).not.toBe(0);
    expect(notMine.stderr).toContain("You may not charge budget 'lab/vision/video': you are not one of its members");
    const noGpus = await cli([...session, "--gpus", "0", "--min-runtime", "1h"]);
    expect(noGpus.stderr).toContain("The number of GPUs must be at least 1");
    expect(await w.db.prisma.job.count()).toBe(before);
  });
});
