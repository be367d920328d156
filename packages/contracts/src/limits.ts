/**
 * Every size limit of the API and the agent protocol, in one place (README "Limits"). A request over
 * a byte limit is refused before it is parsed (413); a field over its limit is refused with 400 naming
 * the field and the limit. Nothing is stored either way.
 *
 * The env limits keep a job launchable: Linux refuses an exec whose single argument or environment
 * string passes 128 KiB (MAX_ARG_STRLEN) or whose arguments and environment together pass ARG_MAX
 * (2 MiB on most hosts), and an agent would only find out at launch time.
 */
export const LIMITS = {
  /** Bytes of one REST request body (a job submission, any other POST). */
  requestBytes: 1024 * 1024,
  /** Bytes of one `POST /jobs/batch` body (up to `batchJobs` jobs). */
  batchRequestBytes: 8 * 1024 * 1024,
  /** Jobs in one batch. */
  batchJobs: 1000,
  /**
   * Pending rows of one live-queue read (REST `GET /queue/:cluster`, tRPC `queue.get`): by default, and at
   * most. Any signed-in user may read a queue, and a read of 100,000 rows built tens of MB in the web
   * process; the web app asks for 100 and pages the rest (`queue.page`), the CLI for 25.
   */
  queueRows: 500,
  queueRowsMax: 10_000,
  /**
   * Pending rows one person's live-queue reads in flight may ask for together, per web process: one read
   * of the most, or many of the pages the web app asks for. The bound on calls in flight alone let one
   * person hold 16 reads of 10,000 rows at once: 1 GB of the web process for 15 s, again and again (a
   * security audit).
   */
  queueRowsInFlightPerUser: 10_000,
  /**
   * Jobs one person's job lists in flight (REST `GET /jobs`, tRPC `job.list`, at most 1,000 each) may ask
   * for together, per web process. A listed job carries its command and environment (up to 74 KB): a
   * list of 1,000 was 72 MB of JSON, and one person's 16 at once held the web process for over a minute
   * (a security audit). Two lists of the most, or ten of the web app's 200.
   */
  jobRowsInFlightPerUser: 2_000,
  /**
   * Log chunks one person's log pages in flight (REST `GET /jobs/:id/logs`, tRPC `job.logs`, at most 1,000
   * each) may ask for together, per web process. A chunk holds up to 64 Ki characters: a page of 1,000 was
   * 66 MB of JSON, and one person's 16 at once held the web process 80 s and grew it by 1.3 GB (a security
   * audit). Two pages of the CLI's 1,000, or four of the web app's 500.
   */
  logChunksInFlightPerUser: 2_000,
  /**
   * Calls one person may have in flight at once in one web process, REST and tRPC together (a tRPC
   * batch counts each call), and calls in one tRPC batch (the web app's client batches no more).
   * A person's requests share the web process's event loop and database pool with everyone else's and
   * with the node agents' heartbeats: a batch of 150 large queue reads held the loop for 90 s, the
   * agents heard nothing for their 30 s timeout and stopped every running job (a security audit).
   */
  callsInFlightPerUser: 16,
  trpcBatchCalls: 16,
  /**
   * A person's requests through the sessions host to their sessions' servers, in flight at once per web
   * process, and the bytes of their bodies held meanwhile (each is read whole, up to 16 MiB, before it
   * is sent on). Not counted with the calls above: a notebook's page loads dozens of files at once. The
   * session's server is its owner's code and may never answer: 40 uploads of 16 MiB held 1.7 GB of the
   * web process (a security audit). WebSockets open at once per person (a kernel or terminal each): each
   * holds two connections of the web process.
   */
  sessionRequestsPerUser: 64,
  sessionBodyBytesPerUser: 64 * 1024 * 1024,
  sessionSocketsPerUser: 64,
  /** Characters of a job's command. */
  commandChars: 10_000,
  /** Characters of a job's name. */
  nameChars: 120,
  /**
   * Characters of a person's display name. Every queue row and snapshot repeats its owner's name, so a
   * long one multiplies: a 200 KB name on a few thousand pending jobs crashed the worker.
   */
  personNameChars: 100,
  /** Characters of a cluster name, a budget path, an idempotency key. */
  keyChars: 200,
  /** Environment variables of one job. */
  envVars: 256,
  /** Bytes (UTF-8) of one environment variable's name. */
  envNameBytes: 256,
  /** Bytes (UTF-8) of one environment variable's value. */
  envValueBytes: 32 * 1024,
  /** Bytes (UTF-8) of a job's whole environment: names, values and their `=`. */
  envTotalBytes: 64 * 1024,
  /** GPUs of one job (the largest clusters have fewer). */
  jobGpus: 100_000,
  /** Seconds of any duration field (minRuntime, maxRuntime, gracePeriod): 365 days. */
  durationSec: 365 * 86_400,
  /** Bytes of one agent protocol request (a heartbeat with its job reports and log chunks). */
  agentRequestBytes: 8 * 1024 * 1024,
  /**
   * Requests one node's credential may have in flight at once in one web process, heartbeats and
   * long-polls together (429 past it). Its agent holds one of each, and one more of each its own timeout
   * gave up on while the server still works. Unbounded, one credential's 1,000 heartbeats at once queued
   * for the agents' database connections and that node's lock: another node's heartbeat failed after 18 s
   * and every agent's timed out (a security audit). Each may also hold its 8 MiB body meanwhile.
   */
  agentRequestsInFlightPerNode: 4,
  /**
   * Agent requests no enrolled node is known for (enrollments, unknown or revoked credentials) one
   * client address may have in flight at once in one web process (429 unread past it). Each costs a
   * lookup on the agents' database connections: unbounded, 5,000 at once queued ahead of every node's
   * heartbeat. Enrolled nodes' requests are not counted, so one address behind the lab's proxy cannot
   * lock them out.
   */
  agentAnonymousRequestsInFlightPerAddress: 4,
  /**
   * Bytes of an enrollment request (a token, a name and at most 64 GPUs' inventory, a few KiB): the one
   * agent route anyone may call without a credential reads no more than this.
   */
  agentEnrollBytes: 64 * 1024,
  /**
   * Bytes of a request body from a caller who is not signed in: sign-in and the rest of /api/auth, tRPC
   * without a session (setting a password from an invitation). Their bodies are a few hundred bytes;
   * this is what anyone may make the web app hold per connection.
   */
  signedOutRequestBytes: 64 * 1024,
  /** Characters of one log chunk. */
  logChunkChars: 65_536,
  /** Log chunks in one heartbeat (the agent sends at most half of them and carries the rest over). */
  logChunksPerBeat: 500,
  /** Bytes (UTF-8) of all log chunks in one heartbeat (the agent sends at most half of it and carries the rest over). */
  logBytesPerBeat: 4 * 1024 * 1024,
  /** Live API tokens (not revoked, not expired) one person may hold: enough for every machine and script. */
  liveApiTokensPerUser: 100,
  /**
   * Ended API tokens (revoked or expired) kept and listed per person: for this many days, at most the
   * newest this many. A loop that makes and revokes tokens would otherwise grow the table at its
   * request rate (a security audit).
   */
  endedApiTokenDays: 30,
  endedApiTokensPerUser: 100,
  /**
   * A lab file (`tranche admin import`, `POST /admin/import`): its bytes, its users and its tree entries,
   * and the people named as members or managers of one entry. The whole file is applied in one
   * transaction that holds the tree's lock: a lab of a few hundred people fits many times over.
   */
  importBytes: 1024 * 1024,
  importUsers: 2_000,
  importTreeEntries: 2_000,
  importPeoplePerEntry: 2_000,
  /**
   * API tokens one person may make in an hour (429 past it). Making and revoking a token writes two
   * audit rows, and the audit log is kept whole: a loop would grow it at its request rate (an audit).
   * Tokens a command on the server makes (npm run admin) are not counted against it.
   */
  apiTokensMadePerUserPerHour: 20,
} as const;

/** The largest value of a Postgres `integer` column: ids, counts and seconds stored as int. */
export const INT32_MAX = 2_147_483_647;

/** UTF-8 length of a string, without allocating (the submit form runs this in the browser too). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      n += 4; // a surrogate pair: one 4-byte character
      i++;
    } else n += 3;
  }
  return n;
}

/** "1 MiB", "64 KiB", "900 bytes": limits in words for error messages. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n.toLocaleString("en-US")} bytes`;
}
