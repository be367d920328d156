import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jobIdsFor, parseUidRange, type JobIdentity } from "../src/job-identity";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("job identities", () => {
  it("parses a uid range and refuses a bad one, naming the option", () => {
    expect(parseUidRange("20000-29999")).toEqual({ from: 20000, to: 29999 });
    for (const bad of ["0-10", "30000-20000", "20000", "a-b", "20000-"])
      expect(() => parseUidRange(bad)).toThrow(
        `--job-uid-range must be FROM-TO with 1000 <= FROM <= TO (e.g. 20000-29999), got '${bad}'`,
      );
  });

  it("gives each Tranche user a uid of their own from the range, kept across restarts in a mode-600 file, until the range is used up", () => {
    const d = mkdtempSync(join(tmpdir(), "tranche-ids-"));
    dirs.push(d);
    const range: JobIdentity = { kind: "range", from: 20000, to: 20001, mapFile: join(d, "job-uids.json") };
    const ada = jobIdsFor(range, "user-ada");
    const bob = jobIdsFor(range, "user-bob");
    expect(ada).toEqual({ uid: 20000, gid: 20000 });
    expect(bob).toEqual({ uid: 20001, gid: 20001 });
    expect(jobIdsFor({ ...range }, "user-ada")).toEqual(ada); // read back from the file
    expect(statSync(join(d, "job-uids.json")).mode & 0o777).toBe(0o600);
    expect(() => jobIdsFor(range, "user-cy")).toThrow("--job-uid-range 20000-20001 is used up");
  });

  it("runs jobs as the agent itself or as one named account when told so", () => {
    expect(jobIdsFor({ kind: "agent" }, "u")).toBeNull();
    expect(jobIdsFor({ kind: "user", name: "nobody", ids: { uid: 65534, gid: 65534 } }, "u")).toEqual({ uid: 65534, gid: 65534 });
  });
});
