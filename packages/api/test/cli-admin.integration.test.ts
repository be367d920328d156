// `tranche admin ...`: the real CLI process against the real REST handler (served over HTTP from this
// test) and a real Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { YOUNG_CLUSTER_NOTE } from "@tranche/contracts";
import { createApiToken } from "@tranche/domain";
import { startCliStack, type CliStack } from "./cli-stack";
import type { World } from "./fixtures";

type Who = "admin" | "omar" | "ada" | "maya";
let stack: CliStack<Who>;
let w: World;

beforeAll(async () => {
  stack = await startCliStack("api_cli_admin", { users: ["admin", "omar", "ada", "maya"], tmpPrefix: "tranche-cli-admin-" });
  w = stack.w;
});
afterAll(() => stack?.stop());

const cli = (who: Who, args: string[]) => stack.cli(args, who);

describe("tranche admin", () => {
  it("sets up a cluster, a division with a budget, a user with a link, a member and a share", async () => {
    const c = await cli("admin", ["admin", "cluster", "create", "a100", "--gpu-type", "A100", "--max-min-runtime", "4h"]);
    expect(c.stderr).toBe("");
    expect(c.stdout).toContain("Created cluster a100 (A100, protection cap 4 h)");
    expect((await cli("admin", ["admin", "budget", "create", "lab/robotics"])).stdout).toContain("Created lab/robotics.");
    expect((await cli("admin", ["admin", "budget", "create", "lab/robotics/arms"])).stdout).toContain(
      "Created lab/robotics/arms.",
    );
    const u = await cli("admin", [
      "--json",
      "admin",
      "user",
      "create",
      "--email",
      "rin@lab.example",
      "--name",
      "Rin",
      "--role",
      "researcher",
    ]);
    expect(u.code).toBe(0);
    const created = JSON.parse(u.stdout) as { user: { email: string; role: string }; setPasswordUrl: string };
    expect(created.user).toMatchObject({ email: "rin@lab.example", role: "RESEARCHER" });
    expect(created.setPasswordUrl).toMatch(/\/set-password\?token=tps_/);
    expect((await cli("admin", ["admin", "budget", "add-member", "lab/robotics/arms", "rin@lab.example"])).stdout).toContain(
      "rin@lab.example may now charge lab/robotics/arms.",
    );
    const share = await cli("admin", ["admin", "budget", "allocate", "lab/robotics", "--cluster", "a100", "--share", "30%"]);
    expect(share.stdout).toContain("lab/robotics has 30% of its parent's allocation on a100.");
    const node = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab/robotics" },
      include: { allocations: true },
    });
    expect(node.allocations.map((a) => a.ppm)).toEqual([300_000]);
    // The change is in the allocation history, with who made it.
    const history = await cli("admin", ["allocations", "a100", "--budget", "lab/robotics"]);
    expect(history.stdout).toMatch(/^\d{1,2} [A-Z][a-z]{2}, \d\d:\d\d:\d\d {2}lab\/robotics on a100: 0% -> 30%, by \S.*\n$/);
    const set = await cli("admin", ["admin", "user", "set", "rin@lab.example", "--role", "manager"]);
    expect(set.stdout).toContain("rin@lab.example: manager, active.");
    // Who may charge it, read from the command line as the budgets page shows it.
    const people = await cli("admin", ["admin", "budget", "people", "lab/robotics/arms"]);
    // Nobody is named on it, and the managers of the nodes above it manage it too: "none" alone was false.
    expect(people.stdout).toMatch(
      /^lab\/robotics\/arms\n {2}members: .*rin@lab\.example.*\n {2}managers: none named on it \(a manager of a node above it manages it too\)\n$/,
    );
    const asJson = JSON.parse((await cli("admin", ["--json", "admin", "budget", "people", "lab/robotics/arms"])).stdout) as {
      members: { email: string }[];
    };
    expect(asJson.members.map((m) => m.email)).toContain("rin@lab.example");
    // A researcher may not list a budget's people.
    const refused = await cli("ada", ["admin", "budget", "people", "lab/robotics/arms"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe("");
    // Taken back from the command line too: a member, then a manager, each once (again: not found).
    const removed = await cli("admin", ["admin", "budget", "remove-member", "lab/robotics/arms", "rin@lab.example"]);
    expect(removed.stdout).toContain("rin@lab.example may no longer submit to lab/robotics/arms.");
    expect(await w.db.prisma.budgetMember.count({ where: { user: { email: "rin@lab.example" } } })).toBe(0);
    const again = await cli("admin", ["admin", "budget", "remove-member", "lab/robotics/arms", "rin@lab.example"]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("rin@lab.example is not a member of 'lab/robotics/arms'");
    expect((await cli("admin", ["admin", "budget", "add-manager", "lab/robotics", "rin@lab.example"])).code).toBe(0);
    expect((await cli("ada", ["admin", "budget", "remove-manager", "lab/robotics", "rin@lab.example"])).code).not.toBe(0);
    const unmanaged = await cli("admin", ["admin", "budget", "remove-manager", "lab/robotics", "rin@lab.example"]);
    expect(unmanaged.stdout).toContain("rin@lab.example no longer manages lab/robotics.");
    expect(await w.db.prisma.budgetManager.count({ where: { user: { email: "rin@lab.example" } } })).toBe(0);
  });

  it("shows a cluster's budget tree, and every cluster's when none is named", async () => {
    const r = await cli("ada", ["budgets", "h100"]);
    expect(r.stderr).toBe("");
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^Budgets on h100 \(256 GPUs; (no scheduling cycle yet|the scheduler's figures of .* ago)\):$/);
    expect(lines[1]).toMatch(/^BUDGET\s+SHARE OF PARENT\s+OF CLUSTER\s+GPUS HELD/);
    expect(lines[2]).toMatch(/^lab\s+100%\s+100\.0% \(256 GPUs\)/);
    expect(lines.some((l) => /^ {4}pretraining\s+\d/.test(l))).toBe(true);
    // The demo world's clusters were created just now: the budgets page's young-cluster note, by its rule.
    expect(lines.slice(-2)).toEqual(["", YOUNG_CLUSTER_NOTE]);
    const { prisma } = w.db;
    const h100 = await prisma.cluster.findUniqueOrThrow({ where: { name: "h100" } });
    await prisma.cluster.update({ where: { id: h100.id }, data: { createdAt: new Date(Date.now() - 2 * 3600_000) } });
    try {
      expect((await cli("ada", ["budgets", "h100"])).stdout).not.toContain(YOUNG_CLUSTER_NOTE);
    } finally {
      await prisma.cluster.update({ where: { id: h100.id }, data: { createdAt: h100.createdAt } });
    }
    // None named: every cluster's tree, one after another.
    const several = await cli("ada", ["budgets"]);
    expect([several.code, several.stderr]).toEqual([0, ""]);
    const clusters = await prisma.cluster.findMany({ select: { name: true } });
    expect(clusters.length).toBeGreaterThan(1);
    for (const c of clusters) expect(several.stdout).toMatch(new RegExp(`^Budgets on ${c.name} \\(`, "m"));
    const unknown = await cli("ada", ["budgets", "tpu"]);
    expect(unknown.stderr).toMatch(/^tranche: There is no cluster 'tpu' \(clusters: /);
  });

  it("lists your API tokens without their secrets and revokes one; never another person's", async () => {
    const spare = await createApiToken(w.db.prisma, w.users.ada, { name: "laptop" });
    const list = await cli("ada", ["tokens"]);
    expect(list.stderr).toBe("");
    const lines = list.stdout.trimEnd().split("\n");
    // No database ids: a token is named by its name or the characters it starts with.
    expect(lines[0]).toMatch(/^NAME\s+STARTS WITH\s+CREATED\s+LAST USED\s+STANDING$/);
    expect(list.stdout).not.toContain(spare.apiToken.id);
    expect(lines.find((l) => l.startsWith("laptop "))).toMatch(/ trn_\S{6}…\s+\d+ s ago\s+never\s+live, expires in 90 d$/);
    expect(lines.find((l) => l.includes("(this one)"))).toMatch(/^cli\s+trn_/);
    expect(list.stdout).not.toContain(spare.token);
    const other = await cli("omar", ["token", "revoke", spare.apiToken.id]);
    expect([other.code, other.stderr]).toEqual([1, "tranche: You may revoke only your own API tokens\n"]);
    const revoke = await cli("ada", ["token", "revoke", "laptop"]);
    expect(revoke.stdout).toBe(
      `Token laptop (${spare.apiToken.prefix}…) is revoked: every call with it is refused from now on.\n`,
    );
    expect((await w.db.prisma.apiToken.findUniqueOrThrow({ where: { id: spare.apiToken.id } })).revokedAt).not.toBeNull();
  });

  it("hands a user a new set-password link by e-mail", async () => {
    const r = await cli("admin", ["admin", "user", "password-link", "ada@tranche.example"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(
      /^Hand ada@tranche\.example this one-time link to choose a password \(valid for 3 d, until \d{4}-\d\d-\d\d \d\d:\d\d UTC\):\nhttp:\/\/\S+\/set-password\?token=tps_\S+\n$/,
    );
    const unknown = await cli("admin", ["admin", "user", "password-link", "nobody@lab.example"]);
    expect([unknown.code, unknown.stderr]).toEqual([1, "tranche: There is no user 'nobody@lab.example'\n"]);
  });

  it("issues an enrollment token as an operator and lists it", async () => {
    const t = await cli("omar", ["--json", "admin", "enrollment-token", "a100", "--expires-in", "30m"]);
    expect(t.code).toBe(0);
    const { token } = JSON.parse(t.stdout) as { token: string };
    expect(token).toMatch(/^tet_/);
    const list = await cli("omar", ["admin", "enrollment-tokens", "a100"]);
    // The status in words, as the clusters page says it, not the stored code (UNUSED).
    expect(list.stdout).toMatch(/^STATUS\s+HOST\s+ISSUED\s+BY\nnot used yet\s+-\s+/);
    expect(list.stdout).not.toMatch(/UNUSED|EXPIRED|\bUSED\b/);
    // No database id column: nothing takes an enrollment token's id.
    expect(list.stdout).toMatch(/^STATUS\s+HOST\s+ISSUED\s+BY\n/);
    const ids = await w.db.prisma.enrollmentToken.findMany({ select: { id: true } });
    for (const { id } of ids) expect(list.stdout).not.toContain(id);
    expect(list.stdout).not.toContain(token);
    // In words, the command to run on the host is the one that exists (there is no `node-agent` binary).
    const said = await cli("omar", ["admin", "enrollment-token", "a100", "--expires-in", "2h"]);
    // How long it stays good in words, then the moment to the minute (no raw timestamp).
    expect(said.stdout).toMatch(
      /^Enrollment token for a100 \(shown only now, valid for 2 h, until \d{4}-\d\d-\d\d \d\d:\d\d UTC\):\n/,
    );
    expect(said.stdout).toMatch(
      /node --import tsx apps\/node-agent\/src\/main\.ts --server <url the GPU hosts reach> --enrollment-token tet_\S+ --state-dir /,
    );
  });

  it("shows a cluster's policy and changes the debug lane's settings, 'default' restoring one", async () => {
    const shown = await cli("ada", ["admin", "cluster", "policy", "a100"]);
    expect(shown.stderr).toBe("");
    expect(shown.stdout).toContain("debug lane: 2% of the GPUs kept free, 8 GPUs per user, victims losing at most 4 GPU-hours");
    const set = await cli("admin", [
      "admin",
      "cluster",
      "policy",
      "a100",
      "--debug-reserve",
      "5%",
      "--debug-gpus-per-user",
      "16",
    ]);
    expect(set.stdout).toContain("debug lane: 5% of the GPUs kept free, 16 GPUs per user, victims losing at most 4 GPU-hours");
    const back = await cli("admin", ["--json", "admin", "cluster", "policy", "a100", "--debug-reserve", "default"]);
    expect(JSON.parse(back.stdout)).toMatchObject({ name: "a100", debugReservePercent: 2, debugMaxGpusPerUser: 16 });
    const c = await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "a100" } });
    expect(c).toMatchObject({ debugReserve: null, debugMaxGpusPerUser: 16, debugVictimMaxCostSec: null });
    // The server's refusals exit 1; a value the CLI cannot read is a usage error, exit 2.
    const refusals: [Who, string[], string, number][] = [
      ["admin", ["--debug-gpus-per-user", "0"], "debugMaxGpusPerUser must be at least 1 (GPUs)", 1],
      ["admin", ["--debug-victim-max-gpu-hours", "lots"], "--debug-victim-max-gpu-hours 'lots' is not a number or 'default'", 2],
      ["admin", ["--debug-reserve", "few%"], "--debug-reserve 'few%' is not a number (of percent, e.g. 2%) or 'default'", 2],
      ["ada", ["--debug-gpus-per-user", "64"], "change a cluster's policy", 1],
    ];
    for (const [who, flags, message, code] of refusals) {
      const r = await cli(who, ["admin", "cluster", "policy", "a100", ...flags]);
      expect(r.code, flags.join(" ")).toBe(code);
      expect(r.stderr).toContain(message);
    }
    expect((await w.db.prisma.cluster.findUniqueOrThrow({ where: { name: "a100" } })).debugMaxGpusPerUser).toBe(16);
  });

  it("lets a manager shape the tree below the node they manage, and says so in its help", async () => {
    // Commander wraps the help at 80 columns: read it as one line.
    const help = (await cli("maya", ["admin", "budget", "--help"])).stdout.replace(/\s+/g, " ");
    expect(help).toContain("managers may act within the subtree they manage");
    expect(help).toMatch(/create <path> .*\(admins; managers below a node they manage\)/);
    expect(help).toMatch(/archive <path> .*\(admins; managers strictly inside their subtree\)/);
    const made = await cli("maya", ["admin", "budget", "create", "lab/language/long-context"]);
    expect(made.stderr).toBe("");
    expect(made.stdout).toBe("Created lab/language/long-context.\n");
    expect((await cli("maya", ["admin", "budget", "create", "lab/language/long-context/student"])).code).toBe(0);
    const renamed = await cli("maya", ["admin", "budget", "rename", "lab/language/long-context/student", "student-a"]);
    expect(renamed.stdout).toBe("Renamed lab/language/long-context/student to lab/language/long-context/student-a.\n");
    expect((await cli("maya", ["admin", "budget", "archive", "lab/language/long-context/student-a"])).stdout).toBe(
      "Archived lab/language/long-context/student-a.\n",
    );
    const audit = await w.db.prisma.auditLog.findMany({
      where: { action: { startsWith: "tree." } },
      orderBy: { id: "desc" },
      take: 4,
    });
    expect(audit.map((a) => a.action)).toEqual(["tree.archive", "tree.rename", "tree.create", "tree.create"]);
    expect(new Set(audit.map((a) => a.actorId))).toEqual(new Set([stack.w.users.maya.id]));
    // Her own node and a sibling's subtree: refused, in words, and nothing changes.
    const before = await w.counts();
    const own = await cli("maya", ["admin", "budget", "rename", "lab/language", "nlp"]);
    expect(own.code).toBe(1);
    expect(own.stderr).toContain("You manage 'lab/language' itself: only admins may rename, move or archive it");
    const sibling = await cli("maya", ["admin", "budget", "create", "lab/vision/x"]);
    expect(sibling.code).toBe(1);
    expect(sibling.stderr).toContain("You do not manage 'lab/vision'");
    const out = await cli("maya", ["admin", "budget", "move", "lab/language/long-context", "lab/vision"]);
    expect(out.code).toBe(1);
    expect(await w.counts()).toEqual(before);
  });

  it("prints the server's refusal and exits 1 (wrong role, bad input), 2 for a share that is not a number", async () => {
    const before = await w.counts();
    const role = await cli("ada", ["admin", "cluster", "create", "x1", "--gpu-type", "X"]);
    expect(role.code).toBe(1);
    expect(role.stderr).toContain("Only admins may create clusters");
    const parent = await cli("admin", ["admin", "budget", "create", "lab/nowhere/x"]);
    expect(parent.code).toBe(1);
    expect(parent.stderr).toContain("parent: There is no tree node 'lab/nowhere'");
    const share = await cli("admin", ["admin", "budget", "allocate", "lab/robotics", "--cluster", "a100", "--share", "lots"]);
    expect(share.code).toBe(2); // a usage error, said before any request
    expect(share.stderr).toContain("--share 'lots' is not a fraction");
    expect(await w.counts()).toEqual(before);
  });

  it("previews a share with --what-if: what the queue would do, in words, and nothing changed", async () => {
    const allocations = () => w.db.prisma.allocation.findMany({ orderBy: [{ treeNodeId: "asc" }, { clusterId: "asc" }] });
    const whatIf = (who: Who, path: string, share: string, json = false) =>
      cli(who, [
        ...(json ? ["--json"] : []),
        "admin",
        "budget",
        "allocate",
        path,
        "--cluster",
        "h100",
        "--share",
        share,
        "--what-if",
      ]);
    // A job waiting on h100, so the preview has a queue to show.
    const submit = ["submit", "--cluster", "h100", "--budget", "lab/language/pretraining", "--gpus", "8", "--min-runtime", "1h"];
    const job = await cli("ada", [...submit, "--", "sleep", "1"]);
    expect(job.code).toBe(0);
    const before = await allocations();
    const r = await whatIf("admin", "lab/language", "50%");
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("What-if on h100, nothing changed: lab/language at 50% of its parent's allocation.");
    expect(r.stdout).toMatch(/would reorder \d+ of \d+ pending jobs\./);
    expect(r.stdout).toMatch(/\ntree node +has used, now +with the change\n/);
    expect(r.stdout).toMatch(/\nlab\/language +(\d+% of its share|\d+\.\d times its share|no share here) +/);
    expect(r.stdout).toMatch(/\njob +budget +GPUs +place now +with the change\n#\d+ +lab\/language\/pretraining +8 +\d/);
    const json = JSON.parse((await whatIf("admin", "lab/language", "0.5", true)).stdout) as {
      preview: { path: string; share: number; valid: boolean; ratios: { path: string }[] };
    };
    expect(json.preview).toMatchObject({ path: "lab/language", share: 0.5, valid: true });
    expect(json.preview.ratios.map((x) => x.path)).toContain("lab/language");
    // A share its siblings leave no room for: the preview says why and the exit status is 1, as the change's.
    const crowded = await whatIf("admin", "lab/language", "99%");
    expect(crowded.stdout).toMatch(/would sum to \d+%/);
    expect(crowded.code).toBe(1);
    // Refused with the server's words, as the change itself would be: a share over 1, the root, a researcher.
    const over = await whatIf("admin", "lab/language", "2");
    expect([over.code, over.stderr]).toEqual([1, expect.stringContaining("share cannot exceed 1")]);
    const root = await whatIf("admin", "lab", "50%");
    expect([root.code, root.stderr]).toEqual([1, expect.stringContaining("the root always holds the whole of every cluster")]);
    expect((await whatIf("ada", "lab/language", "50%")).code).toBe(1);
    expect(await allocations()).toEqual(before);
  });

  it("lists the audit log filtered by action, in the words the web shows, with its details", async () => {
    // The words the log shows, as the web's Action filter offers them; a code's prefix as scripts pass it.
    for (const action of ["created a tree node", "tree."]) {
      const r = await cli("admin", ["admin", "audit", "--action", action]);
      expect([r.code, r.stderr]).toEqual([0, ""]);
      expect(r.stdout).toMatch(/^WHEN\s+WHO\s+ACTION\s+ON\s+DETAILS\n/);
      expect(r.stdout).toContain("created a tree node");
      expect(r.stdout).toContain("lab/robotics/arms");
      expect(r.stdout).not.toContain("created a cluster");
      expect(r.stdout).not.toMatch(/tree\.create|cluster\.create/);
    }
    const vague = await cli("admin", ["admin", "audit", "--action", "node"]);
    expect([vague.code, vague.stderr]).toEqual([2, expect.stringContaining("--action 'node' could mean: ")]);
  });
});
