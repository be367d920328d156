"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { labFileYaml, type LabImportResult } from "@tranche/contracts";
import { useTRPC } from "../../../../lib/trpc";
import { errorText } from "../../../../lib/error-text";
import { PageHead } from "../../../../components/ui";
import { LabChanges, LabProblems } from "./lab-changes";

type Problem = { message: string; issues: { path: string; message: string }[] };
const problemOf = (e: unknown): Problem => ({
  message: errorText(e),
  issues: (e as { data?: { issues?: Problem["issues"] | null } }).data?.issues ?? [],
});

/**
 * A lab file from the browser (admins): paste or upload it, Check (the import's dry run), then Import
 * the very text that was checked; the server reads and checks it again either way. And the lab as a
 * file, to edit and import again. The same procedures as REST's /admin/import and /admin/export.
 */
export function LabView() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [text, setText] = useState("");
  const [checked, setChecked] = useState<{ text: string; result: LabImportResult } | null>(null);
  const [shown, setShown] = useState<LabImportResult | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const fail = (e: unknown) => (setShown(null), setProblem(problemOf(e)));
  const check = useMutation(trpc.admin.labCheck.mutationOptions({ onError: fail }));
  const run = useMutation(trpc.admin.labImport.mutationOptions({ onError: fail }));
  const busy = check.isPending || run.isPending;
  const ready = checked !== null && checked.text === text && checked.result.changes.length > 0;
  const onCheck = () =>
    check.mutate({ text }, { onSuccess: (result) => (setChecked({ text, result }), setShown(result), setProblem(null)) });
  const onImport = () =>
    run.mutate(
      { text },
      {
        onSuccess: (result) => {
          setChecked(null);
          setShown(result);
          setProblem(null);
          void qc.invalidateQueries({ queryKey: trpc.budget.tree.queryKey() });
        },
      },
    );
  const download = async () => {
    try {
      const lab = await qc.fetchQuery({ ...trpc.admin.labExport.queryOptions({}), staleTime: 0 });
      const url = URL.createObjectURL(new Blob([labFileYaml(lab)], { type: "application/yaml" }));
      const a = Object.assign(document.createElement("a"), { href: url, download: "lab.yaml" });
      a.click();
      URL.revokeObjectURL(url);
    } catch (e) {
      fail(e);
    }
  };
  return (
    <>
      <PageHead
        title="Lab file"
        lede="Set up or extend the lab from one file: users, the tree, its managers, members and shares. Check shows what would change; nothing changes until you import. Nothing the file does not name is removed."
      />
      <section className="panel">
        <div className="panel-body stack">
          <label className="small">
            Upload a lab file (YAML or JSON){" "}
            <input
              type="file"
              accept=".yaml,.yml,.json,application/yaml,application/json,text/yaml"
              aria-label="Upload a lab file"
              onChange={(e) => void e.target.files?.[0]?.text().then(setText)}
            />
          </label>
          <textarea
            className="input mono"
            aria-label="Lab file"
            rows={14}
            placeholder={
              "users:\n  - { email: lin@lab.example, name: Lin Lee }\ntree:\n  - path: lab/language/agents\n    members: [lin@lab.example]"
            }
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
          <div className="row">
            <button className="btn" disabled={busy || text.trim() === ""} onClick={onCheck}>
              Check
            </button>
            <button className="btn primary" disabled={busy || !ready} onClick={onImport}>
              Import
            </button>
            <span className="muted small">
              {checked && checked.text !== text
                ? "The text changed since the check: check it again before importing."
                : checked && !ready
                  ? "Nothing to import: the lab already has all of this."
                  : !checked
                    ? "Import is possible after a check of this text finds changes."
                    : ""}
            </span>
            <button className="btn" style={{ marginLeft: "auto" }} onClick={() => void download()}>
              Download the lab as a lab file
            </button>
          </div>
          {problem ? <LabProblems error={problem} /> : null}
          {shown ? <LabChanges result={shown} /> : null}
        </div>
      </section>
    </>
  );
}
