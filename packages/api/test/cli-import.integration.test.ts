// `tranche admin import`: the real CLI process sends a YAML file to the real REST handler over HTTP, on
// a real Postgres with the demo world: a dry run says what would change, the import does it and prints
// the set-password links, and a file with mistakes lists each on its own line and changes nothing.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliStack, type CliStack } from "./cli-stack";

let stack: CliStack<"admin">;

beforeAll(async () => {
  stack = await startCliStack("api_cli_import", { users: ["admin"], tmpPrefix: "tranche-cli-import-" });
});
afterAll(() => stack?.stop());

function file(name: string, text: string): string {
  const p = join(stack.dir, name);
  writeFileSync(p, text);
  return p;
}

const GOOD = `
users:
  - { email: rin@lab.example, name: Rin Sato }
tree:
  - path: lab/quantum
    shares: { h100: 5% }
  - path: lab/quantum/qubits
    members: [rin@lab.example]
`;

describe("tranche admin import", () => {
  it("says in a dry run what would change, then imports the file, printing the set-password link", async () => {
    const lab = file("lab.yaml", GOOD);
    const dry = await stack.cli(["admin", "import", lab, "--dry-run"]);
    expect(dry.stderr).toBe("");
    expect(dry.stdout).toContain(
      "Dry run, nothing changed: 1 user created, 2 tree nodes created, 1 member added, 1 share changed.",
    );
    expect(dry.stdout).toContain("would add rin@lab.example as a member of lab/quantum/qubits");
    expect(await stack.w.db.prisma.user.count({ where: { email: "rin@lab.example" } })).toBe(0);

    const done = await stack.cli(["admin", "import", lab]);
    expect(done.stderr).toBe("");
    expect(done.stdout).toContain("Imported: 1 user created, 2 tree nodes created, 1 member added, 1 share changed.");
    expect(done.stdout).toMatch(/rin@lab\.example {2}\S+\/set-password\?token=tps_/);
    expect(await stack.w.db.prisma.budgetMember.count({ where: { budget: { path: "lab/quantum/qubits" } } })).toBe(1);

    const again = await stack.cli(["admin", "import", lab]);
    expect(again.stdout).toContain("Imported: nothing to change.");
  });

  it("exports the lab as YAML that imports again changing nothing", async () => {
    const exported = await stack.cli(["admin", "export"]);
    expect(exported.stderr).toBe("");
    expect(exported.stdout).toMatch(/^users:\n {2}- \{ email: "/);
    expect(exported.stdout).toContain('  - path: "lab/quantum/qubits"\n    members: ["rin@lab.example"]\n');
    const again = await stack.cli(["admin", "import", file("exported.yaml", exported.stdout)]);
    expect(again.stderr).toBe("");
    expect(again.stdout).toContain("Imported: nothing to change.");
  });

  it("lists every problem of a file on its own line, and changes nothing", async () => {
    const bad = file(
      "bad.yaml",
      `tree:
  - path: lab/quantum
    shares: { h100: 50% }
  - path: lab/nowhere/team
  - path: lab/quantum
    members: [rin@lab.example]
`,
    );
    const r = await stack.cli(["admin", "import", bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Nothing was changed: ");
    expect(r.stderr).toContain("has 3 problems.");
    expect(r.stderr).toMatch(/\n {2}tree\[0\]\.shares\.h100: .*would sum to 145%/);
    expect(r.stderr).toMatch(/\n {2}tree\[1\]\.path: There is no tree node 'lab\/nowhere'/);
    expect(r.stderr).toMatch(/\n {2}tree\[2\]\.path: lab\/quantum is listed twice \(also tree\[0\]\)/);
    const quantum = await stack.w.db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab/quantum" },
      include: { allocations: true },
    });
    expect(quantum.allocations.map((a) => a.ppm)).toEqual([50_000]);
  });
});
