// A second "host" for job-identity.test.ts: claims a uid for each user named in CLAIM_UIDS (JSON: its
// state folder, the shared claims folder, a start time in ms, the users) and prints { user: uid } as
// JSON. It waits for the start time, so that the hosts really claim at once.
import { join } from "node:path";
import { jobIdsFor } from "../../src/job-identity";

const { state, claimDir, startAt, users } = JSON.parse(process.env.CLAIM_UIDS!) as {
  state: string;
  claimDir: string;
  startAt: number;
  users: string[];
};
const identity = { kind: "range" as const, from: 20000, to: 20199, mapFile: join(state, "job-uids.json"), claimDir };
const got: Record<string, number> = {};
while (Date.now() < startAt); // spin: every host starts in the same millisecond
for (const u of users) got[u] = jobIdsFor(identity, u)!.uid;
process.stdout.write(JSON.stringify(got));
