// `tranche admin export [--cluster X] > lab.yaml`: the lab as a lab file, to edit and import again.
// `tranche admin import FILE [--dry-run]`: a lab file (users, tree, managers, members, shares; YAML or
// JSON, docs/admin-guide.md) sent whole to POST /admin/import, which applies all of it or nothing.
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { labFileYaml, labImportSummary, type LabFile, type LabImportResult } from "@tranche/contracts";
import { api, apiText, CliError, loadConfig } from "./client";
import { printable, type Out } from "./format";

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new CliError(`Cannot read ${file}: ${(e as Error).message}`);
  }
}

function importText(r: LabImportResult): string {
  const head = r.dryRun ? `Dry run, nothing changed: ${labImportSummary(r)}.` : `Imported: ${labImportSummary(r)}.`;
  const lines = [head, ...r.changes.map((c) => `  ${r.dryRun ? "would " : ""}${printable(c)}`)];
  if (r.passwordLinks.length > 0)
    lines.push(
      "",
      "Set-password links (each works once, until it expires; send each to its person):",
      ...r.passwordLinks.map((l) => `  ${l.email}  ${l.setPasswordUrl}`),
    );
  return lines.join("\n");
}

export function registerLabImport(admin: Command, out: Out): void {
  admin
    .command("export")
    .description("print the lab as a lab file (YAML) to edit and import again: users, tree, managers, members, shares (admins)")
    .option("--cluster <name>", "the shares on this cluster only")
    .action(async (o: { cluster?: string }) => {
      const q = o.cluster ? `?cluster=${encodeURIComponent(o.cluster)}` : "";
      const r = await api<{ lab: LabFile }>(loadConfig(), "GET", `/admin/export${q}`);
      out(r.lab, () => labFileYaml(r.lab).trimEnd());
    });

  admin
    .command("import")
    .description("set up users, the tree, managers, members and shares from one YAML or JSON file, all or nothing (admins)")
    .argument("<file>", "the lab file, e.g. lab.yaml (docs/examples/lab.yaml)")
    .option("--dry-run", "say what would change, change nothing", false)
    .action(async (file: string, o: { dryRun: boolean }) => {
      const text = readText(file);
      const type = /\.json$/i.test(file) ? "application/json" : "application/yaml";
      try {
        const r = await apiText<{ import: LabImportResult }>(
          loadConfig(),
          "POST",
          `/admin/import${o.dryRun ? "?dryRun=true" : ""}`,
          text,
          type,
        );
        out(r, () => importText(r.import));
      } catch (e) {
        // Every problem on its own line, at its place in the file, rather than one long sentence.
        if (e instanceof CliError && e.issues.length > 1)
          throw new CliError(
            [
              `Nothing was changed: ${file} has ${e.issues.length} problems.`,
              ...e.issues.map((i) => `  ${i.path}: ${i.message}`),
            ].join("\n"),
          );
        throw e;
      }
    });
}
